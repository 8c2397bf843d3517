"""Compiled tokenizer of the copy rule (numba): alignment tokens (CJK characters, words,
numbers read as the copy rule reads them, with flags), token counts, and the one-replaced-token
test. Split from :mod:`neardup._kernels`; the token hash is its feature hash.
"""

from __future__ import annotations

import numba
import numpy as np

from . import twins
from ._kernels import FNV_OFFSET, _fnv_step, fmix64
from ._pairkernels import _SPREAD  # the posting lists' key spread: one constant for both tables
from .compiling import small


@numba.njit(cache=True, nogil=True)
def _is_cjk(c):
    return (
        (0x3400 <= c <= 0x4DBF)
        or (0x4E00 <= c <= 0x9FFF)
        or (0xF900 <= c <= 0xFAFF)
        or (0x20000 <= c <= 0x2FA1F)
    )


def token_counts(cps, offsets):
    """Alignment tokens per compared text (:func:`_token_counts`; a small run,
    :mod:`neardup.compiling`: its NumPy twin)."""
    if small(len(cps)):
        return twins.token_counts(cps, offsets)
    return _token_counts(cps, offsets)


@numba.njit(cache=True, nogil=True)
def _token_counts(cps, offsets):
    """Alignment tokens per compared text: CJK characters, plus runs of other non-space
    characters (the count :func:`neardup.copyrule.tokenize` gives on punctuation-free text)."""
    ndocs = offsets.shape[0] - 1
    out = np.zeros(ndocs, np.int64)
    for d in range(ndocs):
        in_run = False
        for i in range(offsets[d], offsets[d + 1]):
            c = cps[i]
            if _is_cjk(c):
                out[d] += 1
                in_run = False
            elif c == 32:
                in_run = False
            elif not in_run:
                out[d] += 1
                in_run = True
    return out


WORD_GRAM_MAX = 64  # characters: a word gram runs on no further (a URL, a blob, Thai text)


@numba.njit(cache=True, nogil=True)
def _gram_offsets(offsets, n):
    """Per document, one gram per position where ``n`` characters start (one for a shorter
    non-empty text): the offsets of :func:`neardup._kernels.char_ngram_hashes`."""
    ndocs = offsets.shape[0] - 1
    out_off = np.empty(ndocs + 1, np.int64)
    out_off[0] = 0
    for d in range(ndocs):
        length = offsets[d + 1] - offsets[d]
        count = 0 if length == 0 else (1 if length < n else length - n + 1)
        out_off[d + 1] = out_off[d] + count
    return out_off


@numba.njit(cache=True, nogil=True)
def _word_gram_stop(written, p, end, width, words):
    """Where the gram at ``p`` stops (see :func:`word_gram_hashes`); ``end``: its text's end."""
    stop = p + width
    for q in range(p, stop):
        if _is_cjk(written[q]):
            return stop
    seen = 0
    q = p
    limit = min(end, p + WORD_GRAM_MAX)
    while q < limit and seen < words:
        c = written[q]
        if _is_cjk(c):
            break
        if c != 32 and (q + 1 == end or written[q + 1] == 32 or _is_cjk(written[q + 1])):
            seen += 1
        q += 1
    return max(stop, q)


@numba.njit(cache=True, nogil=True)
def _word_gram_stops(written, offsets, n, words):
    """Offsets of every text's grams (:func:`_gram_offsets`) and where each gram of
    :func:`word_gram_hashes` stops (a position in ``written``)."""
    out_off = _gram_offsets(offsets, n)
    ndocs = offsets.shape[0] - 1
    stops = np.empty(out_off[ndocs], np.int64)
    for d in range(ndocs):
        start, end = offsets[d], offsets[d + 1]
        width = min(n, end - start)
        base = out_off[d]
        for j in range(out_off[d + 1] - base):
            stops[base + j] = _word_gram_stop(written, start + j, end, width, words)
    return out_off, stops


