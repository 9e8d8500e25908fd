"""Prompt templates: {{placeholder}} substitution, defaults + variants, RAG system prompt."""
