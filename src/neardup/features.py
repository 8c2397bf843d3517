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
# every line boundary of str.splitlines (a lone carriage return, U+2028 / U+2029, form feed...)
# as a line feed: a text saved with other line breaks has the same paragraphs
_LINE_BREAKS = str.maketrans(dict.fromkeys("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", "\n"))
_SENTENCE_SPLIT = re.compile(r"(?<=[。！？!?；;])|\n")
# soft wraps (:func:`paragraphs`): a line that ends a sentence (terminal punctuation, maybe
# closed by quotes or brackets), a list item's first line, a CJK line
_SENTENCE_END = re.compile(r"[.!?;:。！？；：…][\"'”’»)\]]*\s*$")
_DIGIT = re.compile(r"\d")
_LIST_ITEM = re.compile(r"(?:[-*•·–—▪●○◦►]|\(?\d{1,2}[.)]|\(\w\))\s")
_CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f"
    "\uff00-\uffef\U00020000-\U0003ffff]"
)


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


def soft_wrap(line: str, following: str) -> bool:
    """Is the line break between two non-blank lines a soft wrap (hard-wrapped prose: the
    paragraph goes on)? Yes when ``line`` does not end a sentence (``. ! ? ; : …`` and their
    CJK forms, maybe followed by closing quotes or brackets), ``following`` is not indented and
    does not open a list item (``- * •``, ``1.``, ``1)``, ``(1)``, ``(a)``), both hold a letter or
    digit (``---`` is a separator), they are not both rows of figures (at least half of the
    words of each hold a digit: a table's rows, ``MAY7  287 1/2 UP  1 1/4``) and neither holds a
    CJK character (CJK text breaks lines between paragraphs and list items only).

    >>> soft_wrap("the money market with", "assistance of 100 mln stg.")
    True
    >>> soft_wrap("services sector.", "A Benetton spokeswoman said"), soft_wrap("said", "    A")
    (False, False)
    >>> soft_wrap("Key points", "- one"), soft_wrap("增长46.2%", "1—6月，中欧班列")
    (False, False)
    >>> soft_wrap("MAY7  287 1/2 UP  1 1/4", "JUL7  273 1/2 UP   3/4")
    False
    """
    return (
        not following[:1].isspace()
        and _SENTENCE_END.search(line) is None
        and _LIST_ITEM.match(following) is None
        and _WORDCHAR.search(line) is not None
        and _WORDCHAR.search(following) is not None
        and _CJK.search(line) is None
        and _CJK.search(following) is None
        and not (_figures(line) and _figures(following))
    )


def _figures(line: str) -> bool:
    """At least half of the words of ``line`` (two or more) hold a digit: a row of a table."""
    tokens = line.split()
    return len(tokens) >= 2 and 2 * sum(_DIGIT.search(t) is not None for t in tokens) >= len(tokens)


def paragraphs(text: str, *, unwrap: bool = True) -> list[str]:
    r"""Non-empty paragraphs, stripped: the text split at line breaks (blank lines included),
    except that with ``unwrap`` (the default) the lines of hard-wrapped prose (newswire wrapped
    at 65 characters, paragraphs marked by an indented line) are joined by a space into their
    paragraph: a break is kept unless it is a :func:`soft_wrap`. ``unwrap=False``: every line
    break is a paragraph break (the splitting before ``unwrap`` existed).

    >>> paragraphs("Prices rose in\nMarch, it said.\n    Output fell.\nShr 1 ct\n    Net 2")
    ['Prices rose in March, it said.', 'Output fell.', 'Shr 1 ct', 'Net 2']
    >>> paragraphs("Prices rose in\nMarch.", unwrap=False)
    ['Prices rose in', 'March.']

    Call this on text whose line breaks survive (raw text, or normalised paragraph by paragraph):
    normalisation folds line breaks into spaces. Every line boundary Python knows (``\r\n``, a
    lone ``\r``, U+2029 ...) is a line break.
    """
    text = text.replace("\r\n", "\n").translate(_LINE_BREAKS).strip()
    if not unwrap or "\n" not in text:
        return [p for p in _PARAGRAPH_SPLIT.split(text) if p]
    out: list[list[str]] = []  # each paragraph's lines, joined once (linear in the text)
    previous = ""  # the previous line, "" after a blank one
    for line in text.split("\n"):
        body = line.strip()
        if not body:
            previous = ""
        elif previous and soft_wrap(previous, line):
            out[-1].append(body)
        else:
            out.append([body])
        if body:
            previous = line
    return [" ".join(lines) for lines in out]


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
