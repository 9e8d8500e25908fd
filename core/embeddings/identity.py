"""Which embedder: a local one by name, or a model served at an OpenAI-compatible endpoint.

An :class:`EmbedderRef` is what a chunk set, an evaluation configuration and a cached vector are
keyed by. It holds no secret: an endpoint's address is kept without user, password, query or
fragment, so it may be saved, cached and shown.
"""

from __future__ import annotations

import hashlib

from core.embeddings.model_files import MODEL_ID
from core.endpoint import EndpointRef

LOCAL = "local"
BUILTIN_LABEL = "MiniLM (built-in)"


class EmbedderRef(EndpointRef):
    """A local embedder (``base_url`` empty; MiniLM by default) or ``model`` at ``base_url``."""

    model: str = MODEL_ID

    @property
    def local(self) -> bool:
        return not self.base_url

    @property
    def builtin(self) -> bool:
        """The built-in MiniLM, which every page and the CLI use unless told otherwise."""
        return self.local and self.model == MODEL_ID

    @property
    def where(self) -> str:
        """``local``, or the endpoint's host (and port)."""
        return LOCAL if self.local else super().where

    @property
    def label(self) -> str:
        """How pages and results name it: ``MiniLM (built-in)``, ``nomic-embed-text @ host``."""
        if self.builtin:
            return BUILTIN_LABEL
        return f"{self.model} ({LOCAL})" if self.local else super().label

    @property
    def namespace(self) -> str:
        """What its cached vectors are keyed by (MiniLM's name alone, as before endpoints)."""
        return self.model if self.local else f"{self.model}@{self.base_url}"

    @property
    def cache_stem(self) -> str:
        """The name of its cache file."""
        if self.local:
            return self.model
        return "endpoint-" + hashlib.sha256(self.namespace.encode()).hexdigest()[:16]


BUILTIN = EmbedderRef()  # MiniLM, the default everywhere
