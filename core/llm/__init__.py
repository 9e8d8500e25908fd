"""LLM-driven chunking over any OpenAI-compatible endpoint: settings, client, TSV phases, cache."""
