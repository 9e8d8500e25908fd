"""The Evaluate page's result views: each configuration's outcome (failed ones with their
reason), metrics with intervals, integrity checks, the table-question rule, B against A question
by question, contextual prefixes with and without, the drill-down, the map of the chunks with the
drill-down's question on it, and the history."""

from __future__ import annotations

import html
from collections.abc import Callable

import pandas as pd
import streamlit as st

from core.chunking.checks import INVARIANTS, LABELS
from core.documents.model import Document
from core.errors import ChunkLabError
from core.evaluation.metrics import METRIC_LABELS, METRICS
from core.operations.chunk_map import evaluation_question
from core.operations.evaluation import (
    CandidateFailure,
    CandidateResult,
    Evaluation,
    QuestionResult,
)
from core.operations.evaluation.confidence import (
    ContextualDelta,
    compare,
    contextual_deltas,
    format_p,
    intervals,
    metric_name,
    outcome_rows,
    verdict,
)
from core.operations.evaluation.history import RunRecord, history_csv, history_json, run_history
from core.operations.evaluation.report import TABLE_GAIN_TARGET, metrics_table, table_verdict
from core.operations.report.charts import metric_bars
from ui.chunk_map import show_map
from ui.persist import kept
from ui.render import HighlightSpan, highlight_html, md_escape, palette
from ui.resources import embedding_settings, result_map
from ui.state import picker_key, show_error
from ui.wording import count

QUESTION_KEY = "evaluate_question"  # the drill-down's question index (its widget: picker_key)
OPENED = "_evaluate_opened"  # the outcome row last opened in the drill-down
REFERENCE_COLOR = "#ffe066"


def reset_question_picker() -> None:
    """Forget the drill-down's question: a new set or new results start at the first one."""
    for key in [QUESTION_KEY, OPENED, "evaluate_outcomes",
                *(k for k in st.session_state if str(k).startswith(f"{QUESTION_KEY}_"))]:
        st.session_state.pop(key, None)


def _question_labels(results: list[CandidateResult]) -> list[str]:
    return [f"{n}. {q.corpus_id} · {q.kind} · {q.question}"
            for n, q in enumerate(results[0].questions, 1)]


def _open_question(results: list[CandidateResult], index: int) -> None:
    """Show question ``index`` in the drill-down (drawn later in this run)."""
    st.session_state[QUESTION_KEY] = index
    st.session_state[picker_key(QUESTION_KEY, _question_labels(results))] = index


def show_configurations(evaluation: Evaluation) -> None:
    """One row per configuration, in the order asked: recall and IoU beside the mean tokens
    retrieved per question (the cost they were reached at), or why it failed. A failure is
    reported, never a reason to drop the others' results."""
    rows = []
    for outcome in evaluation.outcomes:
        retrieval = evaluation.retrieval_of(outcome)
        if isinstance(outcome, CandidateFailure):
            rows.append({"Configuration": outcome.candidate.label, "Status": "failed",
                         "Retrieval": retrieval, "Recall": "—", "IoU": "—",
                         "Mean tokens / question": "—", "Chunks": "—", "Time": "—",
                         "Reason": outcome.reason})
            continue
        overall = outcome.metrics.overall
        rows.append({"Configuration": outcome.candidate.label, "Status": "ok",
                     "Retrieval": retrieval,
                     "Recall": f"{overall.recall:.1%}", "IoU": f"{overall.iou:.1%}",
                     "Mean tokens / question": f"{overall.mean_tokens:,.0f}",
                     "Chunks": f"{sum(outcome.chunk_counts.values()):,}",
                     "Time": "cached" if outcome.cached else f"{outcome.seconds:.1f} s",
                     "Reason": ""})
    st.subheader("Configurations")
    if evaluation.failures:
        total = len(evaluation.outcomes)
        kept = (f"the results of the other {len(evaluation.results)} are kept"
                if evaluation.results else "none could be evaluated")
        st.warning(md_escape(f"{len(evaluation.failures)} of {total} configurations failed; "
                             f"{kept}. The reason is in its row."), icon=":material/error:")
    st.table(pd.DataFrame(rows).set_index("Configuration"))  # every row and reason in full


