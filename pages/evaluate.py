"""Evaluate: score 2–4 chunkings on a question set, side by side, and drill into each question."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.documents.model import Document, content_id
from core.errors import ChunkLabError
from core.evaluation.metrics import METRIC_LABELS, METRICS, relative_improvement
from core.evaluation.questions import (
    QuestionSet,
    corpus_files,
    match_corpus_ids,
    parse_questions,
    validate,
)
from core.evaluation.runner import ChunkConfig, ConfigResult, evaluate, preset_config
from core.render import HighlightSpan, highlight_html, palette
from core.retrieval.ranking import RANK_MODES
from ui.state import SAMPLES_DIR, library, show_error

QUESTIONS_DIR = SAMPLES_DIR / "questions"
ALL_SAMPLES = "All sample sets"
UPLOAD = "Upload a CSV…"
RESULTS = "evaluate_results"
CUSTOM = "evaluate_custom_configs"
AC_TARGET = 0.15  # seed 002, AC-5.9.9: table-query accuracy ≥ 15 % better than the baseline
REFERENCE_COLOR = "#ffe066"


@st.cache_data(show_spinner="Converting a sample document…")
def _convert(data: bytes, filename: str) -> Document:
    from core.documents import convert

    return convert(data, filename)


def _sample_document(path: Path) -> Document:
    """The library's conversion of a sample (made at first start), else a fresh one (the user
    removed it from the library)."""
    data = path.read_bytes()
    try:
        return library().get(content_id(data))
    except (KeyError, ChunkLabError):
        return _convert(data, path.name)


def _shipped_sets() -> list[Path]:
    return sorted(QUESTIONS_DIR.glob("*.csv")) if QUESTIONS_DIR.is_dir() else []


def _load_shipped(paths: list[Path], name: str) -> tuple[QuestionSet, dict[str, Document]]:
    """Shipped sets are concatenated (rows keep their own file's numbers)."""
    questions, problems = [], []
    for path in paths:
        qs = parse_questions(path.read_bytes(), path.name)
        questions += qs.questions
        problems += qs.problems
    question_set = QuestionSet(name, tuple(questions), tuple(problems))
    files = corpus_files({q.corpus_id for q in questions}, SAMPLES_DIR)
    documents = {cid: _sample_document(path) for cid, path in files.items()}
    return validate(question_set, documents), documents


def _load_uploaded(upload) -> tuple[QuestionSet, dict[str, Document]]:
    """An uploaded set is matched against the library's documents by file name."""
    question_set = parse_questions(upload.getvalue(), upload.name)
    by_name = {doc.source_name: doc for doc in library().documents()}
    matched = match_corpus_ids({q.corpus_id for q in question_set.questions}, by_name)
    documents = {cid: by_name[name] for cid, name in matched.items()}
    return validate(question_set, documents), documents


def _pick_question_set() -> tuple[QuestionSet, dict[str, Document]] | None:
    shipped = _shipped_sets()
    options = ([ALL_SAMPLES] if shipped else []) + [p.stem for p in shipped] + [UPLOAD]
    choice = st.selectbox("Question set", options, key="evaluate_set")
    if choice == UPLOAD:
        upload = st.file_uploader(
            "Question set CSV (question, references, corpus_id[, kind]); corpus_id names a "
            "document of the library", type=["csv"], key="evaluate_upload")
        return _load_uploaded(upload) if upload else None
    paths = shipped if choice == ALL_SAMPLES else [QUESTIONS_DIR / f"{choice}.csv"]
    return _load_shipped(paths, choice)


def _custom_config_form() -> None:
    from core.chunking.registry import STRATEGIES

    with st.expander("Add a custom configuration"):
        with st.form("evaluate_custom", border=False):
            cols = st.columns(5)
            strategy = cols[0].selectbox("Strategy", sorted(STRATEGIES))
            size = cols[1].number_input("Size", min_value=16, value=400, step=50)
            overlap = cols[2].number_input("Overlap", min_value=0, value=40, step=10)
            unit = cols[3].selectbox("Unit", ["tokens", "chars"])
            tables = cols[4].checkbox("Tables whole", value=True)
            if st.form_submit_button("Add"):
                settings = {"size": int(size), "overlap": int(overlap), "unit": unit,
                            "tables": tables}
                label = f"{strategy} {size}/{overlap} {unit}" + ("" if tables else " no tables")
                st.session_state.setdefault(CUSTOM, {})[label] = ChunkConfig(
                    label=label, strategy=strategy, settings=settings)


def _pick_configs() -> list[ChunkConfig]:
    from core.chunking.registry import PRESETS

    custom: dict[str, ChunkConfig] = st.session_state.get(CUSTOM, {})
    stored = _stored_sets()
    options = list(PRESETS) + list(custom) + [f"chunk set: {name}" for name in stored]
    defaults = [name for name in ("fixed 1000 chars", "recursive 500/50") if name in options]
    chosen = st.multiselect("Configurations (2–4)", options, default=defaults,
                            max_selections=4, key="evaluate_configs")
    _custom_config_form()
    configs = []
    for name in chosen:
        if name in PRESETS:
            configs.append(preset_config(name))
        elif name in custom:
            configs.append(custom[name])
        else:
            set_name = name.removeprefix("chunk set: ")
            configs.append(ChunkConfig(label=name, chunk_set=set_name))
    return configs


def _stored_sets() -> list[str]:
    try:
        from core.store import ChunkStore

        return [info.name for info in ChunkStore().list_sets()]
    except (ImportError, ChunkLabError):
        return []


def _run(question_set: QuestionSet, documents: dict[str, Document],
         configs: list[ChunkConfig], rank: str, k: int) -> None:
    bar = st.progress(0.0, text="Starting…")
    results = evaluate(question_set, documents, configs, rank=rank, k=k,
                       progress=lambda f, msg: bar.progress(min(f, 1.0), text=msg))
    bar.empty()
    st.session_state[RESULTS] = {"results": results, "documents": documents,
                                 "set": question_set.name}


def _metrics_frame(results: list[ConfigResult]) -> pd.DataFrame:
    rows = {}
    for result in results:
        overall = result.metrics["overall"]
        column = {METRIC_LABELS[m]: overall[m] for m in METRICS}
        column["Table-query accuracy"] = result.metrics["table_query_accuracy"]
        rows[result.config.label] = column
    return pd.DataFrame(rows)


def _show_metrics(results: list[ConfigResult]) -> None:
    frame = _metrics_frame(results)
    winners = frame.astype(float).idxmax(axis=1)
    shown = frame.map(lambda v: "—" if pd.isna(v) else f"{v:.1%}")
    for metric, winner in winners.items():
        if pd.notna(winner) and frame.loc[metric].nunique() > 1:
            shown.loc[metric, winner] = f"★ {shown.loc[metric, winner]}"
    shown["Winner"] = [w if pd.notna(w) and frame.loc[m].nunique() > 1 else "tie"
                       for m, w in winners.items()]
    st.subheader("Metrics (percent of the question set; ★ = best)")
    shown.index.name = "Metric"
    st.dataframe(shown, key="evaluate_metrics_table",
                 column_config={"Metric": st.column_config.TextColumn(width="medium")})
    counts = {r.config.label: sum(r.chunk_counts.values()) for r in results}
    st.caption(
        f"{results[0].metrics['overall']['questions']} questions · rank {results[0].rank} · "
        f"k = {results[0].k} · chunks: "
        + ", ".join(f"{label} {n}" for label, n in counts.items())
        + " · times: " + ", ".join(
            f"{r.config.label} {'cached' if r.cached else f'{r.seconds:.1f} s'}" for r in results)
    )
    figure = go.Figure([
        go.Bar(name=label, x=frame.index, y=frame[label].astype(float) * 100)
        for label in frame.columns
    ])
    figure.update_layout(barmode="group", yaxis_title="%", height=360,
                         margin={"t": 20, "b": 20}, legend={"orientation": "h"})
    st.plotly_chart(figure, key="evaluate_bars")


def _is_baseline(config: ChunkConfig) -> bool:
    s = config.settings
    return (config.strategy == "fixed" and s.get("size") == 1000 and s.get("unit") == "chars"
            and not s.get("tables", False))


def _show_table_ac(results: list[ConfigResult]) -> None:
    st.subheader("Table queries — seed 002, AC-5.9.9")
    baseline = next((r for r in results if _is_baseline(r.config)), None)
    candidates = [r for r in results if r.config.settings.get("tables") and r is not baseline]
    if baseline is None or not candidates:
        st.info("Include **fixed 1000 chars** (the baseline) and a table-aware configuration "
                "to see the AC-5.9.9 comparison.")
        return
    base_acc = baseline.metrics["table_query_accuracy"]
    if base_acc is None:
        st.info("This question set has no table questions (kind = table).")
        return
    cols = st.columns(len(candidates) + 1)
    cols[0].metric(f"Baseline: {baseline.config.label}", f"{base_acc:.1%}")
    for col, result in zip(cols[1:], candidates, strict=True):
        acc = result.metrics["table_query_accuracy"]
        gain = relative_improvement(acc, base_acc)
        verdict = ("meets" if gain is not None and gain >= AC_TARGET else "misses")
        col.metric(result.config.label, f"{acc:.1%}",
                   delta="n/a" if gain is None else f"{gain:+.1%} relative",
                   delta_color="normal")
        col.caption(f"{(acc - base_acc) * 100:+.1f} points · {verdict} the ≥ 15 % target")


def _drill_down(results: list[ConfigResult], documents: dict[str, Document]) -> None:
    st.subheader("Per question")
    questions = results[0].questions
    labels = [f"row {q.row} · {q.corpus_id} · {q.kind} · {q.question}" for q in questions]
    index = st.selectbox("Question", range(len(questions)), format_func=labels.__getitem__,
                         key="evaluate_question")
    question = questions[index]
    text = documents[question.corpus_id].text
    rows = []
    for ref_no, (start, end) in enumerate(question.references, 1):
        row = {"Reference": f"{ref_no}: [{start}:{end}] {text[start:end][:80]!r}"}
        for result in results:
            hits = [r.rank for r in result.questions[index].retrieved
                    if r.start < end and start < r.end]
            row[result.config.label] = ("ranks " + ", ".join(map(str, hits))) if hits else "missed"
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    tabs = st.tabs([r.config.label for r in results])
    for tab, result in zip(tabs, results, strict=True):
        with tab:
            q = result.questions[index]
            s = q.scores
            st.caption(f"recall {s['recall']:.0%} · precision {s['precision']:.0%} · "
                       f"IoU {s['iou']:.0%} · precision Ω {s['precision_omega']:.0%} · "
                       f"first hit at rank {s['first_hit_rank'] or '—'}")
            st.html(_drawing(text, q))
            st.dataframe(pd.DataFrame([
                {"Rank": r.rank, "Span": f"{r.start}–{r.end}", "Score": round(r.score, 4),
                 "Type": r.chunk_type, "Covers a reference": r.touches_reference,
                 "Starts with": text[r.start : r.start + 90]}
                for r in q.retrieved
            ]), hide_index=True)


def _drawing(text: str, q) -> str:
    """References (yellow) and the retrieved chunks (numbered by rank) around the references."""
    lo = max(0, min(s for s, _ in q.references) - 600)
    hi = min(len(text), max(e for _, e in q.references) + 600)
    spans = [HighlightSpan(s - lo, e - lo, REFERENCE_COLOR, label="ref",
                           tooltip="reference", css_class="cl-reference")
             for s, e in q.references]
    for r in q.retrieved:
        if r.start < hi and lo < r.end:
            spans.append(HighlightSpan(
                max(r.start, lo) - lo, min(r.end, hi) - lo, palette(r.rank),
                label=f"#{r.rank}", tooltip=f"retrieved rank {r.rank}, score {r.score:.3f}",
                css_class="cl-table" if r.chunk_type == "table" else ""))
    elsewhere = [r.rank for r in q.retrieved if not (r.start < hi and lo < r.end)]
    note = (f"<p>Retrieved elsewhere in the document: ranks {', '.join(map(str, elsewhere))}</p>"
            if elsewhere else "")
    return highlight_html(text[lo:hi], spans, height_px=420) + note


def _export(results: list[ConfigResult]) -> bytes:
    rows = []
    for result in results:
        for q in result.questions:
            rows.append({
                "configuration": result.config.label, "rank_mode": result.rank, "k": result.k,
                "row": q.row, "corpus_id": q.corpus_id, "kind": q.kind, "question": q.question,
                **{m: q.scores[m] for m in ("recall", "precision", "iou", "precision_omega")},
                "hit": q.scores["hit"], "reciprocal_rank": q.scores["reciprocal_rank"],
                "retrieved": " ".join(f"{r.start}-{r.end}" for r in q.retrieved),
            })
    buffer = io.StringIO()
    pd.DataFrame(rows).to_csv(buffer, index=False)
    return buffer.getvalue().encode()


st.title("Evaluate")
st.caption("Recall, precision, IoU and precision Ω on character ranges (Chroma's chunking "
           "evaluation), hit rate and MRR; each question retrieves from its own document.")

try:
    loaded = _pick_question_set()
except ChunkLabError as err:
    show_error(err)
    loaded = None
if loaded:
    question_set, documents = loaded
    n_docs = len(question_set.corpus_ids)
    st.caption(f"{len(question_set.questions)} valid questions over {n_docs} "
               f"document{'s' if n_docs != 1 else ''}")
    if question_set.problems:
        with st.expander(f"{len(question_set.problems)} rows skipped", icon=":material/warning:"):
            st.text("\n".join(str(p) for p in question_set.problems))
    try:
        configs = _pick_configs()
    except ChunkLabError as err:
        show_error(err)
        configs = []
    left, right = st.columns(2)
    rank = left.radio("Ranking", RANK_MODES, horizontal=True, key="evaluate_rank")
    k = right.number_input("k (chunks retrieved per question)", 1, 50, 5, key="evaluate_k")
    if st.button("Run evaluation", type="primary", key="evaluate_run",
                 disabled=not 2 <= len(configs) <= 4):
        try:
            _run(question_set, documents, configs, rank, int(k))
        except ChunkLabError as err:
            show_error(err)

state = st.session_state.get(RESULTS)
if state:
    results = state["results"]
    _show_metrics(results)
    _show_table_ac(results)
    st.download_button("Export results (CSV)", _export(results),
                       file_name=f"evaluation-{state['set']}.csv", mime="text/csv")
    _drill_down(results, state["documents"])
