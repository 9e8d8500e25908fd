"""The map of chunks: the PCA, where a question's retrieved ranges and references land, a chunk
set's map from its stored vectors, and the figure (escaped hover text, a point's index on
click)."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from core.documents.model import Document
from core.evaluation.metrics import score_question
from core.operations.chunk_map import (
    ChunkMap,
    MapPoint,
    MapQuestion,
    build_map,
    chunk_set_map,
    evaluation_map,
    evaluation_question,
    retrieval_question,
)
from core.operations.evaluation import QuestionResult, RetrievedChunk
from core.retrieval.pack import Pack
from core.retrieval.projection import pca
from core.store import ChunkStore
from tests.docfactory import inspection_markdown
from tests.fakeembed import fake_embed  # noqa: F401  (fixture)
from tests.retrieval_helpers import chunks_of, handbook_set
from ui.chunk_map import MAX_LEGEND, SVG_MAX, map_figure, picked_point

ROOT = Path(__file__).resolve().parents[1]


def test_pca_finds_the_spread_and_places_new_vectors_on_the_same_axes():
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(300, 20)) * np.r_[10.0, 3.0, np.full(18, 0.1)]
    projection = pca(vectors)
    assert projection.explained[0] > projection.explained[1] > 0.05
    assert sum(projection.explained) == pytest.approx(
        (100 + 9) / (100 + 9 + 18 * 0.01), abs=0.02)
    assert abs(projection.axes[0, 0]) == pytest.approx(1, abs=0.01)  # the widest input axis
    xy = projection.place(vectors)
    assert xy.shape == (300, 2) and abs(xy.mean(axis=0)).max() < 1e-6
    again = pca(vectors.copy())
    assert np.allclose(again.place(vectors), xy)  # the same vectors, the same map
    single = pca(np.ones((3, 4)))
    assert np.allclose(single.place(np.ones((3, 4))), 0) and single.explained == (0.0, 0.0)


def _map(spans: list[tuple[str, int, int]]) -> ChunkMap:
    chunks = [c for doc, s, e in spans for c in chunks_of(doc, TEXT, [(s, e)])]
    vectors = np.random.default_rng(0).normal(size=(len(chunks), 384))  # MiniLM's size
    return build_map(chunks, vectors, {"a": "a.md"})


TEXT = "Ovens are cleaned weekly. " * 80
SPANS = [("a", 0, 10), ("a", 10, 20), ("a", 20, 30), ("b", 0, 10)]


def test_every_chunk_of_a_pack_takes_its_rank():
    chunk_map = _map(SPANS)
    assert [p.document for p in chunk_map.points] == ["a.md", "a.md", "a.md", "b"]
    packs = [Pack(id="a-20-30", score=1, order=0, doc_id="a", spans=[(20, 30)], text="",
                  chunk_ids=["a-20-30"], hit_ids=["a-20-30"]),
             Pack(id="a-0-10", score=0.5, order=1, doc_id="a", spans=[(0, 20)], text="",
                  chunk_ids=["a-0-10", "a-10-20"], hit_ids=["a-0-10"])]
    placed = retrieval_question(chunk_map, "When are ovens cleaned?", packs)
    assert placed.retrieved == {2: 1, 0: 2, 1: 2}
    assert np.isfinite([placed.x, placed.y]).all()


def test_an_evaluated_question_marks_its_ranges_and_references():
    chunk_map = _map(SPANS)
    document = Document(doc_id="a", source_name="a.md", format="md", route="text", text=TEXT)
    retrieved = [RetrievedChunk(1, 0, 20, 0.9, "text", True),  # a merged run of two chunks
                 RetrievedChunk(2, 20, 25, 0.5, "text", False, cut=True)]  # cut to a budget
    question = QuestionResult(2, "When are ovens cleaned?", "a.md", "text", [(5, 15)],
                              retrieved, score_question([(0, 20), (20, 25)], [(5, 15)], []))
    placed = evaluation_question(chunk_map, question, {"a.md": document})
    assert placed.retrieved == {0: 1, 1: 1, 2: 2}
    assert placed.touching == {0, 1}  # chunks of the other document are never touched
    (reference,) = placed.references
    assert (reference.doc_id, reference.start, reference.end) == ("a", 5, 15)


def test_a_chunk_set_map_uses_the_stored_vectors(tmp_path):
    store = ChunkStore(tmp_path / "chroma")
    document = handbook_set(store, "handbook")
    chunk_map = chunk_set_map(store, "handbook", {document.doc_id: "handbook.md"})
    chunks = store.get_chunks("handbook")
    assert [p.chunk_id for p in chunk_map.points] == [c.id for c in chunks]
    assert {p.document for p in chunk_map.points} == {"handbook.md"}
    stored = store.get_vectors("handbook")
    first = chunk_map.projection.place(stored[chunks[0].id][None, :])[0]
    assert (chunk_map.points[0].x, chunk_map.points[0].y) == pytest.approx(tuple(first))
    question = "How many coordinator failures does a cluster with five coordinators tolerate?"
    best = store.query("handbook", question, 1)[0][0]
    placed = retrieval_question(chunk_map, question, [
        Pack(id=best.id, score=1, order=0, doc_id=best.doc_id, spans=[(best.start, best.end)],
             text=best.text, chunk_ids=[best.id], hit_ids=[best.id])])
    assert [chunk_map.points[i].chunk_id for i in placed.retrieved] == [best.id]


def _point(n: int, document: str = "doc.md", section: str = "Intro") -> MapPoint:
    return MapPoint(f"c{n}", "d", document, section, "text", n, n + 1, float(n), float(-n))


def test_the_figure_escapes_names_and_keeps_each_points_index():
    points = (_point(0, "<b>evil</b>.md"), _point(1), _point(2))
    chunk_map = ChunkMap(points, pca(np.eye(3)))
    figure = map_figure(chunk_map, "document")
    chunks, *legend = figure.data
    assert [t.name for t in legend] == ["&lt;b&gt;evil&lt;/b&gt;.md", "doc.md"]
    assert "&lt;b&gt;evil" in chunks.hovertext[0] and chunks.type == "scatter"  # few: SVG
    assert list(chunks.customdata) == [0, 1, 2]
    assert list(chunks.marker.color) == [0, 1, 1]  # colour numbers on a stepped scale:
    scale = dict(chunks.marker.colorscale)
    assert scale[0.0] == legend[0].marker.color and scale[1.0] == legend[1].marker.color
    many = ChunkMap(tuple(_point(n, section=f"s{n}") for n in range(MAX_LEGEND + 1)),
                    pca(np.eye(3)))
    [single] = map_figure(many, "section").data  # too many colours for a legend: one trace
    assert list(single.customdata) == list(range(MAX_LEGEND + 1)) and not single.showlegend
    large = ChunkMap(tuple(_point(n) for n in range(SVG_MAX + 1)), pca(np.eye(3)))
    assert map_figure(large).data[0].type == "scattergl"


def test_a_click_gives_the_chunk_index_and_a_click_elsewhere_none():
    def event(*points):
        return SimpleNamespace(selection=SimpleNamespace(points=list(points)))

    assert picked_point(event({"customdata": 4, "x": 1})) == 4
    assert picked_point(event({"customdata": [7]})) == 7
    assert picked_point(event({"x": 1, "y": 2})) is None  # the question or a reference star
    assert picked_point(event()) is None and picked_point(None) is None


def test_a_set_embedded_at_an_endpoint_is_mapped_and_asked_with_it(tmp_path, monkeypatch,
                                                                   fake_embed):  # noqa: F811
    from core.embeddings import resolve
    from core.operations.chunk_map import chunk_set_question, evaluation_map
    from core.operations.evaluation import Candidate, evaluate
    from core.operations.ingest.run import ingest, sources_from_paths
    from core.operations.questions.sets import load_from_folder
    from tests.fakeembed import DIMENSION

    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    settings = fake_embed.settings()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "sheds.md").write_text(inspection_markdown("garden sheds"))
    store = ChunkStore(tmp_path / "chroma")
    ingest(sources_from_paths([docs]), "own", "recursive", {"size": 60, "overlap": 0},
           store=store, embedder=resolve(settings.ref(), settings))
    chunk_map = chunk_set_map(store, "own", {})
    assert chunk_map.embedder == settings.ref()
    sent = len(fake_embed.texts())
    placed = chunk_set_question(chunk_map, store, "own", "Which sheds need action?",
                                embedding=settings)
    assert placed.retrieved and np.isfinite([placed.x, placed.y]).all()
    # asked of the set's endpoint (once: the map places the vector retrieval cached)
    assert fake_embed.texts()[sent:] == ["Which sheds need action?"]

    loaded = load_from_folder(ROOT / "sample_docs" / "questions" / "product_manual.csv",
                              ROOT / "sample_docs")
    [result] = evaluate(loaded.questions, loaded.documents,
                        [Candidate("r", "recursive", {"size": 200}, embedder=settings.ref())],
                        embedding=settings)
    assert result.dimension == DIMENSION
    mapped = evaluation_map(result, loaded.documents, store, settings)
    assert mapped.embedder == settings.ref() and len(mapped.points) == sum(
        result.chunk_counts.values())
    question = result.questions[0]
    placed = evaluation_question(mapped, question, loaded.documents, settings)
    assert np.isfinite([placed.x, placed.y]).all()


def test_an_evaluated_result_is_mapped_from_the_chunks_it_keeps(tmp_path, monkeypatch,
                                                                fake_embed):  # noqa: F811
    from core.operations import chunk_map as maps
    from core.operations.evaluation import Candidate, CandidateResult, evaluate
    from core.operations.questions.sets import load_from_folder

    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    settings = fake_embed.settings()
    loaded = load_from_folder(ROOT / "sample_docs" / "questions" / "insurance_policy.csv",
                              ROOT / "sample_docs")
    candidate = Candidate("r", "recursive", {"size": 200}, embedder=settings.ref())
    [result] = evaluate(loaded.questions, loaded.documents, [candidate], embedding=settings)
    spans = [s for items in (result.chunk_spans or {}).values() for s in items]
    assert len(spans) == sum(result.chunk_counts.values())
    assert any(s.chunk_type == "table" and s.embedded for s in spans)  # a table's digest kept
    kept_before = CandidateResult.from_json(result.to_json())  # a result without its chunks
    assert kept_before.chunk_spans is None
    rebuilt = evaluation_map(kept_before, loaded.documents, embedding=settings)

    def no_chunking(*args, **kwargs):
        raise AssertionError("the chunks were made again")

    monkeypatch.setattr(maps, "chunks_for", no_chunking)
    drawn = evaluation_map(result, loaded.documents, embedding=settings)
    assert drawn.points == rebuilt.points
    [again] = evaluate(loaded.questions, loaded.documents, [candidate], embedding=settings)
    assert again.cached and again.chunk_spans == result.chunk_spans


def test_retrieved_points_keep_their_documents_colour():
    points = (_point(0, "a.md"), _point(1, "b.md"), _point(2, "b.md"))
    chunk_map = ChunkMap(points, pca(np.eye(3)))
    question = MapQuestion("Which?", 0.5, 0.5, {2: 1, 0: 2})
    figure = map_figure(chunk_map, "document", question)
    legend = {t.name: t.marker.color for t in figure.data if t.name in ("a.md", "b.md")}
    [retrieved] = [t for t in figure.data if t.name == "retrieved (rank)"]
    assert list(retrieved.customdata) == [2, 0] and list(retrieved.text) == ["#1", "#2"]
    assert list(retrieved.marker.color) == [legend["b.md"], legend["a.md"]]  # not black
    assert retrieved.marker.symbol == "diamond"
