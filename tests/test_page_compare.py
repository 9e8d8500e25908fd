"""The Compare page under AppTest: two to four configurations, stats, errors, presets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.chunking.edits import snap_to_word
from core.documents import convert
from core.operations.presets import preset, user_presets
from core.operations.strategies import chunk
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.fakellm_slips import slipping_llm  # noqa: F401  (fixture)
from tests.pages import download, page_path, record_downloads, shown, use_samples
from tests.report_helpers import outside_references
from ui.resources import LLM_SETTINGS

PAGE = page_path("compare")
REPORT = "cmp_report"  # the Download report button
TABLE = "| Plan | Deductible | Limit |\n|---|---|---|\n" + "".join(
    f"| Plan {i} | ${i}00 | ${i},000 |\n" for i in range(40))
MARKDOWN = (
    "# Policy\n\n" + "The dwelling is covered against fire and wind. " * 60 + "\n\n"
    "## Limits\n\nTable 1: Coverage limits\n\n" + TABLE + "\n"
    "## Exclusions\n\n" + "Flood damage is excluded unless endorsed. " * 80 + "\n"
)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    yield from use_samples(tmp_path, monkeypatch, {"policy.md": MARKDOWN})


SETTINGS = [f"cmp{slot}:settings_open" for slot in range(4)]  # the configurations' settings
PANELS = ["cmp_edit_open", "cmp_save_open", "cmp_export_0", "cmp_export_1", *SETTINGS]


def run(at: AppTest | None = None, panels: bool = True) -> AppTest:
    """Run the page (a new one: with the settings, hand edit, preset and export panels open
    unless ``panels`` is False)."""
    if at is None:
        at = AppTest.from_file(PAGE, default_timeout=90)
        for key in PANELS if panels else []:
            at.session_state[key] = True
    at.run()
    assert not at.exception, at.exception
    return at


def stats(at: AppTest) -> dict:
    return at.table[0].value.to_dict()


def test_two_configurations_side_by_side(data_dir) -> None:
    at = run()
    table = stats(at)
    assert list(table) == ["1. fixed 1000 chars", "2. recursive 500/50"]
    assert table["1. fixed 1000 chars"]["tables kept whole"] == "0 of 1"
    assert table["2. recursive 500/50"]["tables kept whole"] == "1 of 1"
    assert table["2. recursive 500/50"]["tables split by rows"] == "0 of 1"
    # fixed 1000 chars makes chunks longer than MiniLM reads at once: windows read them whole
    assert {c["text read when searching"] for c in table.values()} == {"100 %"}
    assert table["1. fixed 1000 chars"]["within the chosen size"] == "no size in tokens"
    views = {label: int(c["pieces embedded"]) for label, c in table.items()}
    assert views["1. fixed 1000 chars"] > int(table["1. fixed 1000 chars"]["chunks"])
    html = [h.proto.body for h in at.get("html") if "cl-text" in h.proto.body]
    assert len(html) == 2 and all("<mark" in h for h in html)
    assert 'class="cl-table"' in html[1] and 'class="cl-table"' not in html[0]
    strip = json.loads(at.get("bidi_component")[0].proto.json)["html"]  # the shared strip
    assert 'data-pick="0:0"' in strip and 'data-pick="1:0"' in strip and "section: " in strip
    histograms = [h.proto.body for h in at.get("html") if "cl-bins" in h.proto.body]
    assert len(histograms) == 2 and all("chunks" in h for h in histograms)
    assert at.number_input(key="cmp_inspect_1").value == 1
    assert not at.error


def test_table_split_from_the_settings_form(data_dir) -> None:
    at = run()
    prefix = "cmp1:recursive 500/50:recursive"
    at.selectbox(key=f"{prefix}:table_split").set_value("row_groups")
    at.number_input(key=f"{prefix}:table_max_tokens").set_value(200)
    run(at)
    column = stats(at)["2. recursive 500/50 (edited)"]
    assert column["tables split by rows"] == "1 of 1"
    assert column["tables kept whole"] == "0 of 1"
    assert at.selectbox(key=f"{prefix}:overlap_mode").value == "guaranteed"


def test_a_bad_setting_fails_only_its_column(data_dir) -> None:
    at = run()
    at.number_input(key="cmp1:recursive 500/50:recursive:overlap").set_value(900)
    run(at)
    assert len(at.error) == 1 and "overlap must be between" in at.error[0].value
    assert "1. fixed 1000 chars" in stats(at)
    assert len([h for h in at.get("html") if "cl-text" in h.proto.body]) == 1


def test_four_configurations_and_llm_without_endpoint(data_dir) -> None:
    at = run()
    at.radio(key="cmp_count").set_value(4)
    run(at)
    at.selectbox(key="cmp3:recursive 500/50 by section:strategy").set_value("llm")
    run(at)
    assert len(stats(at)) == 3
    assert any("LLM_BASE_URL" in e.value for e in at.error)
    assert stats(at)["3. semantic"]["tables kept whole"] == "1 of 1"


def test_llm_uses_the_settings_typed_on_the_settings_page(data_dir, fake_llm) -> None:  # noqa: F811
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[LLM_SETTINGS] = fake_llm.settings()
    at.session_state["cmp1:settings_open"] = True
    at.run()
    at.selectbox(key="cmp1:recursive 500/50:strategy").set_value("llm")
    at.run()
    assert not at.exception, at.exception
    assert not at.error
    assert "2. llm 500" in stats(at)  # the label follows the strategy
    assert fake_llm.requests, "the session's endpoint was not called"


def test_edit_and_save_a_named_preset(data_dir) -> None:
    at = run()
    at.number_input(key="cmp1:recursive 500/50:recursive:size").set_value(200)
    run(at)
    assert "2. recursive 500/50 (edited)" in stats(at)
    assert int(stats(at)["2. recursive 500/50 (edited)"]["max tokens"].replace(",", "")) > 200
    at.text_input(key="cmp_preset_name").set_value("small recursive")
    at.selectbox(key="cmp_save_slot").set_value(1)
    at.button(key="cmpb_save").click()
    run(at)
    assert user_presets()["small recursive"].settings["size"] == 200
    assert json.loads((data_dir / "chunk_presets.json").read_text())
    assert "small recursive" in at.selectbox(key="cmp0:preset").options


def table_chunk() -> int:
    """The table chunk's number (from 1) in the "recursive 500/50" column."""
    document = convert(MARKDOWN.encode(), "policy.md")
    chunks = chunk(document, "recursive", preset("recursive 500/50").settings)
    return next(k for k, c in enumerate(chunks, 1) if c.chunk_type == "table")


