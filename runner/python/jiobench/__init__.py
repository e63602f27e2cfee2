"""jiobench: parallel Java file I/O benchmark (launcher, reduction, run files)."""
