"""Chunk sets: ``run`` (the ingest: convert, chunk, embed and store a set, resumable) with
``task`` (one document's work) and ``workers`` (this process or a Ray cluster), and
``chunk_sets`` (list, cut over, roll back, delete)."""
