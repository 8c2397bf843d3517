"""The copy rule's tokens: a CJK character, or a run of other letters or digits, with Chinese
numerals and English number words read as numbers (:func:`tokenize`, compiled as
:func:`token_codes`), and what each token says about the numbers beside it (:func:`token_flags`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..compiling import small, small_texts

_CJK_BLOCKS = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F))


CJK_RANGES = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_BLOCKS)


_TOKEN = re.compile(f"[{CJK_RANGES}]|[^\\W_{CJK_RANGES}]+")


_CJK_TOKEN = re.compile(f"[{CJK_RANGES}]")


_CN_DIGITS = str.maketrans("〇零一二两三四五六七八九", "001223456789")


_CN_NUMBER = re.compile(
    r"[〇零一二两三四五六七八九十百千万]{2,}"
    r"|(?<=第)[一二两三四五六七八九十]|[一二两三四五六七八九十](?=[次届期轮批号月日])"
)


_DIGIT = re.compile(r"\d")


_DIGITS = re.compile(r"\d+")


_YEAR = re.compile(r"^(19|20)\d\d$")


def _cn_number_apart(match: re.Match[str]) -> str:
    """A Chinese numeral as an Arabic number, a token of its own: spaces keep it apart from
    letters or digits beside it (最IQ十二星座 reads iq, 12, not one code iq12)."""
    return f" {_cn_number(match)} "


def _cn_number(match: re.Match[str]) -> str:
    run = match.group(0)
    if not any(c in run for c in "十百千万"):
        return run.translate(_CN_DIGITS)  # 二〇二三 -> 2023
    total, section, digit = 0, 0, 0
    for c in run:
        if c in "十百千":
            section += (digit or 1) * {"十": 10, "百": 100, "千": 1000}[c]
            digit = 0
        elif c == "万":
            total += (section + digit) * 10_000
            section = digit = 0
        else:
            digit = int(c.translate(_CN_DIGITS))
    return str(total + section + digit)


_WORD_NUMBERS = {
    w: str(i)
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}


def tokenize(text: str) -> list[str]:
    """Alignment tokens of a compared text: CJK characters, and runs of letters or digits, with
    Chinese numerals (runs of two or more characters, or one in 第X / X次 / X届 ...; each a token
    of its own) and English number words up to twenty read as Arabic numbers.

    >>> tokenize("二〇二三年新年贺词 Shr 1.20")
    ['2023', '年', '新', '年', '贺', '词', 'shr', '1', '20']
    """
    tokens = _TOKEN.findall(_CN_NUMBER.sub(_cn_number_apart, text).casefold())
    return [_WORD_NUMBERS.get(t, t) for t in tokens]


def _token_spans(text: str) -> list[tuple[int, int]] | None:
    """The character span in ``text`` of each of its :func:`tokenize` tokens (a Chinese numeral
    read as a number spans the characters it was written with); None where case folding
    changes the text's length (spans would not map back)."""
    if not _CN_NUMBER.search(text):  # the common case: tokens are read as written
        folded = text.casefold()
        if len(folded) != len(text):
            return None
        return [m.span() for m in _TOKEN.finditer(folded)]
    parts: list[str] = []
    origin: list[tuple[int, int]] = []  # per character of the read text: its span in ``text``
    last = 0
    for m in _CN_NUMBER.finditer(text):
        parts.append(text[last : m.start()])
        origin.extend((p, p + 1) for p in range(last, m.start()))
        number = _cn_number_apart(m)
        parts.append(number)
        origin.extend([(m.start(), m.end())] * len(number))
        last = m.end()
    parts.append(text[last:])
    origin.extend((p, p + 1) for p in range(last, len(text)))
    read = "".join(parts)
    folded = read.casefold()
    if len(folded) != len(read):
        return None
    return [(origin[m.start()][0], origin[m.end() - 1][1]) for m in _TOKEN.finditer(folded)]


def token_codes(
    texts: Sequence[str], encoded: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tokens of each compared text (:func:`tokenize`) as 64-bit hashes (feature hashes of
    the token strings), with offsets and each token's :func:`token_flags`: a compiled tokenizer
    for CJK and ASCII text, this module's Python one for texts holding other characters.
    ``encoded``: the texts' code points and offsets, when the caller has them."""
    from .. import _tokenkernels
    from ..normalize import encode_texts, splice_documents
    from ..simhash import hash_features

    few = small(len(encoded[0])) if encoded is not None else small_texts(texts)
    if few:  # every text by the Python tokenizer, the compiled one's oracle
        codes = np.zeros(0, np.uint64)
        offsets = np.zeros(len(texts) + 1, np.int64)
        flags = np.zeros(0, np.uint8)
        other = np.ones(len(texts), np.bool_)
    else:
        words, values, months = _word_tables()
        cps, cp_offsets = encoded if encoded is not None else encode_texts(texts)
        codes, offsets, flags, other = _tokenkernels.alignment_tokens(
            cps, cp_offsets, words, values, months
        )
    which = np.flatnonzero(other)
    if not len(which):
        return codes, offsets, flags
    slow = [tokenize(texts[i]) for i in which.tolist()]
    tokens = [t for found in slow for t in found]
    repl_off = np.zeros(len(slow) + 1, np.int64)
    np.cumsum([len(t) for t in slow], out=repl_off[1:])
    spliced, new_offsets = splice_documents(codes, offsets, hash_features(tokens), repl_off, which)
    repl_flags = np.array([token_flags(t) for t in tokens], np.uint8)
    return spliced, new_offsets, splice_documents(flags, offsets, repl_flags, repl_off, which)[0]


@lru_cache(maxsize=1)
def _word_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from ..simhash import hash_features

    return (
        hash_features(list(_WORD_NUMBERS)),
        hash_features(list(_WORD_NUMBERS.values())),
        hash_features(sorted(_MONTHS)),
    )


_DATE_UNITS = frozenset("年月日号时次届期轮")  # dates, and ordinals of an event


_FUNCTION_WORD_LIST = (
    "the and but for nor yet its his her their our your this that these those which who "
    "whom whose what when where while was were are has had have will would shall should "
    "can could may might must not also said says told added stated reported noted "
    "about after before from into onto over under with within without upon than then "
    "via through per amid during "
    "there here some any all each both such very more most less least"
)


_FUNCTION_WORDS = frozenset(_FUNCTION_WORD_LIST.split())


_MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)


