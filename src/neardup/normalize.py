"""Text normalisation before feature extraction. Idempotent: ``normalize(normalize(t)) == normalize(t)``
(but for two known faults of the contract: ``&#8203;``, and ``＜b＞``, which NFKC makes a tag after
the tags are stripped).

The order is part of the fingerprint contract (:data:`neardup.config.FINGERPRINT_VERSION`):

1. drop control and invisible characters (NUL, zero-width spaces, soft hyphen, BOM);
2. HTML (``strip_html``): remove ``<script>``/``<style>`` blocks and tags, unescape entities,
   repeated until nothing changes (so ``&amp;lt;b&amp;gt;`` cannot reappear as a tag on a second pass);
3. Unicode NFKC, which also maps full-width forms to half-width (``ＡＢＣ１２３，`` → ``ABC123,``,
   the ideographic space U+3000 → a space);
4. case folding (``casefold``), then NFKC again so the result stays in normal form;
5. optional ``remove_punctuation`` (everything that is not a letter, digit, CJK character or space)
   and ``cjk_only`` (keep only CJK ideographs, as reference 003 does for Chinese news);
6. whitespace: every run of white space becomes one space; leading and trailing space is removed.

>>> normalize("<p>Ｈｅｌｌｏ,&nbsp;　ＷＯＲＬＤ！</p>")
'hello, world!'
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np

from .config import NormalizeConfig

_DEFAULT = NormalizeConfig()
# Separator used to normalise many texts in one pass; every step below leaves it alone.
_SEP = "\x00"
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f\u00ad\u200b-\u200d\u2060\ufeff]")
_SCRIPT = re.compile(r"<(script|style)\b[^\x00]*?</\1\s*>", re.IGNORECASE)
_TAG = re.compile(r"<[A-Za-z!/?][^<>\x00]*>")
_WS = re.compile(r"[^\S\x00]+")
_ONE_SPACE = re.compile(r"[^\S\x00]")
_WS_AROUND_SEP = re.compile(r" ?\x00 ?")
_PUNCT = re.compile(r"[^\w\s\x00]|_")
_NON_CJK = re.compile(r"[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f\x00]+")


def _strip_html(text: str) -> str:
    while True:
        before = text
        if "<" in text:
            text = _TAG.sub(" ", _SCRIPT.sub(" ", text))
        if "&" in text:  # never yields NUL (&#0; is U+FFFD): joined texts keep their separators
            text = html.unescape(text)
        if text == before:
            return text


def _normalize_joined(text: str, config: NormalizeConfig) -> str:
    """Normalise a string in which documents are separated by ``_SEP``."""
    if config.strip_html:
        text = _strip_html(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    if config.casefold:
        text = text.casefold()
        if not text.isascii():
            text = unicodedata.normalize("NFKC", text)
    if config.remove_punctuation:
        text = _PUNCT.sub("", text)
    if config.cjk_only:
        text = _NON_CJK.sub("", text)
    text = _WS.sub(" ", text)
    return text


def normalize(text: str, config: NormalizeConfig = _DEFAULT) -> str:
    """Normalise one text (see the module docstring for the exact steps)."""
    if not isinstance(text, str):
        raise TypeError(f"normalize() needs a str, got {type(text).__name__}")
    return _normalize_joined(_INVISIBLE.sub("", text), _config(config)).strip(" ")


def _config(config: Any) -> NormalizeConfig:
    """``config`` as a :class:`NormalizeConfig` (a mapping of its fields is one)."""
    if isinstance(config, NormalizeConfig):
        return config
    if isinstance(config, Mapping):
        return NormalizeConfig(**config)
    raise TypeError(f"config must be a NormalizeConfig, not {type(config).__name__}")


def encode_texts(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Concatenated UTF-32 code points of ``texts`` and the offsets of each text in them."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    joined = "".join(texts).encode("utf-32-le", "surrogatepass")
    return np.frombuffer(joined, dtype=np.uint32), offsets


def decode_texts(cps: np.ndarray, offsets: np.ndarray) -> list[str]:
    """The inverse of :func:`encode_texts`."""
    joined = cps.tobytes().decode("utf-32-le", "surrogatepass")
    bounds = offsets.tolist()
    return list(map(joined.__getitem__, map(slice, bounds[:-1], bounds[1:])))


def normalize_encoded(
    texts: Sequence[str], config: NormalizeConfig = _DEFAULT
) -> tuple[np.ndarray, np.ndarray]:
    """Normalised texts as code points and offsets (what the fingerprint kernels consume).

    Equal to encoding ``[normalize(t) for t in texts]``. Texts made only of "simple" characters
    (see :mod:`neardup._normtable`) are normalised by a compiled table lookup; the others, and
    every text under non-default options, by the exact Python path.
    """
    for k, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"normalize needs str items, got {type(t).__name__} at position {k}")
    if not config.casefold:
        return encode_texts(normalize_many(texts, config, fast=False))
    if config.remove_punctuation or config.cjk_only:  # the default result, then filtered
        base = replace(config, remove_punctuation=False, cjk_only=False)
        return encode_texts(_filter_many(decode_texts(*normalize_encoded(texts, base)), config))
    from ._kernels import normalize_codepoints
    from ._normtable import norm_table

    cps, offsets = encode_texts(texts)
    out, out_off, complex_docs = normalize_codepoints(cps, offsets, norm_table(), config.strip_html)
    which = np.flatnonzero(complex_docs)
    if not len(which):
        return out, out_off
    slow = normalize_many([texts[i] for i in which.tolist()], config, fast=False)
    repl, repl_off = encode_texts(slow)
    return splice_documents(out, out_off, repl, repl_off, which)


def splice_documents(
    base: np.ndarray,
    base_off: np.ndarray,
    repl: np.ndarray,
    repl_off: np.ndarray,
    which: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The flat documents ``(base, base_off)`` with documents ``which`` (increasing) replaced by
    the flat documents ``(repl, repl_off)``, one each: where the exact Python path redid what
    a compiled one could not. Copies the runs of unchanged documents between two replaced ones
    as slices (one step per replaced document, which the Python path already paid for), into
    the output alone: no index array as large as the text."""
    which = np.asarray(which, np.int64).tolist()
    lengths = np.diff(base_off)
    lengths[which] = np.diff(repl_off)
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    out = np.empty(int(offsets[-1]), base.dtype)
    done = 0  # documents copied so far
    for j, d in enumerate(which):
        out[offsets[done] : offsets[d]] = base[base_off[done] : base_off[d]]
        out[offsets[d] : offsets[d + 1]] = repl[repl_off[j] : repl_off[j + 1]]
        done = d + 1
    out[offsets[done] :] = base[base_off[done] :]
    return out, offsets


