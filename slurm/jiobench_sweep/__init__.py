"""`jiobench sweep`: a campaign of `jiobench run` points as Slurm jobs, one allocation, or here."""
