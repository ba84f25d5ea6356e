"""Benchmarks: ``python bench/run.py`` (or ``python -m bench``) runs them all and prints one table.
See docs/performance.md for what each measures and the figures on the 2-core machine."""
