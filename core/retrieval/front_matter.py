"""Front matter stays out of retrieval unless asked for: a chunk that is mostly a cover, a
contents page, a list of figures or an index (``Chunk.front_matter``, marked alike by every
route) answers no question, and its dot leaders and page numbers crowd out the text that does.

:func:`retrievable` is the one test every ranking applies (Assemble, the chunk map, Evaluate,
Tune, Answers), with one switch (``include_front_matter``) to keep such chunks;
:class:`SetApart` counts what it left out, so each of them can say so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import get_args

from core.chunking.chunk import Chunk
from core.documents.model import MatterRole

ROLES: tuple[MatterRole, ...] = get_args(MatterRole)
ROLE_WORDS: dict[MatterRole, str] = {"cover": "cover", "contents": "contents",
                                     "figures": "list of figures", "index": "index"}


def retrievable(chunk: Chunk, include_front_matter: bool = False) -> bool:
    """Whether ``chunk`` may be a retrieval result: body text always, front matter only when
    ``include_front_matter``."""
    return include_front_matter or chunk.front_matter is None


@dataclass(frozen=True)
class SetApart:
    """The front-matter chunks a retrieval left out, counted by role."""

    roles: dict[MatterRole, int] = field(default_factory=dict)

    @classmethod
    def of(cls, chunks: Iterable[Chunk], include_front_matter: bool = False) -> SetApart:
        """What ``chunks`` hold of front matter, were it left out (nothing when
        ``include_front_matter``)."""
        if include_front_matter:
            return cls()
        counts = Counter(c.front_matter for c in chunks if c.front_matter is not None)
        return cls({role: counts[role] for role in ROLES if counts[role]})

    @property
    def chunks(self) -> int:
        return sum(self.roles.values())

    def sentence(self) -> str:
        """"3 chunks of front matter set apart (contents, index)", or "" when none was."""
        if not self.chunks:
            return ""
        what = "chunk" if self.chunks == 1 else "chunks"
        roles = ", ".join(ROLE_WORDS[role] for role in self.roles)
        return f"{self.chunks:,} {what} of front matter set apart ({roles})"

    def to_json(self) -> dict[str, int]:
        return {str(role): count for role, count in self.roles.items()}
