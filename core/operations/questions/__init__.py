"""Question sets: ``sets`` (load, validate and keep them, each with the documents it asks
about), ``working`` (the set being worked on, and its draft while unsaved) and ``generation``
(a set written by the LLM from the user's documents)."""
