"""The Assemble page under AppTest: no sets, packs + prompt + budget, A/B, the LLM answer check."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

import ui.resources
from core.cli import main
from core.library import default_library
from core.llm.settings import AnswerSettings, save_answer_settings, save_settings
from core.operations.assemble.budget import default_budget
from core.operations.presets import SMALL_TO_BIG
from core.store import ChunkSetInfo, ChunkStore
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import chunk_document
from tests.pages import page_path, shown, use_samples
from tests.retrieval_helpers import HANDBOOK, SAMPLES, handbook_set
from ui.state import KEY_GONE

PAGE = page_path("assemble")
QUESTION = "How many coordinator failures does a cluster with five coordinators tolerate?"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    for name in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    ui.resources.clear()
    yield tmp_path / "data"
    ui.resources.clear()


@pytest.fixture
def one_set(data_dir):
    """The handbook in the library and chunked into one set."""
    default_library().add((SAMPLES / HANDBOOK).read_bytes(), HANDBOOK)
    handbook_set(ChunkStore(), "handbook 200")
    return "handbook 200"


def run_page(**state) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=90)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_without_chunk_sets_it_says_how_to_create_one(data_dir):
    at = run_page()
    assert not at.exception
    assert "Chunk sets" in at.info[0].value
    assert "from the 8 sample documents" in at.button(key="assemble_quick_start").label


def test_asks_for_a_question_first(one_set):
    at = run_page()
    assert not at.exception
    assert at.selectbox(key="assemble_set_a").value == one_set
    assert "Type a question" in at.info[0].value


def budget_charts(at) -> int:
    """How many token budget bars the page draws (one per chunk set shown)."""
    return sum("cl-chart" in h.proto.body and "context kept" in h.proto.body
               for h in at.get("html"))


def test_shows_packs_prompt_citations_and_budget(one_set):
    at = run_page(assemble_question=QUESTION, assemble_rank="hybrid", assemble_use_context=True)
    assert not at.exception and not at.error
    user_prompt = at.code[1].value
    assert user_prompt.startswith(QUESTION + "\n\nContext:\n\n[¹]\nDoc: ")
    assert "a cluster with five tolerates two" in user_prompt
    headings = [h.value for h in at.subheader]
    assert headings[0].replace("\\", "").startswith("[¹] technical_handbook.md")
    citation_map = markdown(at).replace("\\", "")
    assert "[[¹]](#cite-a-1)" in citation_map  # the citation map links each marker to its source
    assert "[[¹]](#cite-a-1) **technical_handbook.md** · " in citation_map  # name, not the id
    assert any("context size" in c.value and "left for the answer" in c.value for c in at.caption)
    assert budget_charts(at) == 1 and at.get("download_button")


@pytest.fixture
def downloads(monkeypatch) -> list[str]:
    """The JSON files the page offers for download, in the order of its runs."""
    offered: list[str] = []
    store = MemoryMediaFileStorage.load_and_get_id

    def keep(self, data, mimetype, kind, filename=None):
        if filename and filename.endswith(".json"):
            offered.append(data if isinstance(data, str) else data.decode("utf-8"))
        return store(self, data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)
    return offered


def test_the_export_is_what_the_cli_prints_with_packs(one_set, downloads, capsys):
    at = run_page(assemble_question=QUESTION, assemble_rank="hybrid")
    assert not at.exception and len(downloads) == 1
    # the page's defaults are the command's: the passage budget the answer model allows
    assert main(["assemble", "--chunk-set", one_set, "--question", QUESTION, "--rank", "hybrid",
                 "--with-packs"]) == 0
    printed = capsys.readouterr().out
    assert printed == downloads[0] + "\n"
    assert json.loads(printed)["packs"] and json.loads(printed)["chunk_set"] == one_set


def number_box(at: AppTest, label: str):
    [box] = [n for n in at.number_input if n.label == label]
    return box


def test_the_passage_budget_box_sets_what_the_passages_may_use(one_set, downloads):
    at = run_page(assemble_question=QUESTION, assemble_limit=5)
    number_box(at, "Passage budget (tokens)").set_value(450).run()
    assert not at.exception
    assembled = json.loads(downloads[-1])["assembled"]
    budget = assembled["budget"]
    assert budget["rule"] == "headroom" and budget["headroom_tokens"] == 450
    assert 0 < budget["kept_tokens"] <= 450 < budget["kept_tokens"] + budget["dropped_tokens"]
    assert assembled["tokens_estimated"] - budget["base_tokens"] == budget["kept_tokens"]
    assert len(assembled["citations"]) == budget["packs_kept"] < 5
    assert any(c.value.startswith("Passage budget, in tokens") and "may use 450" in c.value
               for c in at.caption)
    # budgeting by the context size reads the same number as the headroom kept for the answer:
    # the box says so, and keeps the value the user typed
    at.toggle(key="assemble_use_context").set_value(True).run()
    kept_free = number_box(at, "Headroom for the answer (tokens)")
    assert kept_free.key == "assemble_headroom" and kept_free.value == 450
    assert not [n for n in at.number_input if n.label == "Passage budget (tokens)"]
    budget = json.loads(downloads[-1])["assembled"]["budget"]
    assert budget["rule"] == "context" and budget["headroom_tokens"] == 450


def test_smaller_headroom_drops_packs(one_set):
    base = {"assemble_question": QUESTION, "assemble_limit": 5, "assemble_use_context": False}
    roomy = run_page(**base, assemble_headroom=100000)
    tight = run_page(**base, assemble_headroom=200)
    kept = [at.metric[0].value for at in (roomy, tight)]
    assert kept[0] == "5 / 5" and kept[1] != "5 / 5"
    assert any(h.value.startswith(":material/content_cut: Dropped · ") for h in tight.subheader)
    assert any(c.value.startswith("Passage budget, in tokens") for c in tight.caption)


def test_no_pack_kept_says_so_with_the_change_that_keeps_one(one_set):
    base = {"assemble_question": QUESTION, "assemble_use_context": False}
    at = run_page(**base, assemble_headroom=20)
    assert not at.exception and at.metric[0].value == "0 / 5"
    [warning] = [w.value for w in at.warning]
    found = re.search(r"Raise the passage budget to ([\d,]+) tokens to keep it", warning)
    assert warning.startswith("No passage fits the budget") and found
    kept = run_page(**base, assemble_headroom=int(found.group(1).replace(",", "")))
    assert kept.metric[0].value == "1 / 5" and not kept.warning


def test_the_budget_bar_adds_up_to_the_figure_left_for_the_answer(one_set):
    at = run_page(assemble_question=QUESTION, assemble_use_context=True, assemble_context=4096,
                  assemble_headroom=300)
    left = at.metric[2].value
    [chart] = [h.proto.body for h in at.get("html") if "cl-chart" in h.proto.body]
    assert f"left for the answer ({left}, of which the headroom 300)" in chart
    assert "free" not in chart  # one name for the room the answer has
    assert 'title="headroom: the answer keeps at least the last 300"' in chart


def test_ab_shows_two_sets_side_by_side(one_set):
    handbook_set(ChunkStore(), "handbook 400", size=400)
    at = run_page(assemble_question=QUESTION, assemble_ab=True)
    assert not at.exception
    headings = [h.value for h in at.subheader]
    assert "A: handbook 200" in headings and "B: handbook 400" in headings
    assert budget_charts(at) == 2


def test_without_an_llm_endpoint_it_says_what_to_configure(one_set):
    at = run_page(assemble_question=QUESTION)
    assert any("LLM_BASE_URL" in i.value for i in at.info)
    assert not at.button  # no Ask button without an endpoint


def test_ask_the_llm_checks_the_answer_markers(one_set, fake_llm, monkeypatch):  # noqa: F811
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    fake_llm.respond(lambda request: "**Two** coordinators may fail [¹]. See also [⁹]. "
                     "<script>alert(1)</script> [click](javascript:alert(1)) costs $5 and $6")
    at = run_page(assemble_question=QUESTION, assemble_limit=2, assemble_use_context=True,
                  assemble_headroom=300)
    at.button(key="ask_a").click().run()
    assert not at.exception
    assert "[⁹]" in shown(at.error[0].value)  # unknown marker flagged
    assert "[²]" in shown(at.warning[0].value)  # unused source flagged
    answer = next(m.value for m in at.markdown if "coordinators may fail" in m.value)
    assert answer.startswith("**Two** coordinators may fail [\\[¹\\]](#cite-a-1).")  # a link
    assert "~~\\[⁹\\]~~" in answer  # no such source: struck through
    assert "&lt;script>" in answer and "\\[click\\](javascript" in answer  # disarmed
    assert "\\$5 and \\$6" in answer
    prompt = fake_llm.calls[-1].prompt
    assert prompt.endswith("You may reference [¹]…[²].") and QUESTION in prompt
    assert fake_llm.calls[-1].phase == "rag_answer"


def test_questions_can_be_limited_to_chosen_documents(one_set):
    at = run_page(assemble_question=QUESTION)
    [picker] = [m for m in at.multiselect if m.key == "assemble_docs"]
    assert picker.options == [HANDBOOK]  # named by file name, the documents of the set
    assert "[¹]\nDoc: technical_handbook.md\n" in at.code[1].value  # the prompt names the file
    handbook_id = default_library().documents()[0].doc_id
    assert f"document id `{handbook_id}`" in markdown(at)  # the citation map keeps the id
    picker.set_value([handbook_id]).run()
    assert not at.exception and at.metric[0].value.endswith("/ 5")


def test_ask_uses_the_settings_typed_on_the_settings_page(one_set, fake_llm):  # noqa: F811
    """No environment: the session's settings (Settings page, API key included) are used."""
    fake_llm.respond(lambda request: "Two coordinators may fail [¹].")
    at = run_page(assemble_question=QUESTION, assemble_limit=1,
                  llm_settings=fake_llm.settings(api_key="sk-session-only"))
    at.button(key="ask_a").click().run()
    assert not at.exception and not at.error
    assert any("Every marker points to a source" in s.value for s in at.success)
    assert fake_llm.calls[-1].phase == "rag_answer"


