"""Text hygiene: the one pass every converter's text goes through before a ``Document`` exists.

A font's Unicode map, a Word file or a text upload can carry characters that JSON, Chroma or a
browser refuse or mangle: UTF-16 surrogates (a high and a low one side by side are the halves of
one character, written as that character; a lone one is no character at all and becomes U+FFFD),
the ASCII control characters (dropped, except tab, line feed and carriage return; a form feed or
vertical tab becomes a line break) and the noncharacters U+FFFE and U+FFFF (dropped). The C1
controls (U+0080..U+009F) are kept: every consumer accepts them, and a symbol font's arrows or
quotes sometimes arrive as them, so dropping them would lose what the page shows. What was
changed is counted, so the conversion can say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

REPLACEMENT = "\ufffd"
_UNCLEAN = re.compile(
    "[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]|[\x0b\x0c]"
    "|[\x00-\x08\x0e-\x1f\x7f\ufffe\uffff]")


@dataclass
class Hygiene:
    """What cleaning changed, summed over every text cleaned with this counter."""

    paired: int = 0  # surrogate pairs written as the one character they encode
    replaced: int = 0  # lone surrogates written as U+FFFD
    controls: int = 0  # control characters and noncharacters dropped or made line breaks

    def clean(self, text: str) -> str:
        """``text`` with nothing JSON, Chroma or a browser would refuse; changes counted."""
        if not _UNCLEAN.search(text):
            return text
        return _UNCLEAN.sub(self._fix, text)

    def add(self, other: Hygiene) -> None:
        self.paired += other.paired
        self.replaced += other.replaced
        self.controls += other.controls

    def _fix(self, match: re.Match[str]) -> str:
        found = match.group()
        if len(found) == 2:
            self.paired += 1
            return found.encode("utf-16", "surrogatepass").decode("utf-16")
        if "\ud800" <= found <= "\udfff":
            self.replaced += 1
            return REPLACEMENT
        self.controls += 1
        return "\n" if found in "\x0b\x0c" else ""

    def notes(self) -> list[str]:
        """A sentence for the user when anything was changed."""
        parts = []
        if self.paired:
            parts.append(f"{self.paired:,} split characters (surrogate pairs) joined")
        if self.replaced:
            parts.append(f"{self.replaced:,} invalid characters (lone surrogates) replaced by "
                         "\ufffd")
        if self.controls:
            parts.append(f"{self.controls:,} control characters removed")
        return [f"Text cleaned: {'; '.join(parts)}."] if parts else []


def is_clean(text: str) -> bool:
    """True when ``text`` holds nothing :meth:`Hygiene.clean` would change."""
    return _UNCLEAN.search(text) is None
