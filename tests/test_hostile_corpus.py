"""A fast part of the hostile corpus (corpora/hostile.py) through the real CLI: every file
ends clean (exit 0, or exit 2 with one line), no traceback, no hang, at most 1 GiB."""

from __future__ import annotations

import pytest

from corpora.hostile import GIB, QUICK, make_corpus, run_one

CHUNKED = {"truncated.docx", "nul-late.txt", "deep-10000.html"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make_corpus(tmp_path_factory.mktemp("hostile"), QUICK)


@pytest.mark.parametrize("index", range(len(QUICK)), ids=[repr(n) for n in QUICK])
def test_a_hostile_file_ends_clean(corpus, index):
    path = corpus[index]
    commands = ["convert", "chunk"] if QUICK[index] in CHUNKED else ["convert"]
    for command in commands:
        outcome = run_one(path, command, timeout=120)
        assert outcome.code is not None, f"{command} hung"
        assert outcome.clean and not outcome.traceback, outcome
        assert outcome.rss_bytes <= GIB
        if outcome.code == 2:
            assert outcome.message.startswith("error: ") and "\x1b" not in outcome.message
