"""What the benchmarks measure against: the model work of a run and this machine's ceiling."""
