"""Small documents generated in tests (python-docx, fpdf2, openpyxl, python-pptx, strings),
the span invariant every converted Document must satisfy, and chunking one in a single call."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from core.chunking.chunk import Chunk
from core.chunking.registry import build_chunker
from core.documents.model import Document, Section, Table
from core.embeddings.port import Embedder
from tests.fakes import FakeEmbedder

HTML = """<html><head><title>Manual</title></head><body>
<h1>Product Manual</h1><p>Read this <b>before</b> you start.</p>
<h2>Setup</h2><ul><li>Plug it in</li><li>Turn it on<ul><li>wait for the beep</li></ul></li></ul>
<h3>Specifications</h3>
<table><caption>Table 1: Specifications</caption>
<tr><th>Spec</th><th>Value</th></tr><tr><td>Weight</td><td>2 kg</td></tr></table>
<pre><code>reset --all</code></pre>
<h2>Care</h2><p>Clean it &lt;gently&gt;.</p></body></html>"""

MARKDOWN = """# Handbook

Intro paragraph
over two lines.

## Install ##

- item one
- item *two*
  continued
  1. nested

Setext Title
------------

Table 2: Ports

| Port | Use \\| note |
|-----:|---|
| 80 | http |
| 443 | https |

```python
print("hi")
```

> quoted paragraph

### Deep
text
# Second
end
"""


def assert_spans_exact(doc: Document) -> None:
    """The invariant: every span slices exactly its element's text; sections nest properly."""
    text = doc.text
    previous_end = 0
    for block in doc.blocks:
        piece = text[block.start : block.end]
        assert 0 <= block.start < block.end <= len(text), block
        assert piece == piece.strip(), (block, piece)
        assert block.start >= previous_end, f"blocks overlap or are out of order at {block}"
        previous_end = block.end
    headings = {(b.start, b.end) for b in doc.blocks if b.kind in ("heading", "title")}
    for section in doc.sections:
        assert text[section.heading_start : section.heading_end] == section.title
        assert section.start <= section.heading_start < section.heading_end <= section.end
        assert section.end <= len(text)
        assert (section.heading_start, section.heading_end) in headings
        enclosing = [s for s in doc.sections if s is not section and s.level < section.level
                     and s.start <= section.start < s.end]
        innermost = max(enclosing, key=lambda s: s.start, default=None)
        assert section.parent == (innermost.title if innermost else None), section
        for other in doc.sections:  # nested or disjoint, never crossing
            a, b = (section.start, section.end), (other.start, other.end)
            assert a[1] <= b[0] or b[1] <= a[0] or (b[0] <= a[0] and a[1] <= b[1]) or (
                a[0] <= b[0] and b[1] <= a[1]), (section, other)
    table_blocks = {(b.start, b.end) for b in doc.blocks if b.kind == "table"}
    for table in doc.tables:
        assert text[table.start : table.end] == table.markdown
        assert (table.start, table.end) in table_blocks
        assert table.rows and all(table.rows)
        if table.caption is not None:
            assert text[table.caption_start : table.caption_end] == table.caption


def inspection_markdown(topic: str) -> str:
    """A short inspection guide about ``topic``: a title, a routine section of four paragraphs
    and a costs section (chunk sets of several such documents stay small)."""
    paragraphs = "\n\n".join(
        f"Paragraph {i} on {topic}: the inspector checks the {topic} for wear, records the "
        f"serial number and notes any damage caused by frost, storms or a lack of maintenance. "
        f"The owner receives a written report about the {topic} within {i + 2} days."
        for i in range(4)
    )
    costs = f"Each visit costs {len(topic)} EUR."
    return f"# Inspecting {topic}\n\n## Routine\n\n{paragraphs}\n\n## Costs\n\n{costs}\n"


GUIDE_MARKDOWN = (
    "# Field Guide\n\nThe guide explains the setup. It has two parts.\n\n"
    "## Install\n\nDownload the package. Unpack it in the home folder.\n\n"
    "Run the installer as an administrator. Restart afterwards.\n\n"
    "Table 1: Ports\n\n| Service | Port |\n|---|---|\n| web | 8080 |\n| db | 5432 |\n\n"
    "## Operate\n\nCheck the logs every morning. Rotate them weekly.\n\n"
    "Escalate outages to the on-call engineer.\n"
)


def chunk_document(document: Document, strategy: str, embedder: Embedder | None = None,
                   **settings: Any) -> list[Chunk]:
    """The chunks of ``document`` by a local strategy with keyword settings; a strategy that
    embeds (cluster) embeds with ``embedder``, by default the offline bag of words."""
    return build_chunker(strategy, embedder or FakeEmbedder(), **settings).chunk(document)


