"""The one "Include front matter" switch of the pages that retrieve (Assemble, Evaluate, Tune,
Answers): covers, contents pages and indexes stay out of retrieval unless it is ticked."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ui.persist import kept

HELP = ("Covers, contents pages, lists of figures and indexes are left out of retrieval: their "
        "page numbers and dot leaders answer no question. Tick to retrieve them too.")


def include_front_matter(key: str, *, where: Any = st, durable: bool = True) -> bool:
    """The switch under the kept widget ``key`` (drawn in ``where``, a column or the page)."""
    return bool(where.checkbox("Include front matter", key=kept(key, False, durable=durable),
                               help=HELP))
