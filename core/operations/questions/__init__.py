"""Question sets: ``sets`` (load, validate and keep them, each with the documents it asks
about) and ``generation`` (a set written by the LLM from the user's documents)."""
