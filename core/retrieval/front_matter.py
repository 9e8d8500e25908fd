"""Front matter stays out of retrieval unless asked for: a chunk that is mostly a cover, a
contents page, a list of figures or an index (``Chunk.front_matter``, marked alike by every
route) answers no question, and its dot leaders and page numbers crowd out the text that does.

:func:`retrievable` is the one test every ranking applies, with one switch
(``include_front_matter``) to keep such chunks.
"""

from __future__ import annotations

from core.chunking.chunk import Chunk


def retrievable(chunk: Chunk, include_front_matter: bool = False) -> bool:
    """Whether ``chunk`` may be a retrieval result: body text always, front matter only when
    ``include_front_matter``."""
    return include_front_matter or chunk.front_matter is None
