"""How ChunkLab talks HTTP to the servers it uses (LLM, embeddings, reranker): connections
another thread can end (:mod:`core.http.transport`)."""
