"""Retrieval: rank chunks for a question (vector, BM25, hybrid) and turn hits into packs.

``modes`` (the rankings a user picks); ``ranking`` ranks in memory (shared with the
evaluation); ``retrieve`` runs against a chunk set of the store; ``packs`` merges hits with
their neighbours into citable spans; ``rerank`` reorders the best hits at an endpoint
(``rerank_settings``).
"""
