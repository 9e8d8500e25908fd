# ruff: noqa: F811  (pytest fixtures imported from tests.fakeembed are redefined as arguments)
"""The user's own embedder and reranker on the pages (AppTest): Settings tests and saves them
(the key in the session only), the Chunk sets page builds a set with the endpoint, Evaluate
compares one chunking under two embedders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.embeddings.settings import SOURCE as EMBEDDING_SOURCE
from core.operations.presets import save_user_preset
from core.retrieval.rerank_settings import SOURCE as RERANK_SOURCE
from core.store import ChunkStore
from tests.docfactory import inspection_markdown
from tests.fakeembed import DIMENSION, fake_embed  # noqa: F401  (fixture)
from tests.pages import click, page_path, texts, use_samples
from ui.resources import EMBEDDING_SETTINGS, RERANK_SETTINGS

SECRET = "sk-embedding-page-secret"
STACK_ENV = ("EMBEDDING_BASE_URL", "EMBEDDING_MODEL", "EMBEDDING_API_KEY", "RERANK_BASE_URL",
             "RERANK_MODEL", "RERANK_API_KEY")


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no .streamlit/secrets.toml here
    for name in STACK_ENV:
        monkeypatch.delenv(name, raising=False)
    yield from use_samples(tmp_path, monkeypatch, {
        f"{topic}.md": inspection_markdown(topic) for topic in ("boilers", "chimneys")})


def _run(page: str, session: dict | None = None) -> AppTest:
    at = AppTest.from_file(page_path(page), default_timeout=120)
    for key, value in (session or {}).items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _press(at: AppTest, form: str, label: str) -> AppTest:
    button = next(b for b in at.button if b.label == label and b.key.startswith(f"FormSubmitter:"
                                                                                f"{form}"))
    at = button.click().run()
    assert not at.exception, at.exception
    return at


def _all_text(at: AppTest) -> str:
    return texts(at) + "\n".join(str(e.value) for e in at.get("text"))


def test_settings_test_and_save_the_embedder_and_the_reranker(data, fake_embed):
    at = _run("settings")
    at.text_input(key="embedding_base_url").input(fake_embed.base_url)
    at.text_input(key="embedding_model").input("fake-embed")
    at.text_input(key="embedding_api_key_input").input(SECRET)
    at = _press(at, "embedding_form", "Test")
    assert f"embeds {DIMENSION}-dimension vectors, 16 sentences in" in texts(at)
    key_captions = [c.value for c in at.caption if c.value.startswith("API key:")]
    assert key_captions[1].startswith("API key: typed, not saved yet")  # the embedding form's
    assert SECRET in fake_embed.requests[0].authorization
    assert not EMBEDDING_SOURCE.path().exists()  # tested, not saved
    at.text_input(key="embedding_api_key_input").input(SECRET)
    at = _press(at, "embedding_form", "Save")
    assert at.session_state[EMBEDDING_SETTINGS].api_key.get_secret_value() == SECRET
    saved = EMBEDDING_SOURCE.path().read_text()
    assert SECRET not in saved and json.loads(saved)["model"] == "fake-embed"
    assert SECRET not in _all_text(at)

    at.text_input(key="rerank_base_url").input(fake_embed.base_url)
    at.text_input(key="rerank_model").input("fake-rerank")
    at = _press(at, "rerank_form", "Test")
    assert "the relevant one first" in texts(at)
    at = _press(at, "rerank_form", "Save")
    assert json.loads(RERANK_SOURCE.path().read_text())["top_n"] == 20
    assert at.session_state[RERANK_SETTINGS].model == "fake-rerank"

    fake_embed.fail_after(0)
    at = _press(at, "embedding_form", "Test")
    [error] = [e.value for e in at.error]
    assert "The embedding endpoint (fake-embed at 127.0.0.1" in error and "HTTP 500" in error


def test_a_chunk_set_built_with_the_endpoint(data, fake_embed):
    session = {EMBEDDING_SETTINGS: fake_embed.settings()}
    at = _run("store", session)
    label = f"fake-embed @ {fake_embed.settings().location}"
    assert at.selectbox(key="store_embedder").options == ["MiniLM (built-in)", label]
    at.selectbox(key="store_embedder").set_value(label)
    at.text_input(key="store_name").set_value("own")
    at = click(at, "store_create")
    assert "Chunk set “own”: stored 2 documents" in texts(at)
    assert list(at.dataframe[0].value["Embedder"]) == [f"{label}, {DIMENSION}-d"]
    assert list(at.dataframe[0].value["Text read"]) == ["—"]  # its limit is its own
    info = ChunkStore().info("own")
    assert (info.embedder, info.dimension) == ("fake-embed", DIMENSION)

    fake_embed.fail_after(0)  # new chunks (cached vectors would not ask the endpoint)
    at.selectbox(key="store:preset").set_value("fixed 1000 chars")
    at.text_input(key="store_name").set_value("doomed")
    at = click(at, "store_create")
    [error] = [e.value for e in at.error]
    assert error.startswith("The embedding endpoint (fake-embed at 127.0.0.1")
    assert [i.name for i in ChunkStore().list_sets()] == ["own"]  # nothing half-written
    assert list(at.dataframe[0].value["Name"]) == ["own"]  # the page is still whole


def test_a_preset_saved_with_the_endpoint_embeds_a_new_set_with_it(data, fake_embed):
    own = fake_embed.settings().ref()
    save_user_preset("tuned own", "recursive", {"size": 200, "overlap": 0}, embedder=own)
    at = _run("store", {EMBEDDING_SETTINGS: fake_embed.settings()})
    assert at.selectbox(key="store_embedder").value == "MiniLM (built-in)"
    at.selectbox(key="store:preset").set_value("tuned own").run()
    assert at.selectbox(key="store_embedder").value == own.label  # the preset's, by default
    at.selectbox(key="store_embedder").set_value("MiniLM (built-in)").run()
    assert at.selectbox(key="store_embedder").value == "MiniLM (built-in)"  # the user's choice

    at = _run("store")  # no endpoint set in this session: the preset's is not offered
    at.selectbox(key="store:preset").set_value("tuned own").run()
    assert at.selectbox(key="store_embedder").value == "MiniLM (built-in)"
    assert f"“tuned own” was saved with {own.label}, which is not the endpoint set" in texts(at)
