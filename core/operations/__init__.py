"""What a user can do, the one layer pages and the CLI call.

strategies (list and run chunking strategies) · presets (named configurations) · ingest (chunk
sets) · evaluation, question_sets, evaluation_report (evaluate chunkings) · prompt_tests (try a
template) · answers (retrieve, assemble, ask) · connection (check an LLM endpoint).
Long operations take ``progress`` and ``cancel`` (:mod:`core.progress`).
"""
