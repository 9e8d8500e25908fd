import hashlib
import os
from pathlib import Path

import pytest

from core.config import data_dir
from core.tokens import BPE_URLS, count_tokens, encode, get_encoding


def test_counts_match_known_values_offline():
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert count_tokens("hello world") == 2
    assert encode("hello world") == [15339, 1917]
    assert count_tokens("hello world", "o200k_base") == 2


def test_special_token_text_counts_as_ordinary_text():
    assert count_tokens("<|endoftext|>") > 1


def test_bpe_files_are_written_under_the_data_folder_by_url_hash():
    get_encoding.cache_clear()  # an earlier test of this process may have loaded it elsewhere
    get_encoding("cl100k_base")
    name = hashlib.sha1(BPE_URLS["cl100k_base"].encode()).hexdigest()
    cached = Path(data_dir()) / "tiktoken" / name
    assert cached.stat().st_size > 1_000_000


def test_unknown_encoding_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="cl100k_base, o200k_base"):
        get_encoding("gpt2")
