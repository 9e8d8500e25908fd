"""Reading quality on PDFs printed by Chromium (tests/fixtures/pdf/reading): heading levels from
the document's own ladder, covers, contents pages and indexes set apart, code never a heading,
letters placed one by one read as whole words, tables ruled only across read cell by cell."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from core.documents.model import ConvertedText
from core.documents.pdf import convert_pdf_offline
from core.documents.pdf.headings import Style
from core.documents.pdf.outline import assign_levels
from corpora.pdf_score import (
    heading_level_agreement,
    reference_tables,
    table_cell_f1,
    word_f1,
)

FOLDER = Path(__file__).resolve().parent / "fixtures" / "pdf" / "reading"


@cache
def converted(name: str) -> ConvertedText:
    return convert_pdf_offline((FOLDER / f"{name}.pdf").read_bytes(), f"{name}.pdf")


def reference(name: str) -> str:
    return (FOLDER / f"{name}.md").read_text(encoding="utf-8")


def test_a_book_reads_chapters_above_sections_and_its_covers_as_no_headings() -> None:
    book = converted("book")
    levels = {s.title: s.level for s in book.sections}
    assert levels["Chapter 1. Securing rows and columns"] == 1
    assert levels["1.1 Why access control belongs in the database"] == 2
    assert levels["1.1.1 Rules that travel with the table"] == 3
    assert levels["Chapter 2. Roles and separation of duties"] == 1
    assert levels["2.2.1 Granting the authority"] == 3
    # the covers' huge titles and publisher lines are text of the covers, not headings
    assert [s.title for s in book.sections][0] == "Contents"
    assert not [s for s in book.sections if "Redpaper" in s.title or "ORGANIZATION" in s.title]
    assert book.text.startswith("Redpaper\n\nRow and Column Access Control")


def test_covers_contents_and_index_pages_are_marked_and_kept_in_the_text() -> None:
    book = converted("book")
    assert [p.role for p in book.page_info] == [
        "cover", "contents", None, None, "index", "cover"]
    assert book.quality is not None
    assert "4 pages of front matter (cover, contents, index) set apart" in book.quality.summary()
    assert [m.role for m in book.front_matter] == ["cover", "contents", "index", "cover"]
    contents = next(book.text[m.start:m.end] for m in book.front_matter if m.role == "contents")
    assert "1.2 Row permissions" in contents  # kept in the text
    # every entry of the contents page is a line of its own, none a heading
    entries = [b for b in book.blocks if b.page == 2]
    assert [b.kind for b in entries] == ["heading"] + ["paragraph"] * 7
    assert book.text[entries[3].start:entries[3].end].startswith("1.2 Row permissions")


def test_a_command_set_in_a_fixed_pitch_font_is_never_a_heading_whatever_the_font_is_called(
) -> None:
    data = (FOLDER / "book.pdf").read_bytes()
    renamed = data.replace(b"DejaVuSansMono", b"DejaVuSansPlai")  # no "mono" in its name
    assert renamed != data
    book = convert_pdf_offline(renamed, "book.pdf")
    assert not [s.title for s in book.sections if "PERMISSION" in s.title or "TABLE" in s.title]
    assert "CREATE PERMISSION <permission name>" in book.text


def test_numbering_schemes_nest_in_the_order_the_document_uses_them() -> None:
    body, big = Style(11.0, True), Style(14.0, True)
    titles = ["I. Gaz du sang", "A. Mesure du pH", "1. Acidose", "B. Interprétation",
              "II. Acidoses", "C. Traitement"]
    # all in one style: the outline alone sets the levels; "C." follows "B.": a letter
    assert assign_levels([(body, t) for t in titles]) == [1, 2, 3, 2, 1, 2]
    # a chapter set smaller than its numbered sections still stands above them
    keys = [(Style(10.0, True), "Chapter 5"), (big, "5.1 Results"), (body, "5.1.1 Speed")]
    assert assign_levels(keys) == [1, 2, 3]


def test_letters_placed_one_by_one_read_as_whole_words() -> None:
    spacing = converted("spacing")
    assert word_f1(spacing.text, reference("spacing")) == 1.0
    assert [s.title for s in spacing.sections] == ["Row permission syntax",
                                                   "Kerning and ligatures"]
    assert ("The DISABLE clause specifies that the row permission is to be initially disabled, "
            "so that the administrator can test it first.") in spacing.text
    assert "difficulties with the official filing system" in spacing.text


def test_a_table_ruled_only_across_reads_cell_by_cell_with_its_sub_rows() -> None:
    paper = converted("paper")
    expected = reference_tables(reference("paper"))
    assert [t.rows for t in paper.tables] == expected
    assert table_cell_f1([t.rows for t in paper.tables], expected) == 1.0
    first = paper.tables[0].rows
    assert first[1][:3] == ["6", "6", "OTSL"] and first[2][:3] == ["", "", "HTML"]
    assert paper.tables[0].caption is not None and paper.tables[0].caption.startswith("Table 1.")
    levels = {s.title: s.level for s in paper.sections}
    assert levels["5.1 Hyper Parameter Optimization"] == levels["5 Experiments"] + 1


def test_table_cells_are_scored_at_their_place() -> None:
    markdown = "| a | b |\n|---|---|\n| 1 | 2 \\| 3 |\n\ntext\n\n| x | y |\n|---|---|\n| 5 | |\n"
    tables = reference_tables(markdown)
    assert tables == [[["a", "b"], ["1", "2 | 3"]], [["x", "y"], ["5", ""]]]
    assert table_cell_f1(tables, tables) == 1.0
    shifted = [[["a", "b"], ["", ""], ["1", "2 | 3"]]]
    assert table_cell_f1(shifted, tables[:1]) == 0.5
    assert table_cell_f1([], tables) == 0.0
    assert table_cell_f1([], []) is None


def test_heading_levels_are_scored_after_making_them_dense() -> None:
    markdown = "# Book\n\n## 1 Start\n\n#### 1.1 Detail\n\ntext\n"
    assert heading_level_agreement([("Book", 2), ("1 Start", 3), ("1.1 Detail", 5)],
                                   markdown) == 1.0
    assert heading_level_agreement([("Book", 1), ("1 Start", 3), ("1.1 Detail", 3)],
                                   markdown) == 2 / 3
    assert heading_level_agreement([], "no headings") is None


def test_chunks_of_covers_contents_and_index_are_left_out_of_retrieval_unless_asked() -> None:
    from core.operations.strategies import chunk
    from core.retrieval.retrieve import retrieve
    from core.store.records import chunk_from_record, chunk_metadata
    from tests.retrieval_helpers import FakeStore

    document = converted("book").document("book", "book.pdf", "pdf")
    chunks = chunk(document, "recursive", {"size": 200, "overlap": 0, "unit": "chars"})
    roles = {c.front_matter for c in chunks}
    assert {"cover", "contents", "index"} <= roles and None in roles
    for c in chunks:  # the mark is stored with the chunk
        stored = chunk_from_record(c.id, c.text, dict(chunk_metadata(c)))
        assert stored.front_matter == c.front_matter
    store = FakeStore({"book": chunks}, active="book")
    question = "row permissions separation of duties security administrators index"
    for ranking in ("vector", "bm25", "hybrid"):
        packs = retrieve(question, limit=8, ranking=ranking, store=store)  # type: ignore[arg-type]
        assert packs and not any(set(p.pages) & {1, 2, 5, 6} for p in packs), ranking
    everything = retrieve(question, limit=8, ranking="bm25", store=store,  # type: ignore[arg-type]
                          include_front_matter=True)
    assert any(set(p.pages) & {2, 5} for p in everything)


def test_a_chapter_starting_on_a_short_last_page_is_not_a_back_cover() -> None:
    from core.documents.pdf.chars import Word
    from core.documents.pdf.layout import Line
    from core.documents.pdf.matter import page_roles

    def line(page: int, text: str, size: float, top: float) -> Line:
        words = [Word(text=w, x0=60.0 * k, x1=60.0 * k + 50, top=top, bottom=top + size,
                      size=size, bold=0.0, chars=len(w)) for k, w in enumerate(text.split())]
        return Line(words, page)

    body = " ".join(["running text of the report"] * 2)
    lines = [line(1, "Annual report", 40.0, 100), line(1, "of the water board", 12.0, 160)]
    for page in (2, 3, 4):
        lines.append(line(page, f"Chapter {page}", 20.0, 60))
        lines += [line(page, body, 10.0, 100 + 14 * k) for k in range(30)]
    lines.append(line(5, "Chapter 5", 20.0, 60))
    lines += [line(5, body, 10.0, 100 + 14 * k) for k in range(5)]
    assert page_roles(lines, 5) == {1: "cover"}


def stroked_rules_table() -> bytes:
    """A table as LaTeX's booktabs draws it: three stroked rules, cells placed by position, the
    depth cells centred across their two sub-rows."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Times", "", 10)
    pdf.set_xy(20, 20)
    pdf.multi_cell(170, 5, "We compare the two output languages at two depths. " * 3)
    xs, top = [22, 45, 70, 95, 120, 145], 50.0
    pdf.set_line_width(0.3)
    pdf.line(20, top, 170, top)
    for x, text in zip(xs, ["enc", "dec", "Language", "TEDs", "mAP", "time"], strict=True):
        pdf.text(x, top + 5, text)
    pdf.set_line_width(0.2)
    pdf.line(20, top + 7, 170, top + 7)
    y = top + 12
    for depth, rows in (("6", [["OTSL", "0.955", "0.88", "2.73"], ["HTML", "0.955", "0.857",
                                                                    "5.39"]]),
                        ("4", [["OTSL", "0.927", "0.853", "1.97"], ["HTML", "0.938", "0.843",
                                                                    "3.77"]])):
        pdf.text(xs[0], y + 2.2, depth)
        pdf.text(xs[1], y + 2.2, depth)
        for row in rows:
            for x, text in zip(xs[2:], row, strict=True):
                pdf.text(x, y, text)
            y += 4.4
    pdf.set_line_width(0.3)
    pdf.line(20, y - 2, 170, y - 2)
    pdf.set_xy(20, y + 4)
    pdf.multi_cell(170, 5, "The compact language halves the time at every depth. " * 3)
    return bytes(pdf.output())


