"""The offline MiniLM embedding function, with the real model."""

import chromadb
import numpy as np
from chromadb.config import Settings
from chromadb.utils.embedding_functions import known_embedding_functions

from core.embeddings import (
    DIMENSION,
    MAX_WORD_PIECES,
    MODEL_ID,
    embed,
    encoder,
    model_files,
    word_pieces,
)
from core.embeddings.cache import VectorCache
from core.embeddings.chroma import CHROMA_FUNCTION_NAME, get_embedding_function

SENTENCES = [
    "The insurer pays for water damage caused by a burst pipe.",
    "Damage from a pipe that bursts and leaks water is covered by the policy.",
    "The quarterly football league standings were published on Monday.",
]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


def test_shape_dtype_and_unit_norm():
    vectors = embed(SENTENCES)
    assert vectors.shape == (3, DIMENSION)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embed([]).shape == (0, DIMENSION)


def test_similar_sentences_are_closer_than_unrelated_ones():
    pipe_a, pipe_b, football = embed(SENTENCES)
    assert cosine(pipe_a, pipe_b) > 0.6
    assert cosine(pipe_a, pipe_b) > cosine(pipe_a, football) + 0.4


def test_batch_equals_single_regardless_of_order_and_padding():
    texts = SENTENCES + ["Short.", "word " * 300]
    together = embed(texts, use_cache=False)
    for text, vector in zip(texts, together, strict=True):
        alone = embed([text], use_cache=False)[0]
        assert np.allclose(alone, vector, atol=1e-4)


def test_many_short_texts_are_split_into_several_batches():
    texts = [f"Sentence number {i} about claims." for i in range(150)]
    vectors = embed(texts, use_cache=False)
    assert vectors.shape == (150, DIMENSION)
    assert np.allclose(vectors[7], embed([texts[7]], use_cache=False)[0], atol=1e-4)


def test_long_text_is_truncated_at_the_word_piece_limit():
    long_text = "coverage " * 400
    assert word_pieces(long_text) > MAX_WORD_PIECES
    assert word_pieces("hello world") == 4  # [CLS] hello world [SEP]
    # Everything after the limit is ignored, so a different tail gives the same vector.
    head = embed([long_text], use_cache=False)[0]
    other_tail = embed([long_text + " flood earthquake theft"], use_cache=False)[0]
    assert np.allclose(head, other_tail, atol=1e-5)


def test_identical_texts_are_embedded_once_memory_then_disk(monkeypatch):
    text = "A sentence that only this cache test embeds, number 31337."
    first = embed([text, text])
    assert np.array_equal(first[0], first[1])

    def fail() -> None:
        raise AssertionError("the model must not run for a cached text")

    monkeypatch.setattr(encoder, "_runner", fail)
    assert np.array_equal(embed([text])[0], first[0])  # memory
    monkeypatch.setattr(encoder, "_CACHE", VectorCache(MODEL_ID, MODEL_ID))  # as in a new process
    assert np.array_equal(embed([text])[0], first[0])  # SQLite file under data_dir()


def test_embedding_function_is_registered_and_reopens_a_persisted_collection(tmp_path):
    function = get_embedding_function()
    assert known_embedding_functions[CHROMA_FUNCTION_NAME] is type(function)
    rebuilt = type(function).build_from_config(function.get_config())
    assert rebuilt.name() == CHROMA_FUNCTION_NAME
    assert np.allclose(function(["hello"])[0], embed(["hello"])[0])

    settings = Settings(anonymized_telemetry=False)
    client = chromadb.PersistentClient(path=str(tmp_path), settings=settings)
    collection = client.create_collection(
        "reopen-test", embedding_function=function, metadata={"hnsw:space": "cosine"}
    )
    collection.add(ids=["a", "b", "c"], documents=SENTENCES)
    del collection, client

    reopened = chromadb.PersistentClient(path=str(tmp_path), settings=settings)
    collection = reopened.get_collection("reopen-test")  # no function passed: rebuilt from config
    assert collection.configuration["embedding_function"].name() == CHROMA_FUNCTION_NAME
    hits = collection.query(query_texts=["burst pipe leaking water"], n_results=1)
    assert hits["ids"][0][0] in {"a", "b"}



def _plain_loop(texts: list[str]) -> np.ndarray:
    """The reference path: the shipped graph, default session, one text per run (no padding),
    mean pooling and normalisation as sentence-transformers does."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(model_files.shipped_model_path()),
                                   providers=["CPUExecutionProvider"])
    vectors = []
    for encoding in encoder._tokenizer().encode_batch(texts):
        ids = np.array([encoding.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                 "token_type_ids": np.zeros_like(ids)}
        pooled = session.run(None, feeds)[0][0].mean(axis=0)
        vectors.append(pooled / np.linalg.norm(pooled))
    return np.stack(vectors)


def test_the_fast_path_gives_the_plain_loops_vectors():
    import onnx

    ops = [node.op_type for node in onnx.load(str(model_files.model_path())).graph.node]
    assert "IsNaN" not in ops and "Erf" not in ops and "Softmax" not in ops
    assert ops.count("Attention") == 6 and ops.count("Gelu") == 6  # one per layer
    # Lengths from 3 to the 256 limit in one call: several batches, each padded on the right.
    texts = [*SENTENCES, "short", "x " * 400, "The deductible applies per claim. " * 20,
             *(f"Sentence {i} about the water damage exclusion." for i in range(40))]
    fast = embed(texts, use_cache=False)
    assert np.isfinite(fast).all()
    assert np.min(np.sum(fast * _plain_loop(texts), axis=1)) >= 0.9999


def test_a_graph_the_fusion_does_not_recognise_keeps_only_the_nan_guard_edit():
    import onnx

    from core.embeddings.graph import faster_graph

    shipped = onnx.load(str(model_files.shipped_model_path()))
    for tensor in shipped.graph.initializer:  # the attention layers lose the names it looks for
        tensor.name = tensor.name.replace(".self.query.", ".self.q.")
    for node in shipped.graph.node:
        node.input[:] = [name.replace(".self.query.", ".self.q.") for name in node.input]
    edited = onnx.load_from_string(faster_graph(shipped.SerializeToString()))
    ops = [node.op_type for node in edited.graph.node]
    assert "IsNaN" not in ops and "Attention" not in ops and ops.count("Softmax") == 6


def test_a_small_call_is_spread_over_every_session(monkeypatch):
    runner = encoder._runner()
    sizes: list[int] = []
    run_batch = runner._run_batch

    def recording(ids: list[list[int]]) -> np.ndarray:
        sizes.append(len(ids))
        return run_batch(ids)

    monkeypatch.setattr(runner, "_run_batch", recording)
    embed([f"Sentence {i} about a claim." for i in range(12)], use_cache=False)
    assert len(sizes) == min(len(runner.sessions), 12) and sum(sizes) == 12


def test_a_question_that_is_not_persisted_stays_in_memory_only(monkeypatch):
    text = "A one-off question that only this test asks, number 4242."
    first = embed([text], persist=False)

    def fail() -> None:
        raise AssertionError("the model must not run for a text cached in memory")

    with monkeypatch.context() as patch:
        patch.setattr(encoder, "_runner", fail)
        assert np.array_equal(embed([text])[0], first[0])  # memory
    monkeypatch.setattr(encoder, "_CACHE", VectorCache(MODEL_ID, MODEL_ID))  # as in a new process
    assert encoder._CACHE.get_many([encoder._CACHE.key(text)]) == {}  # never written to disk
