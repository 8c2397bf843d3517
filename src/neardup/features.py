"""Features of normalised text: character n-grams, words, word shingles, paragraphs, sentences.

These are the readable, per-text forms (used by the paragraph method, ``neardup compare`` and the
tests' oracle). The batch fingerprint path in :mod:`neardup.simhash` computes the same features
inside compiled kernels without building Python strings per feature.

Words: Chinese is segmented with rjieba (a Rust port of jieba); rjieba passes Latin words and
numbers through whole, so mixed text works. Tokens without any letter, digit or CJK character
(spaces, punctuation) are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

_WORDCHAR = re.compile(r"[^\W_]")
_PARAGRAPH_SPLIT = re.compile(r"\s*\n\s*")
_SENTENCE_SPLIT = re.compile(r"(?<=[。！？!?；;])|\n")


def char_ngrams(text: str, n: int) -> list[str]:
    """Character n-grams; a text shorter than ``n`` is one feature, an empty text none.

    >>> char_ngrams("abcd", 3), char_ngrams("ab", 3), char_ngrams("", 3)
    (['abc', 'bcd'], ['ab'], [])
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if not text:
        return []
    if len(text) < n:
        return [text]
    return [text[i : i + n] for i in range(len(text) - n + 1)]


def _rjieba():
    import rjieba

    return rjieba


def raw_tokens(text: str) -> list[str]:
    """rjieba's segmentation, separators included (the input of the compiled word path)."""
    return _rjieba().cut(text) if text else []


def words(text: str) -> list[str]:
    """Word tokens: rjieba for Chinese, whole Latin words and numbers; punctuation and spaces dropped.

    >>> words("我爱北京天安门, hello world 2024!")
    ['我', '爱', '北京', '天安门', 'hello', 'world', '2024']
    """
    return [t for t in raw_tokens(text) if _WORDCHAR.search(t)]


def tagged_words(text: str) -> list[tuple[str, str]]:
    """Words with part-of-speech tags from rjieba (Latin words are tagged ``eng``, numbers ``m``)."""
    if not text:
        return []
    return [(w, p) for w, p in _rjieba().tag(text) if _WORDCHAR.search(w)]


def word_shingles(tokens: Sequence[str], n: int) -> list[str]:
    """Runs of ``n`` consecutive tokens joined by a space; fewer than ``n`` tokens give one shingle.

    >>> word_shingles(["a", "b", "c"], 2), word_shingles(["a"], 2)
    (['a b', 'b c'], ['a'])
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if not tokens:
        return []
    if len(tokens) < n:
        return [" ".join(tokens)]
    return [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def paragraphs(text: str) -> list[str]:
    """Non-empty paragraphs: the text split at line breaks (blank lines included).

    Call this on text whose line breaks survive (raw text, or normalised paragraph by paragraph):
    normalisation folds line breaks into spaces.
    """
    return [p for p in _PARAGRAPH_SPLIT.split(text.strip()) if p]


def sentences(text: str) -> list[str]:
    """Sentences split after 。！？!?；; and at line breaks, stripped, empty ones dropped."""
    return [s.strip() for s in _SENTENCE_SPLIT.split(text) if s and s.strip()]


@lru_cache(maxsize=1)
def word_char_table() -> np.ndarray:
    """Boolean table over all code points: does it count as a word character (as in :func:`words`)?"""
    every = "".join(map(chr, range(0x110000)))
    marked = _WORDCHAR.sub("\x01", every).encode("utf-32-le", "surrogatepass")
    table = np.frombuffer(marked, dtype=np.uint32) == 1
    table[1] = False  # U+0001 itself is not a word character
    return table
