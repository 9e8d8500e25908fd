"""Errors a user can cause. ``str(error)`` is one sentence fit to show in the UI or the CLI.

Pages catch :class:`ChunkLabError` and show the sentence; the CLI prints it and exits 2.
Anything else is a bug and may surface as a traceback in logs, never in the UI.
"""


class ChunkLabError(Exception):
    """Base of every error caused by input, settings or an outside service."""


class ConversionError(ChunkLabError):
    """An upload could not become a Document: empty, corrupt, unsupported, too big, no text."""


class ChunkingError(ChunkLabError):
    """Invalid chunker settings, or a strategy that cannot run on this document."""


class TemplateError(ChunkLabError):
    """A prompt template that cannot be used: bad JSON, unknown template, bad variant name."""


class StoreError(ChunkLabError):
    """The chunk store cannot do what was asked (unknown chunk set, server unreachable…)."""


class StoreUnreachable(StoreError):
    """The chunk store's server does not answer (never started, stopped, network gone)."""


class EmbeddingError(ChunkLabError):
    """An embedder failed: its endpoint unreachable, refusing, or answering without vectors."""


class RerankError(ChunkLabError):
    """A reranking endpoint failed: unreachable, refusing, or answering without scores."""
