"""The benchmark corpus (bench/corpus): every question's reference is found at its offsets in the
converted document, references are paragraph-sized, and the files are what the generator writes."""

from __future__ import annotations

from statistics import mean

from bench.corpus.make_corpus import OUT, QUESTIONS, build
from core.operations.question_sets import load_from_folder


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