def normalize_many(
    texts: Sequence[str] | Iterable[str],
    config: NormalizeConfig = _DEFAULT,
    *,
    chunk_chars: int = 4_000_000,
    fast: bool = True,
) -> list[str]:
    """Normalise many texts; same result as ``[normalize(t) for t in texts]``, several times faster.

    With ``fast`` (the default) most texts go through the compiled table path of
    :func:`normalize_encoded`; the rest are joined with a separator and normalised a few megabytes
    at a time, so the regular expressions and Unicode tables run once per chunk. A ``str`` is
    refused (its characters would be taken for texts).
    """
    if isinstance(texts, str):
        raise TypeError("normalize_many() needs a sequence of str, not a str")
    config = _config(config)
    if fast:
        seq = texts if isinstance(texts, (list, tuple)) else list(texts)
        return decode_texts(*normalize_encoded(seq, config))
    out: list[str] = []
    chunk: list[str] = []
    size = 0
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"normalize_many() needs str items, got {type(text).__name__}")
        chunk.append(text)
        size += len(text)
        if size >= chunk_chars:
            out.extend(_normalize_chunk(chunk, config))
            chunk, size = [], 0
    if chunk:
        out.extend(_normalize_chunk(chunk, config))
    return out


def filter_encoded(
    cps: np.ndarray, offsets: np.ndarray, *, fold_traditional: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Step 5's ``remove_punctuation`` and step 6 on normalised texts given as code points (what
    :func:`normalize_encoded` returns), optionally folding traditional characters to
    simplified ones: one compiled table lookup per character."""
    from ._kernels import normalize_codepoints

    out, out_off, _complex = normalize_codepoints(
        cps, offsets, _punctuation_table(fold_traditional), False
    )
    return out, out_off


@lru_cache(maxsize=2)
def _punctuation_table(fold: bool) -> np.ndarray:
    """Code point -> itself, or DELETE (punctuation, as ``_PUNCT``), or SPACE (white space as
    ``_WS``), or its simplified form (``fold``)."""
    from ._normtable import DELETE, cached_table

    table = cached_table("punctuation", punctuation_digest(), _marked_table).copy()
    if fold:
        from .variants import _table as fold_table

        pairs = np.array(list(fold_table().items()), np.int64).reshape(-1, 2)
        keep = table[pairs[:, 1]] < DELETE  # targets are letters, never punctuation
        table[pairs[keep, 0]] = pairs[keep, 1]
    return table


def punctuation_digest() -> str:
    """What the punctuation table is built from: the contents of this module, which holds
    the patterns and the builder."""
    from pathlib import Path

    from .tablecache import digest_of

    return digest_of([Path(__file__)])


def _marked_table() -> np.ndarray:
    """Code point -> itself, DELETE (``_PUNCT``, and NUL) or SPACE (``_ONE_SPACE``), found by
    the two patterns over every code point at once (0.1 s: cached on disk)."""
    from ._normtable import _N, DELETE, SPACE

    table = np.arange(_N, dtype=np.uint32)
    every = table.copy()
    every[0xD800:0xE000] = every[0] = 0x20  # surrogates cannot be encoded; NUL is a separator
    text = every.tobytes().decode("utf-32-le")
    for pattern, mark in ((_PUNCT, DELETE), (_ONE_SPACE, SPACE)):
        hit = np.frombuffer(pattern.sub("\x00", text).encode("utf-32-le"), np.uint32) == 0
        table[hit] = mark
    table[0] = DELETE  # the separator of joined texts never reaches here
    return table


def _filter_many(normalized: list[str], config: NormalizeConfig) -> list[str]:
    """Steps 5-6 on already normalised texts: removing characters never creates white space, so
    collapsing it again gives what the whole pipeline gives."""
    if not normalized:
        return []
    text = _SEP.join(normalized)
    if config.remove_punctuation:
        text = _PUNCT.sub("", text)
    if config.cjk_only:
        text = _NON_CJK.sub("", text)
    text = _WS_AROUND_SEP.sub(_SEP, _WS.sub(" ", text))
    return [t.strip(" ") for t in text.split(_SEP)]


def _normalize_chunk(chunk: list[str], config: NormalizeConfig) -> list[str]:
    # _INVISIBLE removes NUL from each text, so the separator cannot occur inside one
    joined = _SEP.join(_INVISIBLE.sub("", t) for t in chunk)
    result = _WS_AROUND_SEP.sub(_SEP, _normalize_joined(joined, config)).split(_SEP)
    if len(result) != len(chunk):  # pragma: no cover - a separator was created or lost
        return [normalize(t, config) for t in chunk]
    return [r.strip(" ") for r in result]