@numba.njit(cache=True, nogil=True)
def word_gram_hashes(cps, offsets, n, words, written):
    """Gram hashes like :func:`neardup._kernels.char_ngram_hashes` (one per position, the same
    offsets), except where the ``n`` characters from a position hold no CJK character
    (alphabetic text: a letter carries far less than a CJK character, so most letter n-grams
    are common): there the gram runs on to the end of the ``words``-th word from the position
    (the word it starts in counting as the first), or to the next CJK character, at least ``n``
    characters and at most ``WORD_GRAM_MAX`` (a run without spaces would otherwise make every
    gram as long as the run). Chinese text keeps its character grams; an English position gets
    a rare gram when the words that follow it are rare together. Where the grams run is read
    from ``written`` (the code points as written, of the same length as ``cps``: grams of
    characters as heard hash reading codes, which are no CJK characters)."""
    out_off, stops = _word_gram_stops(written, offsets, n, words)
    ndocs = offsets.shape[0] - 1
    hashes = np.empty(out_off[ndocs], np.uint64)
    for d in range(ndocs):
        base = out_off[d]
        for j in range(out_off[d + 1] - base):
            h = FNV_OFFSET
            for q in range(offsets[d] + j, stops[base + j]):
                h = _fnv_step(h, cps[q])
            hashes[base + j] = fmix64(h)
    return hashes, out_off


def word_gram_ends(cps: np.ndarray, offsets: np.ndarray, n: int, words: int) -> np.ndarray:
    """Where each gram of :func:`word_gram_hashes` (of text as written) ends, as a position
    within its text: what a run of common grams covers."""
    out_off, stops = _word_gram_stops(cps, offsets, n, words)
    return stops - np.repeat(offsets[:-1], np.diff(out_off))


# -- alignment tokens of the copy rule (see neardup.copyrule.tokenize) ----------------------

_DI = 0x7B2C  # 第


@numba.njit(cache=True, nogil=True)
def _cn_digit(c):
    """The digit of a Chinese numeral character (-1: none; 10, 100, 1000, 10000: multipliers)."""
    if c == 0x96F6:  # 零
        return 0
    if c == 0x4E00:  # 一
        return 1
    if c == 0x4E8C or c == 0x4E24:  # 二 两
        return 2
    if c == 0x4E09:
        return 3
    if c == 0x56DB:
        return 4
    if c == 0x4E94:
        return 5
    if c == 0x516D:
        return 6
    if c == 0x4E03:
        return 7
    if c == 0x516B:
        return 8
    if c == 0x4E5D:
        return 9
    if c == 0x5341:  # 十
        return 10
    if c == 0x767E:  # 百
        return 100
    if c == 0x5343:  # 千
        return 1000
    if c == 0x4E07:  # 万
        return 10000
    return -1


_COUNT_UNIT = 1  # 次届期轮批号月日: a single Chinese numeral before one is a number
_DATE_UNIT = 2  # 年月日号时次届期轮: the number before one is a date or an ordinal


@numba.njit(cache=True, nogil=True)
def _unit(c):
    """Which of the two unit sets (``_COUNT_UNIT``, ``_DATE_UNIT`` bits) a character is in."""
    if c == 0x6B21 or c == 0x5C4A or c == 0x671F or c == 0x8F6E:  # 次届期轮
        return _COUNT_UNIT | _DATE_UNIT
    if c == 0x53F7 or c == 0x6708 or c == 0x65E5:  # 号月日
        return _COUNT_UNIT | _DATE_UNIT
    if c == 0x6279:  # 批
        return _COUNT_UNIT
    if c == 0x5E74 or c == 0x65F6:  # 年时
        return _DATE_UNIT
    return 0


#: Token flags (:func:`alignment_tokens`, :func:`neardup.copyrule.token_flags`): the token holds
#: a digit; it is a year (19xx, 20xx) or 5 or more characters with a digit (an identifier); it is a
#: date or event unit (年月日号时次届期轮) that makes the number before it a date; it is a month name
#: or 第, which makes the number after it a date; it is a word of ``WORD_MIN`` or more letters
#: (no digit, no CJK character, no month), which another word can replace; it is a year.
TOKEN_DIGIT = 1
TOKEN_DATED = 2
TOKEN_UNIT = 4
TOKEN_BEFORE_DATE = 8
TOKEN_WORD = 16
TOKEN_YEAR = 32
WORD_MIN = 3


@numba.njit(cache=True, nogil=True)
def _run_flags(length, digits, head):
    """The flags of a run of letters and digits from its length, digit count and first two
    characters (``head``, base 256)."""
    if digits == 0:
        return TOKEN_WORD if length >= WORD_MIN else 0
    year = length == 4 and digits == 4 and (head == 49 * 256 + 57 or head == 50 * 256 + 48)
    code = length >= 5 or digits < length  # an identifier, or a code of letters and digits
    return TOKEN_DIGIT | (TOKEN_DATED if code or year else 0) | (TOKEN_YEAR if year else 0)


