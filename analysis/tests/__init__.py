"""Tests of jiobench_analysis (a package, so that its conftest and helpers keep names of their own
beside other test directories of the repository)."""
