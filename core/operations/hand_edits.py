"""Hand edits on Compare as operations: build an edited configuration, apply it to a base
chunking already at hand, save it as a named configuration (see :mod:`core.chunking.edits`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.chunking.chunk import Chunk
from core.chunking.edits import (
    EDITED,
    AnyEdit,
    EditedConfig,
    MoveBoundary,
    Split,
    apply_edits,
    snap_to_word,
)
from core.documents.model import Document
from core.operations.presets import Preset, save_user_preset
from core.operations.strategies import validated_config


def landed(document: Document, edit: AnyEdit) -> AnyEdit:
    """The edit where it lands: a split or a moved boundary snaps to the nearer edge of a word
    (kept so, the list of edits says where it went)."""
    if isinstance(edit, Split | MoveBoundary):
        return edit.model_copy(update={"at": snap_to_word(document.text, edit.at)})
    return edit


def edited_config(source: str, base: str, base_settings: Mapping[str, Any], doc_id: str,
                  edits: Sequence[AnyEdit]) -> EditedConfig:
    """The configuration "``source`` with these edits on document ``doc_id``"; the encoding is
    the base's, so token counts stay comparable."""
    encoding = validated_config(base, base_settings).encoding
    config = validated_config(EDITED, {
        "source": source, "base": base, "base_settings": dict(base_settings),
        "encoding": encoding, "edits": {doc_id: [e.model_dump() for e in edits]} if edits else {},
    })
    assert isinstance(config, EditedConfig)
    return config


def edit_chunks(document: Document, base_chunks: Sequence[Chunk],
                config: EditedConfig) -> list[Chunk]:
    """The base chunks with the configuration's edits for ``document``; ChunkingError says why
    an edit cannot be made."""
    return apply_edits(document, base_chunks, config.edits.get(document.doc_id, []), config)


def save_edited(name: str, config: EditedConfig) -> Preset:
    """Save the edited configuration under ``name``: it is then in every configuration list
    (Compare, Chunk sets, Evaluate) and in ``python -m core eval --preset``."""
    return save_user_preset(name, EDITED, config.model_dump(mode="json"))
