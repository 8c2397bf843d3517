"""Text as neardup writes it: bytes that are not UTF-8 written as ``\\xff`` escapes.

A file name need not be UTF-8 (``bad\\xffname.jsonl``); Python holds its undecodable bytes as
lone surrogates (``surrogateescape``), which no UTF-8 output can hold. Every place a path
becomes output text — a summary, a report, a skipped record's input, an error message, a
store's checkpoint name, an HTTP response — writes it through :func:`shown_path`; the file is
still opened by its real name.

>>> shown_path(b"bad\\xffname.jsonl")
'bad\\\\xffname.jsonl'
>>> shown_path("plain/名字.jsonl")
'plain/名字.jsonl'
"""

from __future__ import annotations

import os
import re

SURROGATE = re.compile("[\ud800-\udfff]")  # undecodable bytes (surrogateescape) or lone surrogates


def escape_undecodable(value: str) -> str:
    """``value`` with undecodable bytes written as ``\\xff`` escapes, so it encodes as UTF-8."""
    return SURROGATE.sub(_escape_surrogate, value)


def _escape_surrogate(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def shown_path(path: str | bytes | os.PathLike) -> str:
    """The name ``path`` (a str, bytes or path) as text to show or write: valid UTF-8, its
    undecodable bytes as ``\\xff`` escapes (one name is always written alike)."""
    return escape_undecodable(os.fsdecode(path))
