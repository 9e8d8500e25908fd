"""Okapi BM25 over an in-memory list of texts (numpy, no external index).

Tokens: the text is case-folded and split into runs of word characters (Unicode-aware, so
"Größe" and "café" are single tokens). Han, kana and Hangul characters carry no spaces between
words, so each of those characters is a token of its own. No stemming and no stop words: the
IDF term already makes very common words nearly free.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

K1 = 1.5
B = 0.75

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])\w)+")


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.casefold())


class BM25Index:
    """Score every text against a query; ``scores(q)[i]`` is text ``i``'s BM25 score (≥ 0).

    IDF is the non-negative variant ``ln(1 + (N - df + 0.5) / (df + 0.5))`` so a term found in
    most texts still counts a little instead of pushing scores below zero. Repeated query terms
    count once.
    """

    def __init__(self, texts: Sequence[str], k1: float = K1, b: float = B) -> None:
        self.k1 = k1
        self.b = b
        self.size = len(texts)
        docs = [Counter(tokenize(text)) for text in texts]
        self.lengths = np.array([sum(d.values()) for d in docs], dtype=np.float64)
        self.avg_length = float(self.lengths.mean()) if self.size else 0.0
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for i, counts in enumerate(docs):
            for term, tf in counts.items():
                ids, tfs = postings.setdefault(term, ([], []))
                ids.append(i)
                tfs.append(tf)
        self._postings = {
            term: (np.array(ids, dtype=np.int64), np.array(tfs, dtype=np.float64))
            for term, (ids, tfs) in postings.items()
        }
        # Per-text length normalisation of the BM25 denominator, computed once.
        norm = self.avg_length or 1.0
        self._length_factor = k1 * (1 - b + b * self.lengths / norm)

    def idf(self, term: str) -> float:
        df = len(self._postings[term][0]) if term in self._postings else 0
        return math.log(1 + (self.size - df + 0.5) / (df + 0.5))

    def scores(self, query: str) -> np.ndarray:
        result = np.zeros(self.size, dtype=np.float64)
        for term in dict.fromkeys(tokenize(query)):
            posting = self._postings.get(term)
            if posting is None:
                continue
            ids, tfs = posting
            result[ids] += (
                self.idf(term) * tfs * (self.k1 + 1) / (tfs + self._length_factor[ids])
            )
        return result
