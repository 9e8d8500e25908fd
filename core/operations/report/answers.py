"""The report of an answer run: what the Answers page shows, in one file.

Inputs (question set, model, temperature, seed, the judge; each variant's prompt version and
configuration), the verdicts in words, every grade with its 95 % interval beside a chart of
them, and each question with the answers side by side — their grades, their citations linked
to the passages the prompt gave, the reference marked in those. Questions can be filtered:
answered alike, disagreements, or with a failed answer. Built from the run's JSON (what
``python -m core answers`` prints and the run history keeps).
"""

from __future__ import annotations

import re
from typing import Any

from core.operations.answers.report import (
    GRADE_LABELS,
    GRADES,
    by_question,
    disagree,
    excerpt_spans,
)
from core.operations.report.charts import (
    figure_html,
    grouped_bars,
    interval_bar,
    plotly_js,
)
from core.operations.report.markup import (
    Section,
    definitions,
    esc,
    question_list,
    question_row,
    render,
    table,
)
from core.operations.report.passages import excerpt, passage_cap

_MARKER = re.compile(r"\[\^?([0-9⁰¹²³⁴⁵⁶⁷⁸⁹]+)\]")
_PLAIN = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
STATES = (("alike", "Answered alike"), ("split", "Disagreements"), ("failed", "A failed answer"))


def anchor(prefix: str, number: int) -> str:
    return f"{prefix}-s{number}"


def linked_answer(answer: str, sources: int, prefix: str) -> str:
    """The answer, escaped, its markers linked to the cited passages (a marker with no source
    behind it struck through)."""

    def link(match: re.Match[str]) -> str:
        number = int(match.group(1).translate(_PLAIN))
        if 1 <= number <= sources:
            return f'<a href="#{anchor(prefix, number)}">{match.group(0)}</a>'
        return f'<s title="no such source in the prompt">{match.group(0)}</s>'

    return _MARKER.sub(link, esc(answer or ""))


def _inputs(run: dict[str, Any]) -> Section:
    general = definitions([
        ("Question set", run["question_set"]), ("Version", run.get("question_set_version", "")),
        ("Questions", f"{len(by_question(run)):,}"), ("Model", run["model"]),
        ("Temperature", str(run["temperature"])), ("Seed", str(run.get("seed", "–"))),
        *((("Judge", run["judge_model"]),) if run.get("judge_model") else ())])
    variants = table(["Variant", "Prompt variant", "Prompt version", "Configuration",
                      "Retrieval"], [
        [esc(v["label"]), esc(v["variant"]), esc(v.get("template_version", "")),
         esc(v["configuration"].get("label", "")), esc(v["configuration"].get("retrieval", ""))]
        for v in run["variants"]])
    return Section("inputs", "Inputs", general + "<h3>Variants</h3>" + variants)


def _figures(run: dict[str, Any]) -> Section:
    variants = run["variants"]
    rows = []
    for metric in GRADES:
        cells = [esc(GRADE_LABELS[metric])]
        for v in variants:
            value, ci = v["overall"].get(metric), v["overall"].get("ci95", {}).get(metric)
            cells.append("–" if value is None else f"{value:.0%}" + (
                f' <span class="ci">({ci[0]:.0%}–{ci[1]:.0%})</span>' if ci else ""))
        rows.append(cells)
    rows.append(["Failed answers", *(str(v["overall"].get("failed", 0)) for v in variants)])
    body = table(["Grade", *(v["label"] for v in variants)], rows,
                 numeric=tuple(range(1, len(variants) + 1)))
    bars = [interval_bar(v["label"], [GRADE_LABELS[m] for m in GRADES],
                         [v["overall"].get(m) or 0.0 for m in GRADES],
                         [tuple(v["overall"].get("ci95", {}).get(m) or (0.0, 0.0))
                          for m in GRADES]) for v in variants]
    return Section("grades", "Grades",
                   body + '<p class="note">Share of the answered questions; the 95 % interval '
                   "in brackets and as error bars.</p>" + figure_html(grouped_bars(bars)))


def _answer(answer: dict[str, Any], prefix: str, cap: int) -> str:
    head = f"<h4>{esc(answer['variant'])}</h4>"
    if answer["status"] == "failed":
        reason = esc(answer["reason"])
        return f'<div class="side">{head}<p class="answer">No answer: {reason}</p></div>'
    grades = answer.get("grades") or {}
    line = " · ".join(f"{GRADE_LABELS[m]} {'–' if grades.get(m) is None else round(grades[m], 2)}"
                      for m in GRADES)
    if answer.get("judge"):
        score = answer["judge"].get("faithfulness")
        line += f" · judge {'not judged' if score is None else f'{score}/5'}"
    passages = []
    for number, citation in enumerate(answer.get("citations", []), 1):
        references = excerpt_spans(answer, citation.get("doc_id", ""))
        start, end = citation["spans"][0] if citation.get("spans") else (0, 0)
        cited = "" if citation["marker"] in answer.get("cited", []) else " · not cited"
        meta = f"{citation['marker']} {citation['source']} · characters {start:,}–{end:,}{cited}"
        text = excerpt(citation.get("text", ""), start, start + len(citation.get("text", "")),
                       references, cap, offset=start)
        passages.append(f'<div class="hit" id="{anchor(prefix, number)}"><div class="meta">'
                        f'{esc(meta)}</div><p class="text">{text}</p></div>')
    return (f'<div class="side">{head}<div class="answer">'
            f'{linked_answer(answer["answer"], len(answer.get("citations", [])), prefix)}</div>'
            f'<div class="grades">{esc(line)}</div><h4>Passages</h4>{"".join(passages)}</div>')


def _state(answers: list[dict[str, Any]]) -> str:
    if any(a["status"] == "failed" for a in answers):
        return "failed"
    return "split" if disagree(answers) else "alike"


def _questions(run: dict[str, Any]) -> Section:
    grouped = by_question(run)
    cap = passage_cap(sum(len(a.get("citations", [])) for a in run["answers"]))
    rows = []
    for answers in grouped:
        first = answers[0]
        badges = "".join(f'<span class="badge">{esc(a["variant"])}: '
                         f'{"failed" if a["status"] == "failed" else "answered"}</span>'
                         for a in answers)
        sides = "".join(_answer(a, f"a{first['index']}-{n}", cap)
                        for n, a in enumerate(answers))
        rows.append(question_row(
            _state(answers), first["index"] + 1, first["question"],
            f"{first['corpus_id']} · {first['kind']}", badges,
            f'<div class="sides">{sides}</div>'))
    return question_list(
        "Open a question to see the answers side by side with their grades and the passages "
        f"the prompt gave, the reference marked in them (at most {cap:,} characters of each).",
        STATES, rows)


def answers_report(run: dict[str, Any]) -> bytes:
    """The whole report of an answer run, from its JSON."""
    verdicts = "".join(f'<p class="verdict">{esc(c["verdict"])}</p>'
                       for c in run.get("comparison", []))
    sections = [Section("verdict", "Verdict",
                        verdicts or '<p class="note">One variant: nothing to compare.</p>'),
                _inputs(run), _figures(run), _questions(run)]
    labels = ", ".join(v["label"] for v in run["variants"])
    return render(f"Answers on {run['question_set']}", f"{labels} · model {run['model']}",
                  sections, charts=True, plotly_js=plotly_js())
