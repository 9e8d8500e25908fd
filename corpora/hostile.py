"""A hostile corpus for the CLI: the files, and one file converted or chunked in its own process
(:func:`run_one`); ``python -m bench.hostile_corpus`` runs them all.

The files are made at run time in a temporary folder (nothing big is committed): empty,
truncated, wrong extensions, XXE, zip bombs, NUL bytes, UTF-16, path-traversal, newline and
ANSI names, a 2,000-column table, deeply nested HTML, a DOCX of 400,000 paragraphs, an XLSX of
100,000 rows… Each runs through ``python -m core convert`` and ``python -m core chunk`` with a
timeout. Per file and command it prints the exit code, the first stderr line, the seconds and
the peak RSS of the child (``ru_maxrss`` of the waited-for process tree); then a summary: files
tried, clean (exit 0, or exit 2 with one line on stderr), tracebacks, hangs, max RSS. The goal:
0 tracebacks, 0 hangs at 120 s, every file at most 1 GiB.
"""

from __future__ import annotations

import io
import resource
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GIB = 2**30

W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
CONTENT_TYPES_DOCX = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
    'package/2006/content-types"><Default Extension="rels" ContentType="application/'
    'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
    '"application/xml"/><Override PartName="/word/document.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
RELS_DOCX = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.'
    'org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
    'openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="word/document.xml"/></Relationships>'
)


