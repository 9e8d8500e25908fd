"""The Answers page's result views, drawn from a run's JSON (what ``python -m core answers``
prints, as kept in the run history): each arm's figures with intervals, the verdicts, and per
question the answers side by side with their citations linked to the cited passages, the
reference excerpts (and any alternative's) highlighted in them. Every answer and passage is
escaped before HTML."""

from __future__ import annotations

import html
from typing import Any

import pandas as pd
import streamlit as st

from core.operations.answers.history import answer_history, history_rows
from core.operations.answers.report import (
    GRADE_LABELS,
    GRADES,
    by_question,
    disagree,
    excerpt_spans,
)
from core.operations.evaluation.confidence import BestOf, format_p
from core.operations.report.answers import anchor, linked_answer
from ui.best_view import show_best
from ui.persist import kept
from ui.render import HighlightSpan, highlight_html, md_escape

REFERENCE_COLOR = "#ffe066"
FIGURES = (*GRADES, "abstained", "answered", "mean_tokens", "seconds")
FIGURE_LABELS = {**GRADE_LABELS, "abstained": "abstained", "answered": "answered",
                 "mean_tokens": "answer tokens", "seconds": "seconds per answer"}


def answer_html(answer: str, sources: int, prefix: str) -> str:
    """The answer, escaped, its markers linked to the cited passages."""
    return f'<div style="white-space:pre-wrap">{linked_answer(answer, sources, prefix)}</div>'


def passage_html(citation: dict[str, Any], references: list[tuple[int, int]], prefix: str,
                 number: int, cited: bool) -> str:
    """A source of the prompt, the excerpts that answer the question marked where they
    overlap it."""
    start, end = citation["spans"][0] if citation["spans"] else (0, 0)
    spans = [HighlightSpan(max(rs, start) - start, min(re_, end) - start, REFERENCE_COLOR,
                           tooltip="reference excerpt")
             for rs, re_ in references if rs < end and start < re_]
    title = (f"{citation['marker']} {citation['source']} · characters {start:,}–{end:,}"
             + ("" if cited else " · not cited"))
    return (f'<div id="{anchor(prefix, number)}"><b>{html.escape(title)}</b>'
            f'{highlight_html(citation.get("text", ""), spans, height_px=220)}</div>')


def _cell(figures: dict[str, Any], metric: str) -> str:
    value = figures.get(metric)
    if value is None:
        return "–"
    if metric in ("mean_tokens", "seconds"):
        return f"{value:,.1f}"
    low_high = figures.get("ci95", {}).get(metric)
    return f"{value:.2f}" + (f" [{low_high[0]:.2f}, {low_high[1]:.2f}]" if low_high else "")


def show_figures(run: dict[str, Any]) -> None:
    st.caption(md_escape(
        f"{run['question_set']} · model {run['model']} · temperature {run['temperature']} · "
        f"seed {run.get('seed', '–')} · {run['asked']} answers asked this run, the others from "
        "the cache. Shares with their "
        "95 % intervals."))
    rows = [{"variant": v["label"], "retrieval": v["configuration"].get("retrieval", ""),
             **{FIGURE_LABELS[m]: _cell(v["overall"], m) for m in FIGURES},
             "failed": v["overall"].get("failed", 0)} for v in run["variants"]]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    judged = [(v["label"], v["overall"]["judge"]) for v in run["variants"]
              if v["overall"].get("judge")]
    if judged:
        st.caption("The LLM judge, apart: faithfulness to the passages, 1 (made up) to 5 "
                   "(every statement supported).")
        st.dataframe(pd.DataFrame([
            {"variant": label, "faithfulness": "–" if j["faithfulness"] is None else
             f"{j['faithfulness']:.2f} [{j['ci95'][0]:.2f}, {j['ci95'][1]:.2f}]",
             "judged": j["judged"], "not judged": j["not_judged"]} for label, j in judged]),
            hide_index=True, width="stretch")


def _grade_row(metric: str, g: dict[str, Any]) -> dict[str, Any]:
    return {"grade": GRADE_LABELS[metric], "A": f"{g['mean_a']:.2f}", "B": f"{g['mean_b']:.2f}",
            "B wins": g["wins"], "A wins": g["losses"], "ties": g["ties"],
            "p": format_p(g["p_value"]),
            "B − A (95 %)": f"[{g['diff_ci95'][0]:+.2f}, {g['diff_ci95'][1]:+.2f}]",
            "more questions to tell": ("none would" if g["more_questions"] is None
                                       else str(g["more_questions"]))}


