"""jiobench analysis: run files in, aggregate-bandwidth tables, figures and an HTML report out.

Every number shown comes from the run files' `summary` and `phases`, computed by
`jiobench.reduce`; pooling several runs at one point calls `jiobench.reduce.summarize` again, and
ratios with their intervals and verdicts come from `jiobench.stats`, as the runner's do.
"""
