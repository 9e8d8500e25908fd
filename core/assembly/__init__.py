"""Assembly: the RAG prompt from retrieval packs (numbered citations, token budget), and the
check of an answer's citation markers against it. ``model`` holds the assembled prompt as data,
``prompt`` builds it, ``citations`` checks an answer's markers."""
