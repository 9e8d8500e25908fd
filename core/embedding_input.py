"""What is embedded for a chunk: the same text for the store, retrieval and evaluation.

Kept apart from :mod:`core.store` so that code which only ranks in memory does not import
Chroma.
"""

from __future__ import annotations

from core.chunking.base import Chunk

# Bump when what is embedded for a chunk changes: cached evaluation results depend on it.
EMBEDDING_INPUT_VERSION = 2


def embedding_text(chunk: Chunk) -> str:
    """The text the vector is computed from (the stored document is always ``chunk.text``).

    MiniLM reads only the first 256 word pieces, so a whole table embedded as it stands is
    judged by its first rows. A table chunk is embedded by its LLM summary when it has one,
    else by a digest that fits: where it sits, its caption, its columns and the first cell of
    every row (what table questions name: "Coverage A: Dwelling", "Windstorm or hail").
    """
    text = chunk.text
    if chunk.chunk_type == "table":
        text = chunk.summary or table_digest(chunk.text, chunk.heading_path)
    if chunk.context_prefix:
        text = f"{chunk.context_prefix.strip()}\n\n{text}"
    return text


def table_digest(table_text: str, heading_path: list[str]) -> str:
    """Heading path, caption lines, header cells and row labels of a Markdown table chunk."""
    caption: list[str] = []
    rows: list[list[str]] = []
    for line in table_text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("|"):
            caption.append(stripped)
            continue
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        if all(set(c) <= set("-: ") for c in cells):
            continue  # the |---|---| rule under the header
        rows.append(cells)
    if not rows:
        return table_text
    parts = [" > ".join(heading_path), *caption, "Columns: " + "; ".join(rows[0])]
    labels = [r[0] for r in rows[1:] if r and r[0]]
    if labels:
        parts.append("Rows: " + "; ".join(labels))
    return "\n".join(p for p in parts if p)