def chunk_count(at: AppTest, label: str) -> int:
    return int(stats(at)[label]["chunks"].replace(",", ""))


def test_integrity_badges_jump_to_the_places(data_dir) -> None:
    at = run()
    badge = at.button(key="cmpb_badge_0_cut_word")  # fixed windows cut words
    assert "cut words" in badge.label
    assert not [b for b in at.button if b.key.startswith("cmpb_badge_1_split")]  # tables whole
    assert at.button(key="cmpb_badge_0_split_table_row")  # fixed windows cut table rows
    badge.click()
    run(at)
    places = at.selectbox(key="cmp_place_0_cut_word")
    assert len(places.options) >= 1 and "ends inside a word" in places.options[0]
    first = int(places.options[0].split("·")[0].split()[1])
    assert at.number_input(key="cmp_inspect_0").value == first
    assert "cl-flag" in at.get("html")[0].proto.body


def test_split_undo_and_save_hand_edits(data_dir) -> None:
    at = run()
    before = chunk_count(at, "2. recursive 500/50")
    at.selectbox(key="cmp_edit_slot").set_value(1)
    run(at)
    at.number_input(key="cmp_edit_chunk").set_value(2)
    at.number_input(key="cmp_edit_pos").set_value(118)  # "… is | covered …": mid-sentence
    run(at)
    at.button(key="cmpb_split").click()
    run(at)
    assert chunk_count(at, "2. recursive 500/50 · hand-edited") == before + 1
    assert any("split chunk 2" in c.value for c in at.caption)
    assert "cut_sentence" in " ".join(b.key for b in at.button if b.key.startswith("cmpb_badge_1"))
    at.button(key="cmpb_undo").click()
    run(at)
    assert chunk_count(at, "2. recursive 500/50") == before
    at.button(key="cmpb_split").click()
    run(at)
    at.text_input(key="cmp_edit_name").set_value("policy by hand")
    at.button(key="cmpb_edit_save").click()
    run(at)
    saved = user_presets()["policy by hand"]
    assert saved.strategy == "edited" and saved.settings["source"] == "recursive 500/50"
    assert any("Saved “policy by hand”" in s.value for s in at.success)
    at.selectbox(key="cmp0:preset").set_value("policy by hand")
    run(at)
    assert chunk_count(at, "1. policy by hand") == before + 1