def show_metrics(results: list[CandidateResult]) -> None:
    frame = pd.DataFrame(metrics_table(results))
    bounds = {r.candidate.label: intervals(r) for r in results}
    numbers = frame.astype(float)
    winners = pd.Series({row: numbers.loc[row].idxmax() if numbers.loc[row].notna().any()
                         else None for row in numbers.index}, dtype=object)
    by_label = {METRIC_LABELS[m]: m for m in METRICS}

    def cell(label: str, row: str) -> str:
        value = frame.loc[row, label]
        if pd.isna(value):
            return "—"
        if row not in by_label:
            return f"{value:.1%}"
        low, high = bounds[label][by_label[row]]
        return f"{value:.1%} ({low:.0%}–{high:.0%})"

    shown = pd.DataFrame({label: [cell(label, row) for row in frame.index]
                          for label in frame.columns}, index=frame.index)
    for metric, winner in winners.items():
        if pd.notna(winner) and frame.loc[metric].nunique() > 1:
            shown.loc[metric, winner] = f"★ {shown.loc[metric, winner]}"
    shown["Winner"] = ["—" if pd.isna(w) else w if frame.loc[m].nunique() > 1 else "tie"
                       for m, w in winners.items()]
    st.subheader("Metrics (percent of the question set; ★ = best; 95 % interval in brackets)")
    shown.index.name = "Metric"
    st.dataframe(shown, key="evaluate_metrics_table",
                 column_config={"Metric": st.column_config.TextColumn(width="medium")})
    first = results[0]
    rankings = _per_configuration(results, "ranking",
                                  lambda r: r.candidate.ranks_with(r.ranking), "ranking {}")
    retrievals = _per_configuration(results, "retrieval", lambda r: r.retrieval)
    st.caption(md_escape(
        f"{count(first.metrics.overall.questions, 'question')} · {rankings} · {retrievals} · "
        "chunks: "
        + ", ".join(f"{r.candidate.label} {sum(r.chunk_counts.values()):,}" for r in results)
        + " · times: " + ", ".join(
            f"{r.candidate.label} {'cached' if r.cached else f'{r.seconds:.1f} s'}"
            for r in results)
        + " · embedders: " + ", ".join(dict.fromkeys(
            f"{r.candidate.embedder.label}" + (f" ({r.dimension}-d)" if r.dimension else "")
            for r in results))
        + " · intervals: bootstrap over questions, so a small set gives wide ones"))
    st.plotly_chart(metric_bars(results), key="evaluate_bars")


def _per_configuration(results: list[CandidateResult], what: str,
                       how: Callable[[CandidateResult], str], agreed: str = "{}") -> str:
    """How the configurations ranked or retrieved (``what``): once when they agree
    (``agreed``, e.g. "ranking hybrid", "top-5"), else each configuration's ("retrieval:
    A top-5, B top-8": a preset with a way of its own keeps it)."""
    ran = {r.candidate.label: how(r) for r in results}
    if len(set(ran.values())) == 1:
        return agreed.format(next(iter(ran.values())))
    return f"{what}: " + ", ".join(f"{label} {value}" for label, value in ran.items())


def show_integrity(results: list[CandidateResult]) -> None:
    """Each configuration's integrity counts over every chunked document, under the labels of
    Compare's badges: an invariant above zero is a bug or a bad hand edit, a warning a choice."""
    st.subheader("Integrity checks (places found, summed over the chunked documents)")
    st.dataframe(pd.DataFrame([
        {"Check": label, "Kind": "invariant" if kind in INVARIANTS else "warning",
         **{r.candidate.label: r.integrity.get(kind, 0) for r in results}}
        for kind, label in LABELS.items()]), hide_index=True, key="evaluate_integrity")
    broken = [f"{r.candidate.label} ({label})" for r in results
              for kind, label in LABELS.items() if kind in INVARIANTS and r.integrity.get(kind)]
    if broken:
        st.warning(md_escape("A broken invariant: " + ", ".join(broken)
                             + ". See where on Compare."))