def test_a_table_between_stroked_rules_keeps_its_first_column_and_its_sub_rows() -> None:
    converted_table = convert_pdf_offline(stroked_rules_table(), "rules.pdf")
    assert [t.rows for t in converted_table.tables] == [[
        ["enc", "dec", "Language", "TEDs", "mAP", "time"],
        ["6", "6", "OTSL", "0.955", "0.88", "2.73"], ["", "", "HTML", "0.955", "0.857", "5.39"],
        ["4", "4", "OTSL", "0.927", "0.853", "1.97"], ["", "", "HTML", "0.938", "0.843", "3.77"]]]
    assert "halves the time" in converted_table.text


def test_a_chapter_is_level_one_whatever_larger_unnumbered_headings_stand_beside_it() -> None:
    preface, chapter = Style(24.0, True), Style(18.0, True)
    keys = [(preface, "Preface"), (chapter, "Chapter 1. Start"), (Style(14.0, True), "1.1 Scope"),
            (chapter, "Chapter 2. Roles"), (preface, "Index")]
    assert assign_levels(keys) == [1, 1, 2, 1, 1]
    roman = [(Style(18.0, True), "II. Customers"), (Style(13.0, True), "2.1 Meters")]
    assert assign_levels(roman) == [1, 2]
    # a running header names the second heading as a chapter: it opens the numbered sections
    named = [(Style(24.0, True), "Overview"), (Style(16.0, True), "Roles and duties"),
             (Style(16.0, True), "2.1 Roles")]
    assert assign_levels(named) == [1, 2, 2]
    assert assign_levels(named, frozenset({1})) == [1, 1, 2]


def test_running_lines_name_the_chapters_they_run_in() -> None:
    from core.documents.pdf.chapters import chapter_names, names_chapter

    names = chapter_names([["Chapter 3. Monitoring and response 23", "24"],
                           ["2 Leakage and pressure"], ["Annual review of water services"],
                           ["1.2 Row permissions"], ["Index 40"],
                           ["24 Chapter 4. Roles and duties"]])
    assert names == {"monitoring and response", "leakage and pressure", "roles and duties"}
    assert names_chapter("Monitoring and response", names)
    assert names_chapter("3 Monitoring and response", names)
    assert not names_chapter("Monitoring", names)
