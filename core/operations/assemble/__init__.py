"""Assemble: retrieve from a chunk set, build the RAG prompt and ask the model (the Assemble page
and ``python -m core assemble``); ``run`` holds the options and the steps."""