def show_table_rule(results: list[CandidateResult]) -> None:
    st.subheader("Table questions")
    rule = table_verdict(results)
    if rule.missing:
        st.info(md_escape(rule.missing))
        return
    base = rule.baseline_accuracy or 0.0
    cols = st.columns(len(rule.candidates) + 1)
    cols[0].metric(f"Baseline: {rule.baseline}", f"{base:.1%}")
    for col, gain in zip(cols[1:], rule.candidates, strict=True):
        accuracy = gain.accuracy or 0.0
        col.metric(gain.label, f"{accuracy:.1%}",
                   delta="n/a" if gain.gain is None else f"{gain.gain:+.1%} relative",
                   delta_color="normal")
        col.caption(f"{(accuracy - base) * 100:+.1f} points · "
                    f"{'meets' if gain.meets_target else 'misses'} the "
                    f"≥ {TABLE_GAIN_TARGET:.0%} target")


def show_comparison(results: list[CandidateResult]) -> None:
    """B against A: the verdict on one metric, every metric's sign test, and the per-question
    wins, losses and ties (a row opens that question in the drill-down)."""
    st.subheader("Is the difference real?")
    if len(results) < 2:
        st.info("Only one configuration has results: there is nothing to compare it with.")
        return
    labels = [r.candidate.label for r in results]
    by_label = dict(zip(labels, results, strict=True))
    left, middle, right = st.columns(3)
    a = left.selectbox("A", labels, index=0, key="evaluate_cmp_a")
    b = middle.selectbox("B", labels, index=1, key="evaluate_cmp_b")
    metric = right.selectbox("Metric", METRICS, format_func=METRIC_LABELS.__getitem__,
                             key="evaluate_cmp_metric")
    if a == b:
        st.info("Pick two different configurations as A and B.")
        return
    result = compare(by_label[a], by_label[b], metric)
    (st.success if result.significant else st.info)(md_escape(verdict(result)))
    low, high = result.diff_ci95
    decided = result.wins + result.losses
    st.caption(md_escape(
        f"Mean {metric_name(metric)}: A {result.mean_a:.1%}, B {result.mean_b:.1%}; B − A "
        f"{result.mean_b - result.mean_a:+.1%}, 95 % interval {low:+.1%} to {high:+.1%} "
        f"(paired bootstrap). The p-value is the sign test's over the "
        f"{count(decided, 'question')} that "
        + ("is not a tie." if decided == 1 else "are not ties.")))
    every = [compare(by_label[a], by_label[b], m) for m in METRICS]
    st.dataframe(pd.DataFrame([
        {"Metric": METRIC_LABELS[c.metric], "B wins": c.wins, "A wins": c.losses,
         "Ties": c.ties, "p": format_p(c.p_value).removeprefix("p = "),
         "Verdict": verdict(c)} for c in every]), hide_index=True, key="evaluate_cmp_all")
    rows = outcome_rows(by_label[a], by_label[b], metric)
    st.caption(f"Per question ({METRIC_LABELS[metric]}); select a row to open it below.")
    event = st.dataframe(pd.DataFrame([
        {"#": o.index + 1, "Question": o.question, "Document": o.corpus_id,
         f"A: {a}": round(o.a, 3), f"B: {b}": round(o.b, 3), "Result": o.outcome}
        for o in rows]), hide_index=True, key="evaluate_outcomes", on_select="rerun",
        selection_mode="single-row")
    picked = event.selection.rows if event else []
    if picked and st.session_state.get(OPENED) != (picked[0], a, b, metric):
        st.session_state[OPENED] = (picked[0], a, b, metric)
        _open_question(results, rows[picked[0]].index)


def show_contextual(results: list[CandidateResult]) -> None:
    """Each configuration beside its twin embedded without contextual prefixes."""
    pairs = contextual_deltas(results)
    if not pairs:
        return
    st.subheader("Contextual retrieval: with and without the LLM's prefixes")
    for pair in pairs:
        st.caption(md_escape(pair.with_prefixes.candidate.label))
        st.dataframe(pd.DataFrame([_delta_row(m, pair) for m in METRICS]), hide_index=True)
        st.caption(md_escape(pair.verdict("recall")))


