"""Assemble: retrieve from a chunk set, build the RAG prompt and ask the model (the Assemble page
and ``python -m core assemble``); ``run`` holds the options and the steps, ``budget`` the
passage budget by default, ``choices`` the rules from the page's inputs to the options."""
