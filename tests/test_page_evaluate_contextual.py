"""Evaluate under AppTest: an LLM chunk set compared with itself embedded without its
contextual prefixes (contextual retrieval as a dimension), on a generated question set."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.documents import convert
from core.operations.ingest.run import Source, ingest
from core.operations.questions.generation import generate_question_set
from core.operations.questions.sets import save_set
from core.operations.strategies import RunOptions
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import CLAIMS_HANDBOOK as HANDBOOK
from tests.pages import page_path, texts, use_samples


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm) -> Iterator[Path]:  # noqa: F811
    yield from use_samples(tmp_path, monkeypatch, {"claims_handbook.md": HANDBOOK})


def test_with_and_without_contextual_prefixes(data, fake_llm):  # noqa: F811
    document = convert(HANDBOOK.encode(), "claims_handbook.md")
    options = RunOptions(llm=fake_llm.settings())
    ingest([Source.from_document(document)], "llm set", "llm", {"size": 120}, options=options)
    generated = generate_question_set([document], per_doc=4, settings=fake_llm.settings())
    save_set("claims", generated.questions.questions)

    at = AppTest.from_file(page_path("evaluate"), default_timeout=240).run()
    at.selectbox(key="evaluate_set").set_value("saved: claims").run()
    at.multiselect(key="evaluate_configs").set_value(
        ["chunk set: llm set", "recursive 500/50"]).run()
    at.checkbox(key="evaluate_contextual").check().run()
    at.button(key="evaluate_run").click().run()
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value.columns) == [
        "chunk set: llm set", "chunk set: llm set (no prefixes)", "recursive 500/50", "Winner"]
    assert "Contextual retrieval: with and without the LLM's prefixes" in [
        s.value for s in at.subheader]
    delta = next(d for d in at.dataframe if "Delta" in d.value.columns).value
    assert list(delta["Metric"])[:3] == ["Recall", "Precision", "IoU"]
    assert all(v.endswith(" points") for v in delta["Delta"])
    page = texts(at)
    assert ("better than" in page and "on recall (p" in page) or "No difference on recall" in page