def _delta_row(metric: str, pair: ContextualDelta) -> dict[str, str]:
    on, off, delta = pair.values(metric)
    return {"Metric": METRIC_LABELS[metric], "With prefixes": f"{on:.1%}",
            "Without": f"{off:.1%}", "Delta": f"{delta * 100:+.1f} points"}


def drill_down(results: list[CandidateResult], documents: dict[str, Document]) -> None:
    st.subheader("Per question")
    questions = results[0].questions
    labels = _question_labels(results)
    key = picker_key(QUESTION_KEY, labels)
    if key not in st.session_state:
        current = st.session_state.get(QUESTION_KEY, 0)
        st.session_state[key] = current if current in range(len(questions)) else 0
    index = st.selectbox("Question", range(len(questions)), format_func=labels.__getitem__,
                         key=key)
    st.session_state[QUESTION_KEY] = index
    question = questions[index]
    rows = []
    for ref_no, ((start, end), corpus_id) in enumerate(
            zip(question.references, question.reference_documents, strict=True), 1):
        document = documents[corpus_id]
        where = "" if corpus_id == question.corpus_id else f"{document.source_name} "
        row = {"Reference": f"{ref_no}: {where}[{start}:{end}] {document.text[start:end][:80]}"}
        for result in results:
            own = result.questions[index]
            hits = [r.rank for r in own.retrieved
                    if own.corpus_of(r) == corpus_id and r.start < end and start < r.end]
            row[result.candidate.label] = (
                "ranks " + ", ".join(map(str, hits)) if hits else "missed")
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="evaluate_coverage")
    tabs = st.tabs([r.candidate.label for r in results])
    for tab, result in zip(tabs, results, strict=True):
        with tab:
            q = result.questions[index]
            s = q.scores
            st.caption(f"recall {s.recall:.0%} · precision {s.precision:.0%} · "
                       f"IoU {s.iou:.0%} · precision Ω {s.precision_omega:.0%} · "
                       f"first hit at rank {s.first_hit_rank or '—'} · "
                       f"{s.retrieved_tokens:,} tokens retrieved")
            st.html(_drawing(documents, q))
            named = any(r.corpus_id for r in q.retrieved)
            st.dataframe(pd.DataFrame([
                {"Rank": r.rank,
                 **({"Document": documents[q.corpus_of(r)].source_name} if named else {}),
                 "Span": f"{r.start}–{r.end}" + (" (cut)" if r.cut else ""),
                 "Score": round(r.score, 4), "Type": r.chunk_type,
                 "Covers a reference": r.touches_reference,
                 "Starts with": documents[q.corpus_of(r)].text[r.start : r.start + 90]}
                for r in q.retrieved
            ]), hide_index=True)


def _drawing(documents: dict[str, Document], q: QuestionResult) -> str:
    """The references (yellow) and the retrieved chunks (numbered by rank) around them, in the
    document of the references counted (an alternative may lie in another than the
    question's); the ranks retrieved elsewhere listed under it."""
    shown = q.reference_documents[0]
    text = documents[shown].text
    references = q.references_in(shown)
    lo = max(0, min(s for s, _ in references) - 600)
    hi = min(len(text), max(e for _, e in references) + 600)
    spans = [HighlightSpan(s - lo, e - lo, REFERENCE_COLOR, label="ref",
                           tooltip="reference", css_class="cl-reference")
             for s, e in references]
    inside = [r for r in q.retrieved if q.corpus_of(r) == shown and r.start < hi and lo < r.end]
    for r in inside:
        spans.append(HighlightSpan(
            max(r.start, lo) - lo, min(r.end, hi) - lo, palette(r.rank),
            label=f"#{r.rank}", tooltip=f"retrieved rank {r.rank}, score {r.score:.3f}"
            + (", cut to the budget" if r.cut else ""),
            css_class="cl-table" if r.chunk_type == "table" else ""))
    elsewhere: dict[str, list[int]] = {}
    for r in q.retrieved:
        if r not in inside:
            corpus_id = q.corpus_of(r)
            place = ("elsewhere in the document" if corpus_id == shown
                     else f"from {documents[corpus_id].source_name}")
            elsewhere.setdefault(place, []).append(r.rank)
    head = ("" if shown == q.corpus_id
            else f"<p>In {html.escape(documents[shown].source_name)}, the document of the "
                 "alternative counted:</p>")
    notes = "".join(f"<p>Retrieved {html.escape(place)}: ranks {', '.join(map(str, ranks))}</p>"
                    for place, ranks in elsewhere.items())
    return head + highlight_html(text[lo:hi], spans, height_px=420) + notes


