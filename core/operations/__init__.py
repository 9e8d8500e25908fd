"""What a user can do, the one layer pages and the CLI call.

A package per feature: ``evaluation`` (score chunkings on a question set), ``tune`` (search for
the best one), ``assemble`` (retrieve, prompt, ask), ``answers`` (graded answers over a question
set), ``questions`` (question sets, kept and generated), ``ingest`` (chunk sets), ``prompts``
(edit, check and try the prompt templates). Beside them the operations several features share:
``strategies`` and ``presets`` (chunk a document, named configurations), ``hand_edits``,
``export``, ``chunk_review`` (a chunking's figures and checks), ``chunk_map``, ``page_view``,
``llm_connection`` and ``endpoint_checks``. Long operations take ``progress`` and ``cancel``
(:mod:`core.progress`).
"""