def test_a_split_inside_a_word_says_where_it_landed(data_dir) -> None:
    document = convert(MARKDOWN.encode(), "policy.md")
    second = chunk(document, "recursive", preset("recursive 500/50").settings)[1]
    text = document.text
    at_char = next(i for i in range(second.start + 40, second.end)  # in "dwelling", off-centre
                   if text[i - 2 : i + 6] == "dwelling")
    landed = snap_to_word(text, at_char)
    assert landed != at_char
    at = run()
    at.selectbox(key="cmp_edit_slot").set_value(1)
    run(at)
    at.number_input(key="cmp_edit_chunk").set_value(2)
    at.number_input(key="cmp_edit_pos").set_value(at_char - second.start)
    run(at)
    at.button(key="cmpb_split").click()
    run(at)
    done = next(s.value for s in at.success if s.value.startswith("Done"))
    assert f"split chunk 2 at character {landed:,}" in done
    assert f"you picked {at_char:,}" in done
    ends = second.start + len(text[second.start : landed].rstrip())  # trimmed, as chunks are
    assert f"Chunk 2 now ends at character {ends:,} and chunk 3 starts at {landed:,}" in done
    assert any(f"1. split chunk 2 at character {landed:,}" in shown(c.value) for c in at.caption)


def test_an_edit_inside_a_table_is_refused(data_dir) -> None:
    at = run()
    at.selectbox(key="cmp_edit_slot").set_value(1)
    run(at)
    at.number_input(key="cmp_edit_chunk").set_value(table_chunk())
    at.number_input(key="cmp_edit_pos").set_value(200)
    run(at)
    at.button(key="cmpb_split").click()
    run(at)
    assert any("cut its rows" in e.value for e in at.error)
    assert "2. recursive 500/50" in stats(at)  # nothing changed


def test_table_chunks_show_as_a_table_and_exports_are_offered(data_dir) -> None:
    at = run()
    at.number_input(key="cmp_inspect_1").set_value(table_chunk())
    run(at)
    tables = [d.value for d in at.dataframe]
    assert any(list(t.columns) == ["Plan", "Deductible", "Limit"] and len(t) == 40
               for t in tables)
    downloads = [e for e in at.get("download_button") if e.key != REPORT]
    assert len(downloads) == 6  # three shapes per column
    assert any("chunk(document, 'recursive', settings)" in c.value for c in at.code)


def test_a_typed_label_wins_over_the_automatic_one(data_dir) -> None:
    at = run()
    at.text_input(key="cmp0:label").set_value("my windows")
    run(at)
    assert "1. my windows" in stats(at)


def test_closed_panels_draw_nothing_until_opened(data_dir) -> None:
    at = run(panels=False)
    assert [b.key for b in at.get("download_button")] == [REPORT]  # no export
    assert not [b for b in at.button if b.key == "cmpb_split"]
    assert not [n for n in at.number_input if n.key.endswith(":size")]  # closed settings: a
    # summary line instead of widgets
    assert at.caption[0].value.startswith("fixed · size 1000 · overlap 0 · unit chars · tables no")
    at.session_state["cmp_export_1"] = True  # what opening the expander does
    run(at)
    assert len(at.get("download_button")) == 1 + 3  # the report, the second column's exports
    assert not [b for b in at.button if b.key == "cmpb_split"]


