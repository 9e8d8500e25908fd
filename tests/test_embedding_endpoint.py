"""The embedding endpoint client against a fake OpenAI-compatible server: batches, concurrency,
retries, one clear error, vectors cached under the endpoint, settings and the key."""

from __future__ import annotations

import numpy as np
import pytest

from core.embeddings import BUILTIN, EmbedderRef, embed, resolve
from core.embeddings.endpoint_embedder import EndpointEmbedder
from core.embeddings.settings import (
    EmbeddingSettings,
    load_embedding_settings,
    save_embedding_settings,
)
from core.errors import EmbeddingError
from tests.fakeembed import DIMENSION, Reply, fake_embed, vector  # noqa: F401  (fixture)

SECRET = "sk-embed-secret-123"
TEXTS = [f"Inspection note {n}: the boiler in flat {n} leaks water." for n in range(10)]


def _embedder(fake, waits: list[float] | None = None, **overrides) -> EndpointEmbedder:
    sleep = (waits.append if waits is not None else lambda seconds: None)
    return EndpointEmbedder(fake.settings(**overrides), sleep=sleep)


def test_vectors_come_from_the_endpoint_in_batches(fake_embed, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    vectors = _embedder(fake_embed, batch_size=4, concurrency=2).embed(TEXTS)
    assert vectors.shape == (10, DIMENSION)
    assert np.allclose(vectors[3], vector(TEXTS[3]), atol=1e-5)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    sizes = sorted(len(r.body["input"]) for r in fake_embed.embedding_requests())
    assert sizes == [2, 4, 4]
    assert {r.body["model"] for r in fake_embed.embedding_requests()} == {"fake-embed"}
    assert not np.allclose(vectors[:, :8], embed(TEXTS)[:, :8])  # not MiniLM's


def test_cached_under_the_endpoint_and_never_asked_twice(fake_embed, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    first = _embedder(fake_embed).embed(TEXTS[:3] + TEXTS[:3])
    assert fake_embed.texts() == TEXTS[:3]  # each distinct text once
    again = _embedder(fake_embed).embed(TEXTS[:3])
    assert len(fake_embed.embedding_requests()) == 1 and np.array_equal(again, first[:3])
    other = fake_embed.settings(model="another-model")
    EndpointEmbedder(other).embed(TEXTS[:1])  # another model: its own cache
    assert len(fake_embed.embedding_requests()) == 2
    files = sorted(p.name for p in (tmp_path / "embeddings").iterdir())
    assert len([f for f in files if f.startswith("endpoint-") and f.endswith(".sqlite")]) == 2


def test_transient_failures_are_asked_again_with_backoff(fake_embed, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    fake_embed.script([Reply(status=503), Reply(status=429, headers={"Retry-After": "2"})])
    waits: list[float] = []
    vectors = _embedder(fake_embed, waits, max_retries=3).embed(TEXTS[:2])
    assert vectors.shape == (2, DIMENSION)
    assert waits == [0.5, 2.0]  # backoff, then what Retry-After asked


def test_a_dead_endpoint_is_one_sentence_without_the_key(fake_embed, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    fake_embed.script([Reply(status=401, echo_key=True)])
    with pytest.raises(EmbeddingError) as caught:
        _embedder(fake_embed, api_key=SECRET).embed(TEXTS[:2])
    message = str(caught.value)
    assert SECRET in fake_embed.requests[0].authorization  # the key was sent, in the header
    assert SECRET not in message and "\n" not in message
    assert message.startswith("The embedding endpoint (fake-embed at 127.0.0.1:")
    assert "HTTP 401" in message and len(fake_embed.requests) == 1  # a 4xx is not asked again


def test_failing_mid_run_stops_the_other_batches(fake_embed, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    fake_embed.fail_after(2)
    many = [f"text number {n}" for n in range(200)]
    with pytest.raises(EmbeddingError, match=r"HTTP 500.*gave up after 2 attempts"):
        _embedder(fake_embed, batch_size=2, concurrency=2, max_retries=1).embed(many)
    assert len(fake_embed.requests) < 20  # the rest were not sent


def test_unreachable_and_unanswerable_endpoints(fake_embed, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    dead = EmbeddingSettings(base_url="http://127.0.0.1:9/v1", model="m", max_retries=0)
    with pytest.raises(EmbeddingError, match="cannot reach 127.0.0.1:9"):
        EndpointEmbedder(dead).embed(["x"])
    fake_embed.script([Reply(raw='{"data": [{"index": 0}]}')])
    with pytest.raises(EmbeddingError, match="no list of numbers"):
        _embedder(fake_embed).embed(["y"])
    with pytest.raises(EmbeddingError, match="EMBEDDING_BASE_URL and EMBEDDING_MODEL"):
        EndpointEmbedder(EmbeddingSettings())


def test_identity_keeps_no_credentials():
    ref = EmbedderRef(model="nomic", base_url="https://user:pw@api.example.com:8443/v1/?key=x")
    assert ref.base_url == "https://api.example.com:8443/v1"
    assert ref.where == "api.example.com:8443" and ref.label == "nomic @ api.example.com:8443"
    assert "pw" not in ref.key() and BUILTIN.where == "local" and BUILTIN.builtin


def test_resolve_gives_the_key_only_to_its_own_address(fake_embed):  # noqa: F811
    settings = fake_embed.settings(api_key=SECRET)
    same = resolve(settings.ref(), settings)
    assert isinstance(same, EndpointEmbedder)
    assert same.settings.api_key.get_secret_value() == SECRET
    elsewhere = resolve(EmbedderRef(model="m", base_url="http://10.0.0.9:1234/v1"), settings)
    assert isinstance(elsewhere, EndpointEmbedder)
    assert elsewhere.settings.api_key.get_secret_value() == ""
    assert elsewhere.settings.base_url == "http://10.0.0.9:1234/v1"


def test_settings_sources_and_the_key_never_saved(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    for env in ("EMBEDDING_BASE_URL", "EMBEDDING_API_KEY", "EMBEDDING_MODEL"):
        monkeypatch.delenv(env, raising=False)
    path = save_embedding_settings(EmbeddingSettings(base_url="http://saved/v1", model="saved",
                                                     api_key=SECRET, batch_size=16))
    assert SECRET not in path.read_text()
    loaded = load_embedding_settings()
    assert (loaded.base_url, loaded.model, loaded.batch_size) == ("http://saved/v1", "saved", 16)
    assert loaded.api_key.get_secret_value() == ""
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit/secrets.toml").write_text(
        'EMBEDDING_API_KEY = "from-secrets"\n[embedding]\nmodel = "secret-model"\n'
        '[llm]\nmodel = "an-llm"\n')
    loaded = load_embedding_settings()
    assert loaded.api_key.get_secret_value() == "from-secrets" and loaded.model == "secret-model"
    monkeypatch.setenv("EMBEDDING_MODEL", "env-model")
    assert load_embedding_settings().model == "env-model"
