"""One answer prompt: the prompt library's RAG template is what Assemble sends by default and
asks for the markers the prompt labels its passages with; the Prompts page's test of it
answers from passages retrieved for its question, labelled as the citation check names them."""

from __future__ import annotations

from pathlib import Path

from core.assembly.prompt import marker
from core.cli import build_parser
from core.documents import convert
from core.llm.phases.answer import reference_citations, reference_entries
from core.llm.trial import PhaseInput
from core.operations.assemble.run import AssemblyOptions
from core.prompts.library import PromptLibrary

HANDBOOK = Path(__file__).resolve().parents[1] / "sample_docs" / "technical_handbook.md"


def test_assemble_sends_the_library_prompt_by_default():
    assert AssemblyOptions().system == "library"
    args = build_parser().parse_args(["assemble", "--question", "Why?"])
    assert args.system_prompt == "library"


def test_the_answer_prompt_asks_for_the_markers_of_the_prompt(tmp_path):
    text = PromptLibrary(tmp_path).default("rag_system").text
    assert f"like {marker(1)}" in text and "like [1]" not in text


def test_the_test_passages_are_retrieved_for_the_question_and_labelled_as_checked():
    document = convert(HANDBOOK.read_bytes(), HANDBOOK.name)
    source = PhaseInput(document=document, references=3,
                        question="Should data directories use NVMe storage, and how much headroom?")
    entries = reference_entries(source)
    citations = reference_citations(source)
    assert [e.split(" ", 1)[0] for e in entries] == ["[¹]", "[²]", "[³]"]
    assert [c.marker for c in citations] == ["[¹]", "[²]", "[³]"]
    start, end = citations[0].span_offsets[0]
    assert "local\nNVMe storage" in entries[0] and start > 0  # not the document's first section
    assert document.text[start:end].strip() in entries[0]


def test_without_a_question_the_first_passages_are_used():
    document = convert(HANDBOOK.read_bytes(), HANDBOOK.name)
    citations = reference_citations(PhaseInput(document=document, references=2))
    assert citations[0].span_offsets[0][0] == 0
