"""Compiled removal of social-media markup from normalised texts (numba): the pattern
:data:`neardup.markup.MARKUP`, matched by hand at each position in the order the regular
expression tries its alternatives, on code points, without the interpreter lock.

``classes`` is a per-code-point table of what Python's ``re`` calls a word character (bit
``WORD``) and whitespace (bit ``SPACE``), built by that ``re`` itself
(:func:`neardup.markup.character_classes`; the bits are defined there), so ``\\w`` and ``\\s`` mean exactly what they mean
in the pattern; bit ``START`` marks the characters a match can start with, the only ones tested. A property test holds the kernel to the pattern.
"""

from __future__ import annotations

import numba
import numpy as np

from .markup import SPACE, START, WORD

_MENTION = 30  # @user: at most 30 characters
_EMOJI_CODE = 8  # [code]: at most 8
_TOPIC = 39  # #topic#: at most 39 characters after the first
_REPOST = (0x8F6C, 0x53D1, 0x5FAE, 0x535A)  # 转发微博
_REPOST_TRAD = (0x8F49, 0x767C, 0x5FAE, 0x535A)  # 轉發微博


@numba.njit(cache=True, nogil=True)
def _is(classes, c, bit):
    return c < classes.shape[0] and (classes[c] & bit) != 0


@numba.njit(cache=True, nogil=True)
def _printable_ascii(c):
    return 0x21 <= c <= 0x7E


@numba.njit(cache=True, nogil=True)
def _url(cps, i, end, classes):
    """``https?(?:\\s?[:~]+\\s?/*|\\s?/+)[!-~]*`` at ``i``: the end of the match, or -1."""
    if i + 4 > end or cps[i + 1] != 0x74 or cps[i + 2] != 0x74 or cps[i + 3] != 0x70:
        return -1
    k = i + 4
    if k < end and cps[k] == 0x73:  # "s" (without it, "s" cannot start the rest)
        k += 1
    if k < end and _is(classes, cps[k], SPACE):
        k += 1
    if k >= end:
        return -1
    c = cps[k]
    if c == 0x3A or c == 0x7E:  # [:~]+ then an optional space
        while k < end and (cps[k] == 0x3A or cps[k] == 0x7E):
            k += 1
        if k < end and _is(classes, cps[k], SPACE):
            k += 1
    elif c != 0x2F:  # neither [:~] nor /
        return -1
    while k < end and _printable_ascii(cps[k]):
        k += 1
    return k


@numba.njit(cache=True, nogil=True)
def _user_then_colon(cps, k, end, classes):
    """``[^:：\\s]{1,30}[:：]`` at ``k``: the end of the match, or -1."""
    run = 0
    while k + run < end and run <= _MENTION:
        c = cps[k + run]
        if c == 0x3A or c == 0xFF1A or _is(classes, c, SPACE):
            break
        run += 1
    if run < 1 or run > _MENTION or k + run >= end:
        return -1
    c = cps[k + run]
    return k + run + 1 if c == 0x3A or c == 0xFF1A else -1


@numba.njit(cache=True, nogil=True)
def _mention(cps, i, end, classes):
    """``@[\\w\\-]{1,30}`` at ``i``."""
    k = i + 1
    while k < end and k - i - 1 < _MENTION and (cps[k] == 0x2D or _is(classes, cps[k], WORD)):
        k += 1
    return k if k > i + 1 else -1


@numba.njit(cache=True, nogil=True)
def _topic(cps, i, end, classes):
    """``#[^#\\s](?:[^#\\n]{0,38}[^#\\s])?#`` at ``i``: the group holds no ``#``, so the
    closing one is the first after the first character."""
    first = i + 1
    if first >= end or cps[first] == 0x23 or _is(classes, cps[first], SPACE):
        return -1
    h = first + 1
    while h < end and h - first - 1 <= _TOPIC and cps[h] != 0x23:
        if cps[h] == 0x0A:
            return -1
        h += 1
    if h >= end or cps[h] != 0x23 or h - first - 1 > _TOPIC:
        return -1
    if h > first + 1 and _is(classes, cps[h - 1], SPACE):
        return -1
    return h + 1


