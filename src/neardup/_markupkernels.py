"""Compiled removal of social-media markup from normalised texts (numba): the pattern
:data:`neardup.markup.MARKUP`, matched by hand at each position in the order the regular
expression tries its alternatives, on code points, without the interpreter lock.

``classes`` is a per-code-point table of what Python's ``re`` calls a word character (bit
``WORD``) and whitespace (bit ``SPACE``), built by that ``re`` itself
(:func:`neardup.markup.character_classes`, where the bits are defined), so ``\\w`` and ``\\s``
mean exactly what they mean in the pattern; bit ``START`` marks the characters a match can
start with, the only ones tested. A property test holds the kernel to the pattern.
"""

from __future__ import annotations

import numba
import numpy as np

from .markup import SPACE, START, WORD

_MENTION = 30  # @user: at most 30 characters
_EMOJI_CODE = 8  # [code]: at most 8
_TOPIC = 39  # #topic#: at most 39 characters after the first


@numba.njit(cache=True, nogil=True)
def strip_markup_codepoints(cps, offsets, classes):
    """Each text of ``(cps, offsets)`` with every match of the markup pattern replaced by one
    space, left to right without overlap (``re.sub``); a text left without a word character
    other than ``_`` is kept as it was. Returns the new code points and offsets.

    One function, no helpers: numba compiles each function on its own, and nine small ones
    took 2 s on a first run. Each alternative of the pattern starts with its own characters,
    so at most one can match at a position; the branches below follow the pattern's order.
    """
    n = offsets.shape[0] - 1
    size = classes.shape[0]
    out = np.empty(cps.shape[0], np.uint32)  # a match is replaced by one character: no longer
    out_off = np.zeros(n + 1, np.int64)
    w = 0
    for d in range(n):
        start = w
        end = offsets[d + 1]
        content = False
        i = offsets[d]
        while i < end:
            c = cps[i]
            bits = classes[c] if c < size else 0
            e = -1  # the end of the markup starting at i
            if bits & START == 0:
                pass
            elif c == 0x68:  # https?(?:\s?[:~]+\s?/*|\s?/+)[!-~]*
                if (
                    i + 4 <= end
                    and cps[i + 1] == 0x74
                    and cps[i + 2] == 0x74
                    and cps[i + 3] == 0x70
                ):
                    k = i + 4
                    if k < end and cps[k] == 0x73:  # "s" (without it, "s" cannot start the rest)
                        k += 1
                    if k < end and cps[k] < size and classes[cps[k]] & SPACE:
                        k += 1
                    if k < end and (cps[k] == 0x3A or cps[k] == 0x7E):
                        while k < end and (cps[k] == 0x3A or cps[k] == 0x7E):
                            k += 1
                        if k < end and cps[k] < size and classes[cps[k]] & SPACE:
                            k += 1
                        e = k
                    elif k < end and cps[k] == 0x2F:
                        e = k
                    while e >= 0 and e < end and 0x21 <= cps[e] <= 0x7E:
                        e += 1
            elif c == 0x2F or c == 0x56DE or c == 0x5B:
                # //@ or 回复@ then [^:：\s]{1,30}[:：], or \[[^\[\]\s]{1,8}\]: a run of 1 to
                # ``most`` characters, neither white space nor a stopper, then a closer
                if c == 0x5B:
                    first, most, stop, closer = i + 1, _EMOJI_CODE, 0x5B, 0x5D
                    opened = True
                else:
                    first, most, stop, closer = i + 3, _MENTION, 0x3A, 0xFF1A
                    second = 0x2F if c == 0x2F else 0x590D
                    opened = i + 3 <= end and cps[i + 1] == second and cps[i + 2] == 0x40
                if opened:
                    k = first
                    while k < end and k - first <= most:
                        x = cps[k]
                        if x in (stop, closer) or (x < size and classes[x] & SPACE):
                            break
                        k += 1
                    ends = k < end and (cps[k] == closer or (c != 0x5B and cps[k] == stop))
                    if 1 <= k - first <= most and ends:
                        e = k + 1
            elif c == 0x40:  # @[\w\-]{1,30}
                k = i + 1
                while k < end and k - i - 1 < _MENTION:
                    x = cps[k]
                    if x != 0x2D and not (x < size and classes[x] & WORD):
                        break
                    k += 1
                if k > i + 1:
                    e = k
            elif c == 0x23:  # #[^#\s](?:[^#\n]{0,38}[^#\s])?#: the closing # is the first
                f = i + 1
                if f < end and cps[f] != 0x23 and not (cps[f] < size and classes[cps[f]] & SPACE):
                    h = f + 1
                    while h < end and h - f - 1 <= _TOPIC and cps[h] != 0x23 and cps[h] != 0x0A:
                        h += 1
                    if h < end and cps[h] == 0x23 and h - f - 1 <= _TOPIC:
                        last = cps[h - 1]
                        if h == f + 1 or not (last < size and classes[last] & SPACE):
                            e = h + 1
            elif c == 0x8F6C or c == 0x8F49:  # 转发微博 or 轉發微博
                second = 0x53D1 if c == 0x8F6C else 0x767C
                if (
                    i + 4 <= end
                    and cps[i + 1] == second
                    and cps[i + 2] == 0x5FAE
                    and cps[i + 3] == 0x535A
                ):
                    e = i + 4
            elif c == 0x52 or c == 0x72:  # [Rr]epost
                if (
                    i + 6 <= end
                    and cps[i + 1] == 0x65
                    and cps[i + 2] == 0x70
                    and cps[i + 3] == 0x6F
                    and cps[i + 4] == 0x73
                    and cps[i + 5] == 0x74
                ):
                    e = i + 6
            elif c == 0x5C:  # \\+[nrt]
                k = i
                while k < end and cps[k] == 0x5C:
                    k += 1
                if k < end and (cps[k] == 0x6E or cps[k] == 0x72 or cps[k] == 0x74):
                    e = k + 1
            else:  # an emoji or pictograph, or U+FE0F
                e = i + 1
            if e < 0:
                out[w] = c
                if c != 0x5F and bits & WORD:
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