def test_the_key_gone_warning_goes_once_a_request_succeeds_without_it(one_set,
                                                                      fake_llm):  # noqa: F811
    """Saved with a key, a refresh lost it; the server answers anyway: it needs none."""
    save_settings(fake_llm.settings(api_key="sk-lost").model_copy(update={"needs_key": True}))
    fake_llm.respond(lambda request: "Two coordinators may fail [¹].")
    at = run_page(assemble_question=QUESTION, assemble_limit=1)
    assert any(KEY_GONE in w.value for w in at.warning)
    at.button(key="ask_a").click().run()
    assert not at.exception and fake_llm.calls[-1].phase == "rag_answer"
    assert any("Every marker points to a source" in s.value for s in at.success)
    assert not any(KEY_GONE in w.value for w in at.warning)
    at.run()  # and later runs in this session
    assert not any(KEY_GONE in w.value for w in at.warning)


def test_ask_sends_the_saved_answer_model_and_temperature(one_set, fake_llm):  # noqa: F811
    save_answer_settings(AnswerSettings(model="answer-model", temperature=0.9))
    fake_llm.respond(lambda request: "Two coordinators may fail [¹].")
    at = run_page(assemble_question=QUESTION, assemble_limit=1,
                  llm_settings=fake_llm.settings())
    at.button(key="ask_a").click().run()
    assert not at.exception
    body = fake_llm.requests[-1]
    assert (body["model"], body["temperature"]) == ("answer-model", 0.9)