@numba.njit(cache=True, nogil=True)
def alignment_tokens(cps, offsets, word_hashes, word_values, month_hashes):
    """Hashes of the copy rule's tokens of each compared text, as
    :func:`neardup.copyrule.tokenize` cuts them (each token hashed like a feature), and each
    token's flags (``TOKEN_*``).

    Handles texts made of CJK characters, ASCII letters and digits and spaces; a text holding
    anything else is flagged (fourth result) and left empty for the exact Python path. Runs of
    letters and digits whose hash is in ``word_hashes`` (English number words) become
    ``word_values``; ``month_hashes`` are the hashes of month names.
    """
    ndocs = offsets.shape[0] - 1
    out = np.empty(cps.shape[0] + 1, np.uint64)
    flags = np.zeros(cps.shape[0] + 1, np.uint8)
    out_off = np.empty(ndocs + 1, np.int64)
    other = np.zeros(ndocs, np.bool_)
    out_off[0] = 0
    w = 0
    digits_buf = np.empty(20, np.int64)
    words = (word_hashes, word_values, month_hashes)
    for d in range(ndocs):
        start, end = offsets[d], offsets[d + 1]
        first = w
        h = FNV_OFFSET
        in_run = False
        length = np.int64(0)  # the current run: characters, digits among them, the first two
        digits = np.int64(0)  # (base 256); not literals, which compile a second signature
        head = np.int64(0)
        i = start
        while i < end:
            c = cps[i]
            digit = _cn_digit(c)
            if digit >= 0:
                j = i
                while j < end and _cn_digit(cps[j]) >= 0:
                    j += 1
                single = j - i == 1 and 1 <= digit <= 10
                if j - i >= 2 or (
                    single
                    and (
                        (i > start and cps[i - 1] == _DI)
                        or (j < end and _unit(cps[j]) & _COUNT_UNIT)
                    )
                ):
                    if j - i > 18:
                        other[d] = True
                        break
                    plain = True
                    for m in range(i, j):
                        if _cn_digit(cps[m]) >= 10:
                            plain = False
                    if in_run:  # a numeral read as a number is a token of its own
                        out[w], flags[w] = _word_token(
                            fmix64(h), _run_flags(length, digits, head), words
                        )
                        w += 1
                    h = FNV_OFFSET
                    in_run = True
                    length = 0
                    digits = 0
                    head = 0
                    k = 0
                    if plain:
                        for m in range(i, j):
                            digits_buf[k] = _cn_digit(cps[m])
                            k += 1
                    else:
                        total = 0
                        section = 0
                        value = 0
                        for m in range(i, j):
                            v = _cn_digit(cps[m])
                            if v == 10000:
                                total += (section + value) * 10000
                                section = 0
                                value = 0
                            elif v >= 10:
                                section += (value if value > 0 else 1) * v
                                value = 0
                            else:
                                value = v
                        number = total + section + value
                        while True:  # its decimal digits, last first
                            digits_buf[k] = number % 10
                            number //= 10
                            k += 1
                            if number == 0:
                                break
                        for m in range(k // 2):
                            t = digits_buf[m]
                            digits_buf[m] = digits_buf[k - 1 - m]
                            digits_buf[k - 1 - m] = t
                    for m in range(k):
                        h = _fnv_step(h, np.uint32(48 + digits_buf[m]))
                        head = head * 256 + 48 + digits_buf[m] if length < 2 else head
                        length += 1
                    digits += k
                    out[w], flags[w] = _word_token(
                        fmix64(h), _run_flags(length, digits, head), words
                    )
                    w += 1
                    in_run = False
                    i = j
                    continue
            if 65 <= c <= 90:
                c = np.uint32(c + 32)  # stays a uint32: one compiled signature of the helpers
            if (97 <= c <= 122) or (48 <= c <= 57):
                if not in_run:
                    h = FNV_OFFSET
                    in_run = True
                    length = 0
                    digits = 0
                    head = 0
                h = _fnv_step(h, c)
                head = head * 256 + c if length < 2 else head
                length += 1
                digits += 48 <= c <= 57
                i += 1
                continue
            if in_run:
                out[w], flags[w] = _word_token(fmix64(h), _run_flags(length, digits, head), words)
                w += 1
                in_run = False
            if _is_cjk(c):
                out[w] = fmix64(_fnv_step(FNV_OFFSET, c))
                if c == _DI:
                    flags[w] = TOKEN_BEFORE_DATE
                elif _unit(c) & _DATE_UNIT:
                    flags[w] = TOKEN_UNIT
                w += 1
            elif c != 32:
                other[d] = True
                break
            i += 1
        if other[d]:
            for m in range(first, w):
                flags[m] = 0
            w = first
        elif in_run:
            out[w], flags[w] = _word_token(fmix64(h), _run_flags(length, digits, head), words)
            w += 1
        out_off[d + 1] = w
    return out[:w], out_off, flags[:w], other


@numba.njit(cache=True, nogil=True)
def _word_token(h, run_flags, words):
    """A run's token and flags: an English number word becomes its number, a month name is
    flagged (``words``: the hashes of number words, of their numbers, of month names)."""
    word_hashes, word_values, month_hashes = words
    for k in range(word_hashes.shape[0]):
        if word_hashes[k] == h:
            return word_values[k], TOKEN_DIGIT
    for k in range(month_hashes.shape[0]):
        if month_hashes[k] == h:
            return h, TOKEN_BEFORE_DATE
    return h, run_flags


@numba.njit(cache=True, nogil=True)
def _holds(values, x):
    """Whether ``x`` is one of ``values`` (a few; a loop, which numba compiles)."""
    for v in values:  # noqa: SIM110
        if v == x:
            return True
    return False


@numba.njit(cache=True, nogil=True)
def _in_sorted(values, x):
    """Whether ``x`` is one of the sorted ``values``."""
    at = np.searchsorted(values, x)
    return at < values.shape[0] and values[at] == x


@numba.njit(cache=True, nogil=True)
def one_replaced(
    codes,
    offsets,
    flags,
    left,
    right,
    moved_lo,
    moved_hi,
    week,
    weekdays,
    exclusive,
    counters,
    number_words,
    numerals,
):
    """The value test of the copy rule (:func:`neardup.copyrule.values._value_changes`) for pairs whose
    token sequences differ in one token replaced by another, and its outcome: ``(handled,
    changed, hard)`` per pair.

    Handled: both have the same number of tokens, not in ``[moved_lo, moved_hi)`` (where moved
    passages might be looked for), they differ at exactly one position ``p``, and neither
    token there equals a neighbour of itself (so the one longest-common-subsequence alignment
    is that substitution), and they are not two words (``TOKEN_WORD``: whether two words are
    spelled alike is read in Python, :func:`neardup.copyrule.values._replaced_word`; a month name
    counts as a word), and not two days of the week after a token of ``week`` (codes of 期,
    拜, 周; days: ``weekdays``), which :func:`neardup.copyrule.values._day_replaced` reads, nor
    two characters of ``exclusive`` (sorted codes), which may exclude each other (an opposite,
    another country or colour: :func:`neardup.copyrule.values._exclusive`). Then a
    value changed when both replaced tokens hold a digit — a figure replaced in place, also at
    an end (:func:`neardup.copyrule.values._end_mark`), except two tokens of ``counters`` (the
    one-digit numbers, sorted codes) at the end after a token without digits: a repost's
    counter —, and when one holds a digit and the other not, unless that figure is one of
    ``counters`` or ``number_words`` (words written in digits, 2333, 520: sorted codes) or the
    other token one of ``numerals`` (sorted codes of Chinese numerals:
    :func:`neardup.copyrule.values._figure_replaced`; a year, identifier or code facing a word
    is left to it); the change is hard when both hold a digit
    and one is a year or identifier, or the token after is a date unit, or the one before a
    month or 第.
    """
    n = left.shape[0]
    handled = np.zeros(n, np.bool_)
    changed = np.zeros(n, np.bool_)
    hard = np.zeros(n, np.bool_)
    for k in range(n):
        a0, a1 = offsets[left[k]], offsets[left[k] + 1]
        b0, b1 = offsets[right[k]], offsets[right[k] + 1]
        size = a1 - a0
        if size != b1 - b0 or moved_lo <= size < moved_hi:
            continue
        p = -1
        many = False
        for i in range(size):
            if codes[a0 + i] != codes[b0 + i]:
                if p >= 0:
                    many = True
                    break
                p = i
        if many or p < 0:
            continue
        x, y = codes[a0 + p], codes[b0 + p]
        if p > 0 and (codes[a0 + p - 1] == x or codes[b0 + p - 1] == y):
            continue
        if p + 1 < size and (codes[a0 + p + 1] == x or codes[b0 + p + 1] == y):
            continue
        fx, fy = flags[a0 + p], flags[b0 + p]
        if fx & (TOKEN_WORD | TOKEN_BEFORE_DATE) and fy & (TOKEN_WORD | TOKEN_BEFORE_DATE):
            continue
        if (
            p > 0
            and _holds(week, codes[a0 + p - 1])
            and _holds(weekdays, x)
            and _holds(weekdays, y)
        ):
            continue
        if _in_sorted(exclusive, x) and _in_sorted(exclusive, y):
            continue
        handled[k] = True
        digit_x, digit_y = fx & TOKEN_DIGIT != 0, fy & TOKEN_DIGIT != 0
        if digit_x != digit_y:  # a figure put in place of a word (为什么不是10000 / 我)
            figure, word, f = (x, y, fx) if digit_x else (y, x, fy)
            if f & TOKEN_DATED:  # a year, an identifier or letters and digits: the alignment
                handled[k] = False
                continue
            changed[k] = not (
                _in_sorted(counters, figure)
                or _in_sorted(number_words, figure)
                or _in_sorted(numerals, word)
            )
            continue
        if not (digit_x and digit_y):
            continue
        # at the end, two one-digit numbers after text are a repost's counter (谢谢1 / 谢谢2)
        changed[k] = not (
            p == size - 1
            and p > 0
            and _in_sorted(counters, x)
            and _in_sorted(counters, y)
            and flags[a0 + p - 1] & TOKEN_DIGIT == 0
        )
        hard[k] = (
            (fx | fy) & TOKEN_DATED != 0
            or (p + 1 < size and flags[a0 + p + 1] & TOKEN_UNIT != 0)
            or (p > 0 and flags[a0 + p - 1] & TOKEN_BEFORE_DATE != 0)
        )
    return handled, changed, hard


@numba.njit(cache=True, nogil=True)
def numbers_differ(keys, offsets, left, right):
    """:func:`neardup.copyrule.values._numbers_differ` of each pair ``(left[p], right[p])`` with no
    passage: both texts hold numbers the other lacks, and one of them is a year or there are two
    on each side. ``keys``: each text's distinct number tokens, sorted, a token's hash with its
    lowest bit replaced by whether it is a year (:func:`neardup.copyrule.number_keys`)."""
    n = left.shape[0]
    out = np.zeros(n, np.bool_)
    for p in range(n):
        i, i_end = offsets[left[p]], offsets[left[p] + 1]
        j, j_end = offsets[right[p]], offsets[right[p] + 1]
        only_a = 0
        only_b = 0
        year = False
        while i < i_end or j < j_end:
            if j == j_end or (i < i_end and keys[i] < keys[j]):
                only_a += 1
                year = year or (keys[i] & np.uint64(1)) == 1
                i += 1
            elif i == i_end or keys[j] < keys[i]:
                only_b += 1
                year = year or (keys[j] & np.uint64(1)) == 1
                j += 1
            else:
                i += 1
                j += 1
        out[p] = only_a > 0 and only_b > 0 and (year or min(only_a, only_b) >= 2)
    return out


@numba.njit(cache=True, nogil=True)
def key_slots(keys, bits):
    """An open-addressing table of distinct 64-bit ``keys`` with ``2 ** bits`` slots (at most
    half full, the caller's choice): each slot the position of a key in ``keys``, or -1."""
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    slots = np.full(1 << bits, -1, np.int64)
    for i in range(keys.shape[0]):
        h = np.int64((keys[i] * _SPREAD) >> shift)
        while slots[h] >= 0:
            h = (h + 1) & mask
        slots[h] = i
    return slots


@numba.njit(cache=True, nogil=True)
def replaced_codes(codes, keys, values, slots, bits):
    """``codes`` with each one found in ``keys`` replaced by its ``values`` entry, looked up in
    ``slots`` (:func:`key_slots` of ``keys``); the others unchanged."""
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    out = np.empty_like(codes)
    for i in range(codes.shape[0]):
        c = codes[i]
        out[i] = c
        h = np.int64((c * _SPREAD) >> shift)
        while slots[h] >= 0:
            if keys[slots[h]] == c:
                out[i] = values[slots[h]]
                break
            h = (h + 1) & mask
    return out
