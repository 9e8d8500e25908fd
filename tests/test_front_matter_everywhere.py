"""A contents page is never a source unless asked for: `assemble`, `eval`, an answer run's
retrieval, a tune's trials, the Assemble and Evaluate pages leave front matter out by default,
say how much they set apart, and take it in with the one switch (``--include-front-matter``, a
checkbox)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ui.resources
from core.cli import main
from core.documents import convert
from core.documents.model import Document
from core.evaluation.questions import QuestionSet, parse_questions
from core.library import default_library
from core.operations.assemble.run import AssemblyOptions, assemble
from core.operations.evaluation import Candidate, Retrieval, evaluate
from core.operations.questions.sets import load_from_folder, save_set
from core.operations.tune import trials
from core.operations.tune.run import tune
from core.store import ChunkSetInfo, ChunkStore
from tests.docfactory import chunk_document
from tests.pages import page_path, texts, use_samples
from tests.retrieval_helpers import SAMPLES

BODY = {
    "Reservoir levels and drought planning": (
        "Reservoir levels recovered by late autumn after the dry summer. The drought plan sets "
        "four trigger levels, and hosepipe restrictions begin at the second one. "),
    "Treatment works and dosing": (
        "Each treatment works doses chlorine at the outlet and orthophosphate to protect lead "
        "pipes. Dosing pumps are checked every shift. "),
    "Leak detection on the mains": (
        "Leak detection on the mains uses acoustic loggers fixed to valves overnight, when "
        "flows are lowest. A crew then pinpoints the leak with ground microphones. "),
    "Water quality sampling": (
        "Water quality sampling takes place at customer taps chosen at random each week, and "
        "the samples go to the accredited laboratory. "),
}
# a contents page whose dot-leader entries repeat the words of every question
MARKDOWN = ("# Harbour Water Handbook\n\n## Contents\n\n"
            + "\n".join(f"{title} . . . . . . . . {page}\n"
                        for title, page in zip(BODY, (3, 5, 9, 12), strict=True))
            + "\n" + "\n".join(f"## {title}\n\n{text * 3}\n" for title, text in BODY.items()))
NAME = "handbook.md"
QUESTIONS = ["Where does leak detection on the mains happen?",
             "How is water quality sampling done?",
             "What do the treatment works dose?"]
CHUNKING = {"size": 300, "overlap": 0, "unit": "chars"}
SET = "front matter handbook"


def handbook() -> Document:
    return convert(MARKDOWN.encode(), NAME)


def contents_span(document: Document) -> tuple[int, int]:
    [contents] = [m for m in document.front_matter if m.role == "contents"]
    return contents.start, contents.end


def overlaps(span: tuple[int, int], start: int, end: int) -> bool:
    return span[0] < end and start < span[1]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """The handbook and a question set about it (each reference the body's first answer)."""
    root = tmp_path_factory.mktemp("front-matter")
    (root / "docs").mkdir()
    (root / "docs" / NAME).write_text(MARKDOWN, encoding="utf-8")
    text = handbook().text
    rows = ["question,references,corpus_id"]
    for question, title in zip(QUESTIONS, [*BODY][2:] + [*BODY][1:2], strict=False):
        start = text.index(BODY[title])
        reference = [{"content": BODY[title], "start_index": start,
                      "end_index": start + len(BODY[title])}]
        rows.append(f'"{question}","{json.dumps(reference).replace(chr(34), chr(34) * 2)}",'
                    f"{NAME}")
    (root / "questions.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root


def eval_run(capsys, folder: Path, *extra: str) -> tuple[dict, str]:
    code = main(["eval", "--questions", str(folder / "questions.csv"), "--docs",
                 str(folder / "docs"), "--strategy", "recursive", "--size", "300",
                 "--overlap", "0", "--unit", "chars", "--rank", "bm25", "--k", "5",
                 "--details", "--no-cache", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def test_eval_leaves_the_contents_out_and_counts_it_unless_included(capsys, folder):
    contents = contents_span(handbook())
    left_out, err = eval_run(capsys, folder)
    retrieved = [r for q in left_out["questions"] for r in q["retrieved"]]
    assert retrieved and not any(overlaps(contents, r["start"], r["end"]) for r in retrieved)
    assert left_out["front_matter_set_apart"] == {"cover": 1, "contents": 1}
    assert "2 chunks of front matter set apart (cover, contents)" in err
    taken_in, err = eval_run(capsys, folder, "--include-front-matter")
    assert any(overlaps(contents, r["start"], r["end"])
               for q in taken_in["questions"] for r in q["retrieved"])
    assert taken_in["front_matter_set_apart"] == {} and "set apart" not in err


def test_an_answer_runs_retrieval_leaves_the_contents_out(folder):
    """Answers and Tune retrieve through the evaluation with a Retrieval: the default keeps
    front matter out, whatever a configuration's own retrieval says."""
    loaded = load_from_folder(folder / "questions.csv", folder / "docs")
    questions = QuestionSet("q", loaded.questions.questions)
    own = Candidate("own k", "recursive", dict(CHUNKING), retrieval=Retrieval(6))
    contents = contents_span(loaded.documents[NAME])
    for included in (False, True):
        [result] = evaluate(questions, loaded.documents, [own], ranking="bm25",
                            retrieval=Retrieval(include_front_matter=included), use_cache=False)
        hit = any(overlaps(contents, r.start, r.end) for q in result.questions
                  for r in q.retrieved)
        assert hit is included and result.k == 6
        assert (result.set_apart.chunks == 0) is included


@pytest.fixture(scope="module")
def chunk_set() -> str:
    """The handbook chunked into a set of the session's store (as the CLI sees it)."""
    store = ChunkStore()
    if not store.has_set(SET):
        store.create_set(ChunkSetInfo(name=SET, strategy="recursive", settings=CHUNKING))
        store.add_chunks(SET, chunk_document(handbook(), "recursive", **CHUNKING))
    return SET


@pytest.mark.parametrize("rank", ["vector", "bm25", "hybrid"])
def test_assemble_cites_no_contents_page_unless_included(capsys, chunk_set, rank):
    args = ["assemble", "--chunk-set", chunk_set, "--question", QUESTIONS[0], "--rank", rank,
            "--limit", "10", "--headroom", "100000", "--with-packs"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    packs = json.loads(out)["packs"]
    assert packs and not any("Contents" in p["text"] or ". . . ." in p["text"] for p in packs)
    assert "2 chunks of front matter set apart (cover, contents)" in err
    assert main([*args, "--include-front-matter"]) == 0
    out, err = capsys.readouterr()
    assert any(". . . ." in p["text"] for p in json.loads(out)["packs"])
    assert "set apart" not in err


def test_documents_chosen_count_only_their_own_front_matter(chunk_set):
    store = ChunkStore()
    [doc_id] = store.info(chunk_set).doc_ids
    chosen = assemble(QUESTIONS[0], chunk_set, AssemblyOptions(doc_ids=(doc_id,)),
                      store=store, doc_names={})
    other = assemble(QUESTIONS[0], chunk_set, AssemblyOptions(doc_ids=("another",)),
                     store=store, doc_names={})
    assert chosen.set_apart.sentence() == "2 chunks of front matter set apart (cover, contents)"
    assert other.set_apart.chunks == 0 and other.set_apart.sentence() == ""


@pytest.fixture
def page_set(tmp_path, monkeypatch) -> str:
    """A data folder of its own with the handbook in the library and in a chunk set."""
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    for name in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    ui.resources.clear()
    entry = default_library().add(MARKDOWN.encode(), NAME)
    document = default_library().get(entry.doc_id)
    store = ChunkStore()
    store.create_set(ChunkSetInfo(name=SET, strategy="recursive", settings=CHUNKING))
    store.add_chunks(SET, chunk_document(document, "recursive", **CHUNKING))
    yield SET
    ui.resources.clear()


def test_the_assemble_page_sets_the_contents_apart_until_the_box_is_ticked(page_set):
    at = AppTest.from_file(page_path("assemble"), default_timeout=90)
    at.session_state["assemble_question"] = QUESTIONS[0]
    at.session_state["assemble_rank"] = "bm25"
    at.session_state["assemble_limit"] = 10
    at.run()
    assert not at.exception and not at.error
    user_prompt = at.code[1].value
    assert "Leak detection on the mains uses" in user_prompt and ". . . ." not in user_prompt
    captions = "\n".join(c.value for c in at.caption)
    assert "2 chunks of front matter set apart (cover, contents)" in captions
    at.checkbox(key="assemble_front_matter").check().run()
    assert not at.exception
    assert ". . . ." in at.code[1].value
    assert "set apart" not in "\n".join(c.value for c in at.caption)


@pytest.fixture
def handbook_library(tmp_path, monkeypatch):
    """A data folder of its own whose library holds the handbook."""
    yield from use_samples(tmp_path, monkeypatch, {NAME: MARKDOWN})


def test_the_evaluate_page_sets_the_contents_apart_until_the_box_is_ticked(folder,
                                                                           handbook_library):
    save_set("handbook questions",
             parse_questions((folder / "questions.csv").read_bytes()).questions)
    at = AppTest.from_file(page_path("evaluate"), default_timeout=240).run()
    at.selectbox(key="evaluate_set").set_value("saved: handbook questions").run()
    at.multiselect(key="evaluate_configs").set_value(
        ["fixed 1000 chars", "recursive 500/50"]).run()
    at.radio(key="evaluate_rank").set_value("bm25").run()
    contents = contents_span(handbook())
    for included in (False, True):
        at.checkbox(key="evaluate_front_matter").set_value(included).run()
        at.button(key="evaluate_run").click().run()
        assert not at.exception and not at.error
        [results] = at.session_state["evaluate_results"]["groups"].values()
        hit = any(overlaps(contents, r.start, r.end) for result in results
                  for q in result.questions for r in q.retrieved)
        said = "chunks of front matter set apart (cover, contents)" in texts(at)
        assert hit is included and said is not included


def test_every_trial_of_a_tune_leaves_front_matter_out_unless_included(monkeypatch):
    seen: list[bool] = []
    real = trials.evaluate

    def spy(*args, **kwargs):
        seen.append(kwargs["retrieval"].include_front_matter)
        return real(*args, **kwargs)

    monkeypatch.setattr(trials, "evaluate", spy)
    loaded = load_from_folder(SAMPLES / "questions" / "technical_handbook.csv", SAMPLES)
    for included in (False, True):
        seen.clear()
        result = tune(loaded.questions, loaded.documents, trials=1,
                      include_front_matter=included)
        assert result.trials and seen and set(seen) == {included}  # the held-back part too
