"""Documents and corpora made in code, and the scorers of what the converters make of them:
shared by the tests and the benchmarks, which never import each other."""