def test_configurations_and_edits_survive_a_page_switch(data_dir) -> None:
    at = AppTest.from_file(str(Path(PAGE).parents[1] / "app.py"), default_timeout=90)
    for key in ["cmp_edit_open", *SETTINGS]:
        at.session_state[key] = True
    at.run()
    at.switch_page("pages/compare.py")
    run(at)
    at.radio(key="cmp_count").set_value(3)
    run(at)
    at.selectbox(key="cmp2:semantic:strategy").set_value("fixed")
    at.text_input(key="cmp0:label").set_value("mine")
    run(at)
    _split_second_chunk(at, 100)
    before = stats(at)
    assert list(before) == ["1. mine", "2. recursive 500/50 · hand-edited", "3. fixed 1000 chars"]
    at.switch_page("pages/settings.py")
    run(at)
    assert "cmp_count" not in [r.key for r in at.radio]  # Compare's widgets are gone
    at.switch_page("pages/compare.py")
    run(at)
    assert at.radio(key="cmp_count").value == 3
    assert stats(at) == before
    assert at.button(key="cmpb_undo")  # the hand edit panel is still open


def test_merge_and_move_by_hand(data_dir) -> None:
    at = run()
    before = chunk_count(at, "1. fixed 1000 chars")
    at.number_input(key="cmp_edit_chunk").set_value(2)
    run(at)
    at.button(key="cmpb_merge").click()
    run(at)
    assert chunk_count(at, "1. fixed 1000 chars · hand-edited") == before - 1
    at.number_input(key="cmp_edit_chunk").set_value(1)
    at.number_input(key="cmp_edit_pos").set_value(300)
    run(at)
    at.button(key="cmpb_move").click()
    run(at)
    assert chunk_count(at, "1. fixed 1000 chars · hand-edited") == before - 1
    assert any("moved the end of chunk 1" in c.value for c in at.caption)
    assert at.number_input(key="cmp_inspect_0").value == 1
    inspected = next(c.value for c in at.caption if c.value.startswith("text ·"))
    end = int(inspected.split("chars 0–")[1].split()[0].replace(",", ""))
    assert 290 <= end <= 300  # the first chunk now ends at a word edge near character 300
    at.button(key="cmpb_reset").click()
    run(at)
    assert chunk_count(at, "1. fixed 1000 chars") == before


def test_a_saved_hand_edit_is_not_edited_again_but_points_to_its_source(data_dir) -> None:
    at = run()
    at.button(key="cmpb_split").click()
    run(at)
    at.text_input(key="cmp_edit_name").set_value("split once")
    at.button(key="cmpb_edit_save").click()
    run(at)
    at.selectbox(key="cmp0:preset").set_value("split once")
    run(at)
    assert any("edit “fixed 1000 chars” and save it again" in i.value for i in at.info)
    assert not at.error


def test_a_tolerant_llm_column_lists_its_repairs(data_dir, slipping_llm) -> None:  # noqa: F811
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[LLM_SETTINGS] = slipping_llm.settings()
    at.session_state["cmp1:settings_open"] = True
    at.run()
    at.selectbox(key="cmp1:recursive 500/50:strategy").set_value("llm").run()
    assert any("phase 1 (structure analysis) failed: line" in e.value for e in at.error)
    assert not at.warning  # strict parsing repairs nothing
    at.selectbox(key="cmp1:recursive 500/50:llm:parsing").set_value("tolerant").run()
    assert not at.exception and not at.error
    warning = next(w.value for w in at.warning if w.value.startswith("Done with"))
    total = int(warning.removeprefix("Done with ").split(" ")[0])
    kinds = dict(part.rsplit(" ×", 1) for part in warning.split(": ", 1)[1].rstrip(".")
                 .split("; "))
    assert total > 0 and sum(int(n) for n in kinds.values()) == total
    table = next(f.value for f in at.dataframe if "raw line" in f.value.columns)
    assert len(table) == total and set(table["warning"]) == set(kinds)
    assert "2. llm 500" in stats(at)  # the column still shows its chunks