# Random documents with random tables and sections, for property tests (hypothesis).
PIECES = ["word", "Tide", "42", "x", " ", " ", "  ", "\n", "\n\n", ". ", ".", "é", "中文", "\t",
          "https://example.com/a/very/long/path?q=1", "ab" * 40, "'s", "/"]


@st.composite
def documents(draw) -> Document:
    text = "".join(draw(st.lists(st.sampled_from(PIECES), min_size=0, max_size=150)))
    n = len(text)
    cuts = sorted(set(draw(st.lists(st.integers(0, n), max_size=8))))
    tables, sections = [], []
    for a, b in zip(cuts[::2], cuts[1::2], strict=False):
        if draw(st.booleans()) and b > a:
            caption = draw(st.booleans()) and a > 0
            tables.append(Table(
                start=a, end=b, markdown=text[a:b], rows=[[text[a:b]]],
                caption="c" if caption else None,
                caption_start=max(0, a - 3) if caption else None,
                caption_end=a if caption else None,
            ))
    for p in sorted(set(draw(st.lists(st.integers(0, n), max_size=4)))):
        sections.append(Section(start=p, end=n, title=f"s{p}", level=1,
                                heading_start=p, heading_end=p))
    return Document(doc_id="0" * 16, source_name="r.txt", format="txt", route="text", text=text,
                    tables=tables, sections=sections)


# A short Markdown handbook with sentences long enough to quote and a table whose rows are too:
# question generation, the question-set editor and their browser test ask about it.
CLAIMS_HANDBOOK = """# Claims handbook

## Water damage

Water damage claims have a waiting period of thirty days from the policy start.
A plumber's report must be attached to every claim about a burst pipe.
Damage caused by slow leaks over months is not covered by this policy.

## Fire

Fire claims are paid within ten working days once the fire brigade report arrives.
Smoke damage to furniture is covered up to the contents limit of the policy.

## Limits

| Cover | Limit per claim |
|---|---|
| Dwelling and attached structures | 300,000 EUR |
| Personal property and contents | 150,000 EUR |
| Additional living expenses | 30,000 EUR |

## Contact

Claims are reported by phone or through the online portal at any time of day.
An adjuster calls back within two working days to arrange a visit.
"""


# A small Markdown guide (two sections, a table, sentences) that LLM pipeline tests chunk.
SMALL_GUIDE = (
    b"# Guide\n\nFirst paragraph. It has two sentences.\n\n## Setup\n\nInstall it. Then run"
    b" it.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nLast words here.\n\n## Usage\n\nUse it well."
)


TRANSCRIPT_CAPTION = ["IN THE SUPERIOR COURT OF THE STATE", "- - - - - - - - - - - - x",
                      "JANE ROE,                   :", "          Plaintiff,       :",
                      "     v.                     :  No. 21-0457",
                      "RICHARD DOE,                :", "- - - - - - - - - - - - x"]
TRANSCRIPT_BODY = [
    "The deposition of the witness was taken at the offices of the county clerk on the morning "
    "of the third of March, before a certified court reporter and notary public.",
    "Counsel for both parties were present and agreed that the reading and signing of the "
    "transcript would be waived by the witness at the close of the session.",
    "The witness was sworn and testified that she had worked at the warehouse for eleven years "
    "and had supervised the loading crews on the night shift for the last four of them.",
]


def transcript(pages: int = 2) -> tuple[bytes, list[str]]:
    """A court transcript as reporters set it: Courier, double spaced, 25 numbered lines a
    page in the left margin, a caption with a colon bracket, paragraphs with a first-line
    indent."""
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    pdf.set_auto_page_break(False)
    wrapped: list[str] = []
    for paragraph in TRANSCRIPT_BODY * pages:
        words, line = paragraph.split(), "          "
        for word in words:
            if len(line) + len(word) + 1 > 56:
                wrapped.append(line)
                line = ""
            line += (" " if line.strip() else "") + word
        wrapped.append(line)
    body = iter(wrapped)
    for page in range(pages):
        pdf.add_page()
        pdf.set_font("Courier", "", 12)
        rows = list(TRANSCRIPT_CAPTION) if page == 0 else []
        rows += [next(body, "") for _ in range(25 - len(rows))]
        for number, text in enumerate(rows, start=1):
            pdf.set_xy(25, 25 + (number - 1) * 8.47)
            pdf.cell(10, 6, str(number), align="R")
            pdf.set_xy(40, 25 + (number - 1) * 8.47)
            pdf.cell(150, 6, text)
    return bytes(pdf.output()), TRANSCRIPT_BODY * pages