@lru_cache(maxsize=1 << 16)  # tokens repeat (characters, common numbers): 1.4 M calls
def token_flags(token: str) -> int:  # on a 1 M-document batch, most of them the same few tokens
    """What a token says about the numbers beside it (the ``TOKEN_*`` bits of
    :mod:`neardup._tokenkernels`, which the compiled tokenizer sets alike): it holds a digit; it is
    a year (19xx, 20xx), an identifier (a token of 5 or more characters with a digit) or a code
    (letters and digits: U7T1, A320, 5G — another lesson, aircraft or network); it is a
    date or event unit (年, 月, 次, 届: the number before it is a date or an ordinal); it is a
    month name or 第 (the number after it is a date or an ordinal); it is a word of letters
    (another word in its place may be a replaced name: :func:`_replaced_word`); it is a year."""
    from .._tokenkernels import (
        TOKEN_BEFORE_DATE,
        TOKEN_DATED,
        TOKEN_DIGIT,
        TOKEN_UNIT,
        TOKEN_WORD,
        TOKEN_YEAR,
        WORD_MIN,
    )

    flags = 0
    if _DIGIT.search(token):
        flags |= TOKEN_DIGIT
        year = _YEAR.match(token) is not None
        if len(token) >= 5 or year or not token.isdigit():  # identifier; letters and digits
            flags |= TOKEN_DATED
        if year:
            flags |= TOKEN_YEAR
    elif token in _MONTHS:
        flags |= TOKEN_BEFORE_DATE
    elif len(token) >= WORD_MIN:  # a CJK token is one character
        flags |= TOKEN_WORD
    if token in _DATE_UNITS:
        flags |= TOKEN_UNIT
    if token == "第":
        flags |= TOKEN_BEFORE_DATE
    return flags


def _numbers(tokens: Sequence[str]) -> frozenset[str]:
    """The tokens holding a digit."""
    return frozenset(t for t in tokens if not t.isalpha() and _DIGIT.search(t))


_CJK_WEEK = frozenset("期拜周")  # 星期三, 礼拜三, 周三: the day after it


_CJK_WEEKDAYS = frozenset("一二三四五六日天")


def number_keys(
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray], docs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct number tokens (:func:`_numbers`: tokens holding a digit) of each of ``docs``,
    sorted, as keys for :func:`neardup._tokenkernels.numbers_differ`: the token's hash with its
    lowest bit replaced by whether the token is a year (``TOKEN_YEAR``)."""
    from .._kernels import unique_per_doc
    from .._tokenkernels import TOKEN_DIGIT, TOKEN_YEAR

    codes, offsets, flags = tokens
    starts, lengths = offsets[docs], offsets[docs + 1] - offsets[docs]
    local = np.zeros(len(docs) + 1, np.int64)
    np.cumsum(lengths, out=local[1:])
    at = np.repeat(starts - local[:-1], lengths) + np.arange(local[-1])
    number = (flags[at] & TOKEN_DIGIT) != 0
    at = at[number]
    year = ((flags[at] & TOKEN_YEAR) != 0).astype(np.uint64)
    keys = (codes[at] & ~np.uint64(1)) | year
    return unique_per_doc(keys, _run_offsets(number, local))


def _run_offsets(mask: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Offsets of the ``True`` entries of ``mask`` per run ``offsets`` (empty runs allowed)."""
    ends = np.zeros(len(mask) + 1, np.int64)
    np.cumsum(mask, out=ends[1:])
    return ends[offsets]


def character_codes(chars: str | Sequence[str]) -> np.ndarray:
    """The token codes of single characters, sorted: a set a compiled test can look up."""
    return np.sort(token_codes(list(chars))[0])


@lru_cache(maxsize=1)
def _week_codes() -> tuple[np.ndarray, np.ndarray]:
    """The token codes of 期, 拜, 周 and of the days after them (:func:`_day_replaced`), for
    :func:`neardup._tokenkernels.one_replaced`."""
    week = token_codes(sorted(_CJK_WEEK))[0]
    days = token_codes(sorted(_CJK_WEEKDAYS))[0]
    return week, days
