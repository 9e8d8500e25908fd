"""The benchmark corpus (corpora/benchmark): every question's reference is found at its offsets
in the converted document, references are paragraph-sized, the files are what the generator
writes, and the generator's prose lives in its data files (sources/)."""

from __future__ import annotations

import ast
from pathlib import Path
from statistics import mean

from core.operations.questions.sets import load_from_folder
from corpora.benchmark.make_corpus import OUT, QUESTIONS, build


def test_every_reference_is_a_paragraph_of_its_converted_document():
    loaded = load_from_folder(OUT / QUESTIONS, OUT)
    questions = loaded.questions
    assert not questions.problems and 150 <= len(questions.questions) <= 300
    assert len(loaded.documents) == 3
    assert sum(len(d.text) for d in loaded.documents.values()) > 400_000
    lengths = [r.end - r.start for q in questions.questions for r in q.references]
    assert min(lengths) > 100 and 300 <= mean(lengths) <= 600
    assert {q.kind for q in questions.questions} == {"text", "table"}
    assert len({q.question for q in questions.questions}) == len(questions.questions)


def test_the_files_are_what_the_generator_writes():
    assert all((OUT / name).read_bytes() == data for name, data in build().items())


def _prose_in_code(path: Path) -> list[str]:
    """String literals of a module longer than a short label (docstrings aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
                  and node.body and isinstance(node.body[0], ast.Expr)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and len(node.value) > 40]


def test_the_prose_lives_in_data_files_not_in_the_generator():
    assert _prose_in_code(OUT / "make_corpus.py") == []
    assert sorted(p.name for p in (OUT / "sources").glob("*.toml")) == [
        "asset_register.toml", "names.toml", "transcripts.toml", "water_manual.toml"]
