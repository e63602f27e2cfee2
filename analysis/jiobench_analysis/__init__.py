"""jiobench analysis: run files in, aggregate-bandwidth tables, figures and an HTML report out.

Every number shown comes from the run files' `summary` and `phases`, computed by
`jiobench.model.reduce`; pooling several runs at one point calls `jiobench.model.reduce.summarize` again, and
ratios with their intervals and verdicts come from `jiobench.model.stats`, as the runner's do.
"""
