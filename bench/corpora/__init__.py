"""Inputs only the benchmarks make (the ones tests share live in the top-level corpora/)."""
