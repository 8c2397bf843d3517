"""NumPy twins of kernels whose result is simple to state: the same arrays, for runs too small
to repay compiling the kernel (:mod:`neardup.compiling`), and the kernels' test oracles."""

from __future__ import annotations

import numpy as np


def _doc_of(offsets: np.ndarray) -> np.ndarray:
    """The document of each position of a flat array cut by ``offsets``."""
    return np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))


def _offsets_of(doc: np.ndarray, documents: int) -> np.ndarray:
    """Offsets of a flat array whose positions belong to ``doc`` (non-decreasing)."""
    out = np.zeros(documents + 1, np.int64)
    np.cumsum(np.bincount(doc, minlength=documents), out=out[1:])
    return out


def sort_per_doc(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each document's values sorted, repeats kept."""
    return values[np.lexsort((values, _doc_of(offsets)))]


def drop_repeats(values: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each document's sorted values without repeats, and the new offsets."""
    doc = _doc_of(offsets)
    keep = np.ones(len(values), np.bool_)
    keep[1:] = (values[1:] != values[:-1]) | (doc[1:] != doc[:-1])
    return values[keep], _offsets_of(doc[keep], len(offsets) - 1)


def kept_where_absent(
    keys: np.ndarray, values: np.ndarray, offsets: np.ndarray, members: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per document, the values whose keys are not in ``members``, and the new offsets."""
    keep = ~np.isin(keys, members)
    return values[keep], _offsets_of(_doc_of(offsets)[keep], len(offsets) - 1)


def _cjk(cps: np.ndarray) -> np.ndarray:
    return (
        ((cps >= 0x3400) & (cps <= 0x4DBF))
        | ((cps >= 0x4E00) & (cps <= 0x9FFF))
        | ((cps >= 0xF900) & (cps <= 0xFAFF))
        | ((cps >= 0x20000) & (cps <= 0x2FA1F))
    )


def token_counts(cps: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Tokens per compared text: CJK characters, plus runs of other non-space characters."""
    cjk = _cjk(cps)
    other = ~cjk & (cps != 32)
    follows = np.zeros(len(cps), np.bool_)  # an other character right after one in its text
    follows[1:] = other[:-1]
    follows[offsets[:-1][np.diff(offsets) > 0]] = False
    starts = cjk | (other & ~follows)
    return np.bincount(_doc_of(offsets)[starts], minlength=len(offsets) - 1).astype(np.int64)


def posting_lists(
    values: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The posting lists of documents' key sets: each entry's key id (in order of first
    appearance), where the documents after its own start in its key's list, the documents of
    each key in increasing order, and the lists' offsets."""
    order = np.argsort(values, kind="stable")  # a key's entries in document order
    ordered = values[order]
    first = np.ones(len(values), np.bool_)
    first[1:] = ordered[1:] != ordered[:-1]
    by_value = np.empty(len(values), np.int64)
    by_value[order] = np.cumsum(first) - 1  # key ids in order of value
    seen = order[first]  # each key's first entry
    rank = np.empty(len(seen), np.int64)
    rank[np.argsort(seen, kind="stable")] = np.arange(len(seen))
    key_ids = rank[by_value]  # key ids in order of first appearance
    entries = np.argsort(key_ids, kind="stable")  # by key, then document
    after = np.empty(len(values), np.int64)
    after[entries] = np.arange(1, len(values) + 1)
    post_off = np.zeros(len(seen) + 1, np.int64)
    np.cumsum(np.bincount(key_ids, minlength=len(seen)), out=post_off[1:])
    return key_ids, after, _doc_of(offsets)[entries], post_off


def smallest_keys(
    values: np.ndarray, offsets: np.ndarray, most: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each document's ``clip(size // 4, min(4, most), most)`` first (smallest) values."""
    sizes = np.diff(offsets)
    k = np.clip(sizes // 4, min(4, most), most)
    rank = np.arange(len(values)) - np.repeat(offsets[:-1], sizes)
    keep = rank < np.repeat(k, sizes)
    new = np.zeros_like(offsets)
    np.cumsum(np.minimum(sizes, k), out=new[1:])
    return values[keep], new


def consistent_sample(
    values: np.ndarray, offsets: np.ndarray, rate: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each document's values ``v % rate == 0``."""
    keep = values % np.uint64(rate) == 0
    new = np.zeros_like(offsets)
    np.cumsum(np.bincount(_doc_of(offsets)[keep], minlength=len(offsets) - 1), out=new[1:])
    return values[keep], new