def show_comparisons(run: dict[str, Any]) -> None:
    """Which arm is best (three or more), then the first against each other."""
    show_best(BestOf.from_json(run["best"]) if run.get("best") else None, "answers_best")
    for comparison in run["comparison"]:
        st.info(md_escape(comparison["verdict"]), icon=":material/balance:")
        rows = [_grade_row(m, g) for m, g in comparison["grades"].items()]
        if "judge" in comparison:  # the LLM judge, last and named as such
            rows.append(_grade_row("faithfulness", comparison["judge"]))
        with st.expander(md_escape(f"{comparison['b']} (B) against {comparison['a']} (A), "
                                   "grade by grade")):
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def show_questions(run: dict[str, Any]) -> None:
    questions = by_question(run)
    only = st.checkbox("Only questions where the variants disagree",
                       key=kept("answers_disagree", False))
    shown = [q for q in questions if disagree(q)] if only else questions
    st.caption(f"{len(shown)} of {len(questions)} questions")
    if not shown:
        return
    labels = [f"{q[0]['index'] + 1}. {q[0]['corpus_id']} · {q[0]['kind']} · {q[0]['question']}"
              for q in shown]
    choice = st.selectbox("Question", range(len(shown)), format_func=labels.__getitem__,
                          key="answers_question")
    answers = shown[choice if choice is not None and choice < len(shown) else 0]
    prefixes = [f"a{answer['index']}-{n}" for n, answer in enumerate(answers)]
    for column, answer, prefix in zip(st.columns(len(answers)), answers, prefixes, strict=True):
        with column:
            _show_answer(answer, prefix)
    # the passages under the answers, so the answers side by side are read first
    for column, answer, prefix in zip(st.columns(len(answers)), answers, prefixes, strict=True):
        if answer["status"] != "failed":
            with column:
                _show_passages(answer, prefix)


def _show_answer(answer: dict[str, Any], prefix: str) -> None:
    st.markdown(f"**{md_escape(answer['variant'])}**")
    if answer["status"] == "failed":
        st.error(md_escape(f"No answer: {answer['reason']}"))
        return
    st.html(answer_html(answer["answer"], len(answer["citations"]), prefix))
    if answer.get("reason"):  # an answer ended early says why
        st.warning(md_escape(answer["reason"].capitalize()))
    grades = answer["grades"] or {}
    st.caption(" · ".join(
        f"{FIGURE_LABELS[m]} {'–' if grades.get(m) is None else round(grades[m], 2)}"
        for m in GRADES) + f" · {grades.get('tokens', 0)} tokens, "
        f"{grades.get('seconds', 0):.1f} s" + (" · cached" if answer["cached"] else ""))
    if answer.get("judge"):
        score = answer["judge"]["faithfulness"]
        st.caption(md_escape(f"Judge: {'not judged' if score is None else f'{score}/5'}"
                             f" — {answer['judge']['reason']}"))


def _show_passages(answer: dict[str, Any], prefix: str) -> None:
    """The passages the answer cites; the others it was given folded away."""
    numbered = list(enumerate(answer["citations"], start=1))
    cited = [(n, c) for n, c in numbered if c["marker"] in answer["cited"]]
    rest = [(n, c) for n, c in numbered if c["marker"] not in answer["cited"]]
    for number, citation in cited:
        st.html(passage_html(citation, excerpt_spans(answer, citation.get("doc_id", "")), prefix,
                             number, True))
    if rest:
        passages = f"{len(rest)} {'more ' * bool(cited)}passage{'s' * (len(rest) != 1)}"
        with st.expander(f"{passages} retrieved, {'not' if cited else 'none'} cited"):
            for number, citation in rest:
                st.html(passage_html(citation, excerpt_spans(answer, citation.get("doc_id", "")),
                                     prefix, number, False))


def show_history() -> list[dict[str, Any]]:
    """The kept answer runs, newest first; returns them."""
    runs = answer_history()
    with st.expander(f"Run history ({len(runs)} kept)"):
        if runs:
            st.dataframe(pd.DataFrame(history_rows(runs)), hide_index=True,
                         width="stretch")
        else:
            st.caption("No answer run yet.")
    return runs