def test_a_document_without_sections_is_compared(tmp_path, monkeypatch) -> None:
    text = "Minutes of the meeting. " * 80
    for _ in use_samples(tmp_path, monkeypatch, {"minutes.txt": text}):
        at = run()
        assert list(stats(at)) == ["1. fixed 1000 chars", "2. recursive 500/50"]


def _split_second_chunk(at: AppTest, position: int) -> None:
    """Split the second configuration's second chunk at ``position``."""
    at.selectbox(key="cmp_edit_slot").set_value(1)
    run(at)
    at.number_input(key="cmp_edit_chunk").set_value(2)
    at.number_input(key="cmp_edit_pos").set_value(position)
    run(at)
    at.button(key="cmpb_split").click()
    run(at)


def test_an_edit_renames_its_column_and_starts_the_next_position_afresh(data_dir) -> None:
    at = run()
    _split_second_chunk(at, 118)
    edited = "2. recursive 500/50 · hand-edited"
    assert f"**{edited}**" in [m.value for m in at.markdown]  # the column's title
    picker = at.selectbox(key="cmp_edit_slot")
    assert picker.format_func(picker.value) == edited
    # chunk 2 now ends near 118: the position is its middle, not the last edit's
    assert 0 < at.number_input(key="cmp_edit_pos").value < 100


def test_split_here_disabled_says_why(data_dir) -> None:
    at = run()
    at.selectbox(key="cmp_edit_slot").set_value(1)
    run(at)
    length = at.number_input(key="cmp_edit_pos").value * 2  # the default is the middle
    at.number_input(key="cmp_edit_pos").set_value(length + 5)  # in the next chunk
    run(at)
    split = at.button(key="cmpb_split")
    assert split.disabled and "past chunk 1's end" in split.help
    assert any("past chunk 1's end" in c.value for c in at.caption)
    assert not at.button(key="cmpb_move").disabled


def test_cluster_chunking_is_offered_with_its_own_settings(data_dir) -> None:
    at = run()
    at.selectbox(key="cmp1:recursive 500/50:strategy").set_value("cluster")
    run(at)
    form = "cmp1:recursive 500/50:cluster"
    assert at.number_input(key=f"{form}:piece_size").value == 50
    assert at.number_input(key=f"{form}:min_share").value == 0.25
    assert f"{form}:overlap" not in [n.key for n in at.number_input]  # never overlaps
    at.number_input(key=f"{form}:size").set_value(150)
    run(at)
    table = stats(at)
    assert list(table) == ["1. fixed 1000 chars", "2. cluster 150"]
    assert table["2. cluster 150"]["tables kept whole"] == "1 of 1"


def test_the_report_holds_each_configuration_as_the_page_shows_it(data_dir, monkeypatch
                                                                  ) -> None:
    made = record_downloads(monkeypatch)
    at = run()
    at.radio(key="cmp_count").set_value(3)
    at.session_state["cmp2:settings_open"] = True
    at.text_input(key="cmp0:label").set_value("<b>mine</b>")
    run(at)
    html = download(at, REPORT, made).decode("utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<title>Compare on policy.md</title>" in html
    labels = list(stats(at))
    assert len(labels) == 3
    for label in labels[1:]:
        assert f"<th class=\"num\">{label}</th>" in html  # a column of the figures table
        assert f"<h3>{label}</h3>" in html  # its integrity checks
    assert "&lt;b&gt;mine&lt;/b&gt;" in html and "<b>mine</b>" not in html
    for row, value in stats(at)[labels[1]].items():
        assert f"<td>{row}</td>" in html and value in html
    for slot in range(3):  # the badges of each column's checks, or that every check passes
        found = [b.label for b in at.button if b.key.startswith(f"cmpb_badge_{slot}_")]
        assert all(label in html for label in found)
        assert found or "Every check passes" in html
    assert html.count("Every check passes") == sum(
        1 for t in at.caption if "Every check passes" in t.value)
    assert outside_references(html) == []