def test_quick_start_builds_an_active_set_from_the_library(data_dir):
    at = run_page()  # the first run adds the samples to the library
    library = default_library()
    for document in library.documents():
        if document.source_name != HANDBOOK:
            library.remove(document.doc_id)
    at.run()
    button = at.button(key="assemble_quick_start")
    assert "from the 1 sample document and" in button.label
    at = button.click().run()
    assert not at.exception
    store = ChunkStore()
    assert store.active_set() == "recursive 500/50"
    assert store.info("recursive 500/50").docs == 1
    assert at.selectbox(key="assemble_set_a").value == "recursive 500/50"


def cited_packs(at: AppTest) -> list[tuple[str, str]]:
    """(marker heading, caption) of every cited pack, best first."""
    headings = [h.value for h in at.subheader if h.value.startswith("[")]
    captions = [c.value for c in at.caption if c.value.startswith("score ")]
    return list(zip(headings, captions, strict=False))


def test_merging_neighbouring_hits_cites_them_as_one_passage(data_dir):
    """Small 100-token chunks: the question's best hit and a neighbour of it come back as two
    citations, or, merged, as one passage under one marker."""
    default_library().add((SAMPLES / HANDBOOK).read_bytes(), HANDBOOK)
    handbook_set(ChunkStore(), SMALL_TO_BIG, size=100)  # named after the preset
    handbook_set(ChunkStore(), "handbook 100", size=100)
    plain = run_page(assemble_question=QUESTION, assemble_set_a="handbook 100")
    toggle = plain.toggle(key="assemble_merge:handbook 100")
    assert not plain.exception and toggle.value is False  # a set of no merging preset
    separate = cited_packs(plain)
    assert all(caption.endswith("1 chunk") for _, caption in separate)
    first, neighbour = (shown(caption).split(" · characters ")[1].split(" · ")[0]
                        for _, caption in separate[:3:2])
    merged = toggle.set_value(True).run()
    assert not merged.exception
    (marker, caption), *_ = cited_packs(merged)
    assert shown(marker).startswith("[¹] ")
    assert f"characters {neighbour}, {first} · 2 chunks" in shown(caption)
    assert merged.number_input(key="assemble_neighbors").disabled
    user_prompt = merged.code[1].value
    passage = user_prompt.split("\n[¹]\n")[1].split("\n[²]\n")[0]
    assert "a cluster with five tolerates two" in passage
    assert len(cited_packs(merged)) == 5  # the merged hit leaves room for another passage
    preset_set = run_page(assemble_question=QUESTION, assemble_set_a=SMALL_TO_BIG)
    assert preset_set.toggle(key=f"assemble_merge:{SMALL_TO_BIG}").value is True
    assert cited_packs(preset_set)[0][1].endswith("2 chunks")