@numba.njit(cache=True, nogil=True)
def _emoji_code(cps, i, end, classes):
    """``\\[[^\\[\\]\\s]{1,8}\\]`` at ``i``."""
    k = i + 1
    while k < end and k - i - 1 <= _EMOJI_CODE:
        c = cps[k]
        if c == 0x5B or c == 0x5D or _is(classes, c, SPACE):
            break
        k += 1
    run = k - i - 1
    if run < 1 or run > _EMOJI_CODE or k >= end or cps[k] != 0x5D:
        return -1
    return k + 1


@numba.njit(cache=True, nogil=True)
def _word_at(cps, i, end, w0, w1, w2, w3):
    if i + 4 > end:
        return False
    return cps[i] == w0 and cps[i + 1] == w1 and cps[i + 2] == w2 and cps[i + 3] == w3


@numba.njit(cache=True, nogil=True)
def _match(cps, i, end, classes):
    """The end of the markup starting at ``i``, or -1 (each alternative of the pattern starts
    with its own characters, so at most one can match)."""
    c = cps[i]
    if c == 0x68:  # h
        return _url(cps, i, end, classes)
    if c == 0x2F:  # //@user:
        if i + 3 <= end and cps[i + 1] == 0x2F and cps[i + 2] == 0x40:
            return _user_then_colon(cps, i + 3, end, classes)
        return -1
    if c == 0x56DE:  # 回复@user:
        if i + 3 <= end and cps[i + 1] == 0x590D and cps[i + 2] == 0x40:
            return _user_then_colon(cps, i + 3, end, classes)
        return -1
    if c == 0x40:
        return _mention(cps, i, end, classes)
    if c == 0x23:
        return _topic(cps, i, end, classes)
    if c == 0x5B:
        return _emoji_code(cps, i, end, classes)
    if c == 0x8F6C or c == 0x8F49:
        r, t = _REPOST, _REPOST_TRAD
        if _word_at(cps, i, end, r[0], r[1], r[2], r[3]) or _word_at(
            cps, i, end, t[0], t[1], t[2], t[3]
        ):
            return i + 4
        return -1
    if c == 0x52 or c == 0x72:  # [Rr]epost
        if (
            i + 6 <= end
            and _word_at(cps, i + 1, end, 0x65, 0x70, 0x6F, 0x73)
            and cps[i + 5] == 0x74
        ):
            return i + 6
        return -1
    if 0x1F300 <= c <= 0x1FAFF or 0x2600 <= c <= 0x27BF or c == 0xFE0F:
        return i + 1
    if c == 0x5C:  # \\+[nrt]
        k = i
        while k < end and cps[k] == 0x5C:
            k += 1
        if k < end and (cps[k] == 0x6E or cps[k] == 0x72 or cps[k] == 0x74):
            return k + 1
    return -1


@numba.njit(cache=True, nogil=True)
def strip_markup_codepoints(cps, offsets, classes):
    """Each text of ``(cps, offsets)`` with every match of the markup pattern replaced by one
    space, left to right without overlap (``re.sub``); a text left without a word character
    other than ``_`` is kept as it was. Returns the new code points and offsets."""
    n = offsets.shape[0] - 1
    out = np.empty(cps.shape[0], np.uint32)  # a match is replaced by one character: no longer
    out_off = np.zeros(n + 1, np.int64)
    w = 0
    for d in range(n):
        start = w
        end = offsets[d + 1]
        content = False
        i = offsets[d]
        while i < end:
            e = _match(cps, i, end, classes) if _is(classes, cps[i], START) else -1
            if e < 0:
                c = cps[i]
                out[w] = c
                if c != 0x5F and _is(classes, c, WORD):
                    content = True
                i += 1
            else:
                out[w] = 0x20
                i = e
            w += 1
        if not content:  # nothing but markup: the text as it was
            w = start
            for i in range(offsets[d], end):
                out[w] = cps[i]
                w += 1
        out_off[d + 1] = w
    return out[:w].copy(), out_off
