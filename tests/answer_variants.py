"""Shared by the answer-run tests: a variant of the RAG answer prompt that forbids citations,
and a fake-server responder that quotes the first passage and cites it unless told not to."""

from __future__ import annotations

import json
from pathlib import Path

from core.prompts.library import PromptLibrary
from fakes.llm import FakeRequest, Reply

NO_CITES = "Never cite the passages."
FAILING = "heat up"  # a question whose answers the server refuses


def no_citation_text() -> str:
    """The shipped RAG answer prompt told never to cite."""
    locales = json.loads(PromptLibrary().default("rag_system").text)
    locales["default"]["format_instruction"] = NO_CITES
    locales["default"]["rules"] = ["Answer in one sentence."]
    return json.dumps(locales)


def no_citation_file(folder: Path) -> Path:
    path = folder / "no_cites.json"
    path.write_text(no_citation_text(), encoding="utf-8")
    return path


def quote_first_passage(request: FakeRequest) -> Reply | str:
    """Quote the first passage; cite it unless told not to; refuse one question outright."""
    prompt = request.prompt
    if FAILING in prompt:
        return Reply(status=400, text="bad request")
    passage = prompt.split("\n---\n", 1)[1].split("\n\n")[0] if "\n---\n" in prompt else ""
    return passage[:200] + ("" if NO_CITES in prompt else " [1]")


def judge_or_quote(request: FakeRequest) -> Reply | str:
    """The judge scores a cited answer 5, an uncited one 3; answers as quote_first_passage."""
    if request.phase == "answer_judge":
        graded = request.prompt.split("Answer to grade:", 1)[1].split("How faithful")[0]
        return ('{"faithfulness": 5, "reason": "cited"}' if "[1]" in graded
                else 'Score: {"faithfulness": 3, "reason": "uncited"}')
    return quote_first_passage(request)
