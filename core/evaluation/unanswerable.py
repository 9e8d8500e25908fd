"""Whether a question written to be unanswerable is answered by the documents after all, as far
as words can tell.

The question's content words (a document's title words aside, as
:func:`core.evaluation.excerpts.unanswered` does: a document answers questions about its subject
without naming it) are looked for passage by passage, in windows of :data:`WINDOW_CHARS`
characters that overlap by half, so every stretch of half a window lies whole in one of them. A
passage holding all of them answers the question; a question that asks for a word no passage
uses alongside the others passes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.documents.model import Document
from core.evaluation.excerpts import AROUND_CHARS, content_stems, title_stems

WINDOW_CHARS = 2 * AROUND_CHARS  # a passage: a paragraph or two
QUOTED_CHARS = 90  # of the answering passage, in the reason


def answering_passage(question: str, documents: Sequence[Document]) -> str | None:
    """Why ``question`` is answered by ``documents``: the passage that holds every content word
    it asks about; None when no passage does."""
    for document in documents:
        wanted = content_stems(question) - title_stems(document)
        text = document.text
        if not wanted <= content_stems(text):
            continue  # the document never uses one of the words: no passage of it answers
        step = WINDOW_CHARS // 2
        for start in range(0, max(len(text) - step, 1), step):
            window = text[start : start + WINDOW_CHARS]
            if wanted <= content_stems(window):
                quoted = re.sub(r"\s+", " ", window).strip()[:QUOTED_CHARS]
                return (f"{document.source_name} answers it: a passage holds every word it "
                        f"asks about (“{quoted}…”)")
    return None
