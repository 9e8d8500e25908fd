"""The benchmark corpus: a policy manual, a table-heavy register and meeting transcripts with
270 questions of paragraph-sized references, written by :mod:`.make_corpus`."""

from pathlib import Path

FOLDER = Path(__file__).resolve().parent  # the documents and questions.csv