def show_chunk_map(results: list[CandidateResult], documents: dict[str, Document]) -> None:
    """A configuration's chunks on a 2-D map, with the drill-down's question, what it retrieved
    and its reference excerpts; a click opens a chunk in its document. Drawn on request: it
    embeds every chunk of the question set's documents (cached after the first time)."""
    st.subheader("Map of the chunks")
    if not st.toggle("Draw the map", key=kept("evaluate_map_on", False),
                     help="PCA of the chunk vectors of one configuration, coloured by document "
                          "or section, with the question picked above."):
        st.caption("A map of where each chunk sits for retrieval, with the question picked "
                   "above, what it retrieved and where its answer is.")
        return
    labels = [r.candidate.label for r in results]
    key = kept("evaluate_map_config", labels[0], valid=labels)
    label = st.selectbox("Configuration", labels, key=key)
    result = results[labels.index(label)]
    index = st.session_state.get(QUESTION_KEY, 0)
    question = result.questions[index if index in range(len(result.questions)) else 0]
    try:  # embedded by the configuration's embedder: an endpoint may be down
        chunk_map = result_map(result, documents)
        placed = evaluation_question(chunk_map, question, documents, embedding_settings())
    except ChunkLabError as err:
        show_error(err)
        return
    st.caption(md_escape(f"Question: {question.question}"))
    texts = {d.doc_id: d.text for d in documents.values()}
    show_map(chunk_map, "evaluate_map", texts.get, placed)


def _history_rows(record: RunRecord) -> list[dict[str, object]]:
    """A kept run's configurations: their figures, then those that failed with the reason."""
    run = {"When": record.created.replace("T", " ")[:16], "Question set": record.question_set,
           "Version": record.question_set_version, "Questions": record.questions}
    rows: list[dict[str, object]] = [
        {**run, "Retrieval": record.retrieval_of(c.config), "Configuration": c.label,
         **{METRIC_LABELS[m]: f"{c.metrics[m]:.1%} ({c.ci95[m][0]:.0%}–{c.ci95[m][1]:.0%})"
            for m in ("recall", "precision", "iou")},
         "Tokens / question": "—" if c.mean_tokens is None else f"{c.mean_tokens:,.0f}",
         "Failed": ""}
        for c in record.configurations]
    return rows + [{**run, "Retrieval": record.retrieval_of(f.config),
                    "Configuration": str(f.config.get("label", "")), "Failed": f.reason}
                   for f in record.failures]


def show_last_runs(records: list[RunRecord]) -> None:
    """The kept runs of the inputs on screen, when their full results are gone (a reload)."""
    when = max(r.created for r in records).replace("T", " ")[:16]
    st.info(f"The last results for these inputs (run {md_escape(when)} UTC), from the run "
            "history. Run "
            "the evaluation again for each question's detail and the comparisons.",
            icon=":material/history:")
    st.dataframe(pd.DataFrame([row for r in records for row in _history_rows(r)]),
                 hide_index=True, key="evaluate_last")


def show_history() -> None:
    records = run_history()
    with st.expander(f"Run history ({count(len(records), 'run')} kept)"):
        if not records:
            st.caption("Runs are kept here once you run an evaluation.")
            return
        st.dataframe(pd.DataFrame([row for r in records for row in _history_rows(r)]),
                     hide_index=True, key="evaluate_history")
        left, right = st.columns(2)
        left.download_button("History (CSV)", history_csv(records),
                             file_name="evaluation-history.csv", mime="text/csv")
        right.download_button("History (JSON)", history_json(records),
                              file_name="evaluation-history.json", mime="application/json")