def _zip(parts: dict[str, bytes | str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return out.getvalue()


def docx_from_body(body: str, prolog: str = "") -> bytes:
    document = (f'<?xml version="1.0" encoding="UTF-8"?>{prolog}<w:document {W_NS}>'
                f"<w:body>{body}</w:body></w:document>")
    return _zip({"[Content_Types].xml": CONTENT_TYPES_DOCX, "_rels/.rels": RELS_DOCX,
                 "word/document.xml": document})


def paragraphs_docx(count: int) -> bytes:
    """Many tiny paragraphs: a small file holding a lot of XML."""
    return docx_from_body('<w:p><w:r><w:t>x</w:t></w:r></w:p>' * count)


def xxe_docx() -> bytes:
    prolog = '<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    return docx_from_body("<w:p><w:r><w:t>&xxe;</w:t></w:r></w:p>", prolog)


def billion_laughs_docx() -> bytes:
    entities = '<!ENTITY a0 "lol">' + "".join(
        f'<!ENTITY a{i} "{("&a" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
    return docx_from_body("<w:p><w:r><w:t>&a9;</w:t></w:r></w:p>", f"<!DOCTYPE d [{entities}]>")


def zip_bomb_docx(megabytes: int = 300) -> bytes:
    """A DOCX whose one extra part unpacks to ``megabytes`` of zeros."""
    out = io.BytesIO(docx_from_body("<w:p><w:r><w:t>hello</w:t></w:r></w:p>"))
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("word/media/bomb.bin", b"\0" * (megabytes * 2**20))
    return out.getvalue()


def xlsx_rows(rows: int, columns: int = 3) -> bytes:
    import openpyxl

    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("data")
    for r in range(rows):
        sheet.append([f"r{r}c{c}" if c == 0 else r * c for c in range(columns)])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def deep_html(depth: int) -> bytes:
    return (f"<html><body>{'<div>' * depth}deep{'</div>' * depth}</body></html>").encode()


def wide_csv(columns: int) -> bytes:
    header = ",".join(f"c{i}" for i in range(columns))
    row = ",".join(str(i) for i in range(columns))
    return f"{header}\n{row}\n{row}\n".encode()


def wide_html_table(columns: int) -> bytes:
    cells = "".join(f"<td>{i}</td>" for i in range(columns))
    return f"<html><body><table><tr>{cells}</tr><tr>{cells}</tr></table></body></html>".encode()


def real_docx() -> bytes:
    from corpora.documents import docx_bytes

    return docx_bytes()


def real_pdf() -> bytes:
    from corpora.documents import pdf_bytes

    return pdf_bytes()


TEXT = b"# Title\n\nSome text about boilers.\n\n## Part\n\nMore text.\n"
CORPUS: dict[str, Callable[[], bytes]] = {
    "empty.txt": lambda: b"",
    "empty.docx": lambda: b"",
    "plain.md": lambda: TEXT,
    "truncated.docx": lambda: real_docx()[:2000],
    "truncated.pdf": lambda: real_pdf()[:1500],
    "truncated.xlsx": lambda: xlsx_rows(20)[:900],
    "pdf-named.docx": real_pdf,
    "docx-named.pdf": real_docx,
    "docx-named.txt": real_docx,
    "png-named.md": lambda: b"\x89PNG\r\n\x1a\n" + b"\0" * 64,
    "no-extension": lambda: TEXT,
    "archive.docx": lambda: _zip({"a.txt": "hello"}),
    "xxe.docx": xxe_docx,
    "xxe.html": lambda: b'<!DOCTYPE h [<!ENTITY x SYSTEM "file:///etc/passwd">]><p>&x;</p>',
    "billion-laughs.docx": billion_laughs_docx,
    "zip-bomb.docx": zip_bomb_docx,
    "nul-early.txt": lambda: b"text\0more",
    "nul-late.txt": lambda: b"a" * 9000 + b"\0" + b"b" * 10,
    "nul-late.md": lambda: b"# T\n\n" + b"a" * 9000 + b"\0tail",
    "utf16.txt": lambda: "Überschrift\n\nText in UTF-16.\n".encode("utf-16"),
    "utf16-no-bom.txt": lambda: "plain".encode("utf-16-le"),
    "latin1.txt": lambda: "caf\xe9".encode("latin-1"),
    "../../etc/traversal.md": lambda: TEXT,
    "new\nline.md": lambda: TEXT,
    "ansi\x1b[31mred\x1b[0m.md": lambda: TEXT,
    "bad-ansi\x1b]0;title\x07.docx": lambda: b"not a zip",
    "![px](http://127.0.0.1:9/x.png) **bold**.md": lambda: TEXT,
    "wide-2000.csv": lambda: wide_csv(2000),
    "wide-2000.html": lambda: wide_html_table(2000),
    "deep-10000.html": lambda: deep_html(10_000),
    "deep-300.html": lambda: deep_html(300),
    "paragraphs-400k.docx": lambda: paragraphs_docx(400_000),
    "rows-100k.xlsx": lambda: xlsx_rows(100_000),
    "paragraphs-19k.docx": lambda: paragraphs_docx(19_000),  # just under the limits
    "rows-16k.xlsx": lambda: xlsx_rows(16_000),
}
QUICK = ["empty.txt", "truncated.docx", "xxe.docx", "zip-bomb.docx", "nul-late.txt",
         "utf16.txt", "new\nline.md", "ansi\x1b[31mred\x1b[0m.md", "wide-2000.csv",
         "deep-10000.html", "paragraphs-400k.docx"]


@dataclass
class Outcome:
    name: str
    command: str
    code: int | None  # None: killed at the timeout
    message: str
    seconds: float
    rss_bytes: int
    traceback: bool
    stderr_lines: int

    @property
    def clean(self) -> bool:
        one_line = self.stderr_lines <= 1 or self.code == 0
        return self.code in (0, 2) and not self.traceback and one_line


def _peak_rss(usage_before: int) -> int:
    """The largest child RSS since ``usage_before`` (ru_maxrss is a maximum over children)."""
    now = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return now if now > usage_before else 0


def run_one(path: Path, command: str, timeout: float) -> Outcome:
    """One CLI run in a fresh interpreter whose own children (workers) count in its RSS.

    ``ru_maxrss`` of RUSAGE_CHILDREN is the largest of all waited-for descendants, so each run
    goes through a small wrapper process that reports its own children's maximum.
    """
    wrapper = (
        "import resource, subprocess, sys, json\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "sys.stdout.buffer.write(json.dumps({'code': p.returncode, 'rss': r}).encode() + b'\\n')\n"
        "sys.stdout.buffer.write(p.stderr)\n"
    )
    args = [sys.executable, "-c", wrapper, sys.executable, "-m", "core", command, str(path)]
    started = time.perf_counter()
    try:
        done = subprocess.run(args, capture_output=True, timeout=timeout, cwd=ROOT,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        return Outcome(path.name, command, None, f"killed after {timeout:.0f} s",
                       time.perf_counter() - started, 0, False, 0)
    seconds = time.perf_counter() - started
    import json

    head, _, err = done.stdout.partition(b"\n")
    report = json.loads(head)
    text = err.decode("utf-8", "replace")
    lines = text.strip().splitlines()
    return Outcome(path.name, command, report["code"], lines[0] if lines else "", seconds,
                   report["rss"] * 1024, "Traceback (most recent call last)" in text, len(lines))


def make_corpus(folder: Path, names: list[str]) -> list[Path]:
    """Write the named files into ``folder``; path-traversal names are written flat under
    their own name (the CLI gets the name as it is, the folder holds it safely)."""
    paths = []
    for index, name in enumerate(names):
        sub = folder / f"{index:02d}"
        sub.mkdir()
        safe = name.replace("/", "\N{DIVISION SLASH}") if "/" in name else name
        path = sub / safe
        path.write_bytes(CORPUS[name]())
        paths.append(path)
    return paths