SAMPLE_POLICY = ("# Harbor policy\n\nThe dwelling limit is $425,000 under Coverage A. "
                 "A dwelling vacant for more than 60 days loses vandalism cover.\n")
MY_POLICY = ("# My policy\n\nThe dwelling limit is $310,000 under my Coverage A. "
             "Vacancy beyond 30 days suspends glass breakage cover.\n")


def test_searches_leave_the_samples_out_unless_they_are_chosen(tmp_path, monkeypatch):
    for _ in use_samples(tmp_path, monkeypatch, {"harbor_policy.md": SAMPLE_POLICY}):
        library = ui.resources.library()  # the sample is added on first start
        mine = library.add(MY_POLICY.encode(), "my_policy.md")
        sample = next(d for d in library.documents() if d.doc_id != mine.doc_id)
        store = ChunkStore()
        store.create_set(ChunkSetInfo(name="both", strategy="recursive"))
        store.add_chunks("both", [*chunk_document(sample, "recursive", size=200),
                                  *chunk_document(mine, "recursive", size=200)])
        at = run_page(assemble_question="What is the dwelling limit?")
        assert not at.exception
        picker = at.multiselect(key="assemble_docs")
        assert picker.placeholder == "your documents in the chunk set (samples only when chosen)"
        assert cited_packs(at) and all("my_policy.md" in h for h, _ in cited_packs(at))
        assert "harbor_policy.md" not in markdown(at)
        picker.set_value([sample.doc_id, mine.doc_id]).run()  # chosen: searched too
        assert any("harbor_policy.md" in h for h, _ in cited_packs(at))


def test_an_answer_that_repeats_itself_is_flagged(one_set, fake_llm):  # noqa: F811
    """A small model without the fact in its sources loops: the page says so."""
    looping = "The limit is not stated in the sources [¹]. " * 3
    fake_llm.respond(lambda request: looping)
    at = run_page(assemble_question=QUESTION, assemble_limit=1,
                  llm_settings=fake_llm.settings())
    at.button(key="ask_a").click().run()
    assert not at.exception
    assert any("The answer says “The limit is not stated in the sources [¹].” 3 times"
               in shown(w.value) for w in at.warning)


@pytest.mark.parametrize("configured", [False, True])
def test_the_default_budget_is_tunes_not_the_whole_context(one_set, monkeypatch, configured):
    if configured:
        monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1")
        monkeypatch.setenv("LLM_MODEL", "answerer")
    budget = default_budget()
    assert budget.tokens is not None
    at = run_page(assemble_question=QUESTION)
    assert not at.exception
    assert at.toggle(key="assemble_use_context").value is False
    assert at.number_input(key="assemble_headroom").value == budget.tokens
    assert budget.tokens < 8192 // 4 + 1  # a quarter of the context at most, not all of it
