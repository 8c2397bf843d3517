"""Compiled hot loops (numba): hashing, fingerprints, Hamming tables, normalisation, sorting.

Per-element loops live only here and in :mod:`neardup._pairkernels` (pairs of documents) and
:mod:`neardup._tokenkernels` (the copy rule's tokenizer); everything else calls them.

The feature hash (part of the fingerprint contract, :data:`neardup.config.FINGERPRINT_VERSION`):
a feature is a sequence of Unicode code points; ``h = 0xcbf29ce484222325``; for each code point
``c``: ``h = (h ^ c) * 0x100000001b3 mod 2**64`` (FNV-1a over code points, not bytes); then the
MurmurHash3 ``fmix64`` finaliser, so that every output bit depends on every input bit.
A word shingle is hashed as its words joined by one space (U+0020).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

from . import twins
from .compiling import small

FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)
SEP = 0  # code point that separates tokens in a token buffer


@intrinsic
def popcount64(typingctx, x):
    """Number of set bits of a uint64, compiled to the CPU's popcount instruction."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@numba.njit(cache=True, nogil=True)
def fmix64(h):
    h ^= h >> _S33
    h *= _M1
    h ^= h >> _S33
    h *= _M2
    h ^= h >> _S33
    return h


@numba.njit(cache=True, nogil=True)
def mix_keys(keys: np.ndarray) -> np.ndarray:
    """``fmix64`` of each 64-bit key (spreads keys evenly, e.g. over Spark partitions)."""
    out = np.empty(keys.shape[0], np.uint64)
    for i in range(keys.shape[0]):
        out[i] = fmix64(np.uint64(keys[i]))
    return out


@numba.njit(cache=True, nogil=True)
def _fnv_step(h, c):
    return (h ^ np.uint64(c)) * FNV_PRIME


@numba.njit(cache=True, nogil=True)
def hash_codepoints(cps: np.ndarray) -> np.uint64:
    """The feature hash of one feature given as code points."""
    h = FNV_OFFSET
    for i in range(cps.shape[0]):
        h = _fnv_step(h, cps[i])
    return fmix64(h)


@numba.njit(cache=True, nogil=True)
def char_ngram_hashes(cps: np.ndarray, offsets: np.ndarray, n: int):
    """Hashes of every character n-gram of every document.

    Document ``d`` is ``cps[offsets[d]:offsets[d+1]]``. A document shorter than ``n`` gives one
    feature (the whole text); an empty one gives none. Returns ``(hashes, hash_offsets)``.
    """
    ndocs = offsets.shape[0] - 1
    out_off = np.empty(ndocs + 1, np.int64)
    out_off[0] = 0
    for d in range(ndocs):
        length = offsets[d + 1] - offsets[d]
        if length == 0:
            count = 0
        elif length < n:
            count = 1
        else:
            count = length - n + 1
        out_off[d + 1] = out_off[d] + count
    hashes = np.empty(out_off[ndocs], np.uint64)
    for d in range(ndocs):
        start = offsets[d]
        length = offsets[d + 1] - start
        width = min(n, length)
        base = out_off[d]
        for j in range(out_off[d + 1] - base):
            h = FNV_OFFSET
            for c in range(width):
                h = _fnv_step(h, cps[start + j + c])
            hashes[base + j] = fmix64(h)
    return hashes, out_off


@numba.njit(cache=True, nogil=True)
def token_hashes(cps: np.ndarray, offsets: np.ndarray, is_word: np.ndarray, shingle: int):
    """Hashes of the word tokens (``shingle == 1``) or word shingles of every document.

    Each document is a run of tokens separated by ``SEP`` code points. Tokens with no word
    character (``is_word[cp]`` for some code point; code points beyond the table count as word
    characters) are dropped. A shingle of ``n`` words is hashed as the words joined by a space;
    a document with fewer than ``n`` words gives one shingle of all its words.
    """
    ndocs = offsets.shape[0] - 1
    total = offsets[ndocs]
    starts = np.empty(total + 1, np.int64)
    ends = np.empty(total + 1, np.int64)
    tok_off = np.empty(ndocs + 1, np.int64)
    tok_off[0] = 0
    ntok = 0
    table = is_word.shape[0]
    for d in range(ndocs):
        i = offsets[d]
        stop = offsets[d + 1]
        while i < stop:
            j = i
            word = False
            while j < stop and cps[j] != SEP:
                c = cps[j]
                if c >= table or is_word[c]:
                    word = True
                j += 1
            if word:
                starts[ntok] = i
                ends[ntok] = j
                ntok += 1
            i = j + 1
        tok_off[d + 1] = ntok
    out_off = np.empty(ndocs + 1, np.int64)
    out_off[0] = 0
    for d in range(ndocs):
        k = tok_off[d + 1] - tok_off[d]
        if k == 0:
            cnt = 0
        elif k < shingle:
            cnt = 1
        else:
            cnt = k - shingle + 1
        out_off[d + 1] = out_off[d] + cnt
    hashes = np.empty(out_off[ndocs], np.uint64)
    for d in range(ndocs):
        t0 = tok_off[d]
        k = tok_off[d + 1] - t0
        width = min(shingle, k)
        for s in range(out_off[d + 1] - out_off[d]):
            h = FNV_OFFSET
            for w in range(width):
                if w > 0:
                    h = _fnv_step(h, 32)
                t = t0 + s + w
                for p in range(starts[t], ends[t]):
                    h = _fnv_step(h, cps[p])
            hashes[out_off[d] + s] = fmix64(h)
    return hashes, out_off


@numba.njit(cache=True, nogil=True)
def _accumulate(acc: np.ndarray, h: np.uint64, w: float) -> None:
    for b in range(64):
        if (h >> np.uint64(b)) & np.uint64(1):
            acc[b] += w
        else:
            acc[b] -= w


@numba.njit(cache=True, nogil=True)
def _sign_bits(acc: np.ndarray) -> np.uint64:
    fp = np.uint64(0)
    for b in range(64):
        if acc[b] > 0:
            fp |= np.uint64(1) << np.uint64(b)
    return fp


@numba.njit(cache=True, nogil=True)
def simhash_counts(hashes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """SimHash with weight 1 per occurrence (term-frequency weighting), exact integer arithmetic.

    Bit ``b`` is set when more feature occurrences have bit ``b`` set than clear; a tie gives 0.
    """
    ndocs = offsets.shape[0] - 1
    out = np.zeros(ndocs, np.uint64)
    ones = np.zeros(64, np.int64)
    for d in range(ndocs):
        ones[:] = 0
        lo = offsets[d]
        hi = offsets[d + 1]
        for i in range(lo, hi):
            h = hashes[i]
            for b in range(64):
                ones[b] += (h >> np.uint64(b)) & np.uint64(1)
        total = hi - lo
        fp = np.uint64(0)
        for b in range(64):
            if 2 * ones[b] > total:
                fp |= np.uint64(1) << np.uint64(b)
        out[d] = fp
    return out


@numba.njit(cache=True, nogil=True)
def simhash_weighted(hashes: np.ndarray, weights: np.ndarray, offsets: np.ndarray, unique: bool):
    """SimHash with a weight per feature occurrence (``unique``: each distinct hash once, weight 1).

    Bit ``b`` is set when the summed weight of features with bit ``b`` set exceeds that of features
    with it clear (a tie gives 0).
    """
    ndocs = offsets.shape[0] - 1
    out = np.zeros(ndocs, np.uint64)
    acc = np.zeros(64, np.float64)
    for d in range(ndocs):
        acc[:] = 0.0
        lo = offsets[d]
        hi = offsets[d + 1]
        if unique:
            hs = np.sort(hashes[lo:hi])
            for i in range(hs.shape[0]):
                if i == 0 or hs[i] != hs[i - 1]:
                    _accumulate(acc, hs[i], 1.0)
        else:
            for i in range(lo, hi):
                _accumulate(acc, hashes[i], weights[i])
        out[d] = _sign_bits(acc)
    return out


@numba.njit(cache=True, nogil=True)
def popcount_xor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty(a.shape[0], np.int16)
    for i in range(a.shape[0]):
        out[i] = popcount64(a[i] ^ b[i])
    return out


@numba.njit(cache=True, nogil=True)
def popcount_against(fps: np.ndarray, q: np.uint64) -> np.ndarray:
    out = np.empty(fps.shape[0], np.int16)
    for i in range(fps.shape[0]):
        out[i] = popcount64(fps[i] ^ q)
    return out


# -- permuted-table Hamming search -----------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _first_table(x, masks) -> int:
    """Index of the first table whose key bits all agree for a pair with xor ``x``."""
    for t in range(masks.shape[0]):
        if (x & masks[t]) == 0:
            return t
    return -1


@numba.njit(cache=True, nogil=True)
def _grow(arr, size):
    out = np.empty(max(size, 2 * arr.shape[0]), arr.dtype)
    out[: arr.shape[0]] = arr
    return out


@numba.njit(cache=True, nogil=True)
def _scan_runs(vals, order, keys_sorted, table, masks, k, left, right, dist, fill):
    n = vals.shape[0]
    count = 0
    i = 0
    while i < n:
        j = i + 1
        key = keys_sorted[i]
        while j < n and keys_sorted[j] == key:
            j += 1
        for p in range(i, j - 1):
            fa = vals[p]
            for q in range(p + 1, j):
                x = fa ^ vals[q]
                d = popcount64(x)
                if d <= k and _first_table(x, masks) == table:
                    if fill:
                        a = order[p]
                        b = order[q]
                        left[count] = min(a, b)
                        right[count] = max(a, b)
                        dist[count] = d
                    count += 1
        i = j
    return count


@numba.njit(cache=True, nogil=True)
def scan_table_pairs(fps, order, keys_sorted, table, masks, k):
    """All pairs within ``k`` among fingerprints that share a key in ``table``.

    ``order`` sorts ``fps`` by key (``keys_sorted`` are the sorted keys). A pair is emitted only
    by the first table in which it shares a key, so each pair comes out once over all tables.
    Two passes (count, then fill) keep the inner loop free of allocation.
    """
    n = order.shape[0]
    vals = np.empty(
        n, np.uint64
    )  # fingerprints in key order: the inner loop reads them in sequence
    for p in range(n):
        vals[p] = fps[order[p]]
    none64 = np.empty(0, np.int64)
    count = _scan_runs(
        vals, order, keys_sorted, table, masks, k, none64, none64, np.empty(0, np.int16), False
    )
    left = np.empty(count, np.int64)
    right = np.empty(count, np.int64)
    dist = np.empty(count, np.int16)
    _scan_runs(vals, order, keys_sorted, table, masks, k, left, right, dist, True)
    return left, right, dist


@numba.njit(cache=True, nogil=True)
def query_tables(keys, positions, fps, alive, masks, q, k, out_pos, out_dist, count):
    """Online query of one segment: sorted per-table ``keys`` with global ``positions``."""
    for t in range(masks.shape[0]):
        key = q & masks[t]
        row = keys[t]
        lo = np.searchsorted(row, key, side="left")
        hi = np.searchsorted(row, key, side="right")
        for s in range(lo, hi):
            p = positions[t, s]
            if not alive[p]:
                continue
            x = fps[p] ^ q
            d = popcount64(x)
            if d <= k and _first_table(x, masks) == t:
                if count == out_pos.shape[0]:
                    out_pos = _grow(out_pos, count + 1)
                    out_dist = _grow(out_dist, count + 1)
                out_pos[count] = p
                out_dist[count] = d
                count += 1
    return out_pos, out_dist, count


@numba.njit(cache=True, nogil=True)
def scan_linear(fps, alive, lo, hi, q, k, out_pos, out_dist, count):
    """Linear scan of positions ``[lo, hi)`` (the not-yet-tabled tail of an online index)."""
    for p in range(lo, hi):
        if not alive[p]:
            continue
        d = popcount64(fps[p] ^ q)
        if d <= k:
            if count == out_pos.shape[0]:
                out_pos = _grow(out_pos, count + 1)
                out_dist = _grow(out_dist, count + 1)
            out_pos[count] = p
            out_dist[count] = d
            count += 1
    return out_pos, out_dist, count


# -- normalisation fast path (see neardup._normtable) ----------------------------------------

_DELETE = np.uint32(0xFFFFFFFF)
_SPACE = np.uint32(0xFFFFFFFE)
_COMPLEX = np.uint32(0xFFFFFFFD)
_EXPAND = np.uint32(0x80000000)
_CODE_POINTS = 0x110000  # a table's entries per code point; its expansions come after them


@numba.njit(cache=True, nogil=True, inline="always")
def _tag_end(cps, i, end):
    """Where the tag that opens at ``cps[i]`` (a ``<``) closes (its ``>``), or -1: a tag as
    :data:`neardup.normalize._TAG` finds one — ``<``, a letter, ``!``, ``/`` or ``?``, then no
    ``<``, ``>`` or NUL up to the ``>`` — and not one that may open a script or style block
    (after ``<s`` or ``<S``). A ``<`` that opens no tag may form one once the tags after it are
    removed, and a script block is removed whole: both are left to the Python path."""
    if i + 1 >= end:
        return -1
    c = cps[i + 1]
    letter = (65 <= c <= 90) or (97 <= c <= 122) or c == 33 or c == 47 or c == 63
    if not letter or c == 83 or c == 115:
        return -1
    for j in range(i + 2, end):
        c = cps[j]
        if c == 62:
            return j
        if c == 60 or c == 0:
            return -1
    return -1


@numba.njit(cache=True, nogil=True)
def normalize_codepoints(cps, offsets, table, html):
    """Map code points through the normalisation table, fold white space, strip the ends.

    Returns ``(out, out_offsets, complex)``; a document flagged complex has no output here and
    must be normalised by the exact Python path. An entry ``EXPAND + k`` writes the expansion
    at ``table[0x110000 + k]`` (:mod:`neardup._normtable`); a document whose expansions
    would outgrow the output's room (a quarter more than the input, with room kept for the
    rest of the input at one code point each) is flagged complex too.
    """
    ndocs = offsets.shape[0] - 1
    out = np.empty(cps.shape[0] + cps.shape[0] // 4 + 16, np.uint32)
    out_off = np.empty(ndocs + 1, np.int64)
    cx = np.zeros(ndocs, np.bool_)
    w = 0
    out_off[0] = 0
    for d in range(ndocs):
        start = w
        pending = False
        skip = 0
        for i in range(offsets[d], offsets[d + 1]):
            c = cps[i]
            if skip > 0:  # inside a tag
                skip -= 1
                continue
            if html and c == 60:  # '<': a tag is white space; anything else, the Python path
                close = _tag_end(cps, i, offsets[d + 1])
                if close < 0:
                    cx[d] = True
                    break
                pending = w > start
                skip = close - i
                continue
            if html and c == 38:  # '&'
                cx[d] = True
                break
            v = table[c]
            if v == _COMPLEX:
                cx[d] = True
                break
            if v == _DELETE:
                continue
            if v == _SPACE:
                pending = w > start
                continue
            if v >= _EXPAND:  # several code points (the markers above are handled)
                at = _CODE_POINTS + np.int64(v - _EXPAND)
                length = np.int64(table[at])
                # room for it, a space before it and one code point per input code point left
                if w + 1 + length + (cps.shape[0] - i - 1) > out.shape[0]:
                    cx[d] = True
                    break
                if pending:
                    out[w] = 32
                    w += 1
                    pending = False
                for j in range(length):
                    out[w + j] = table[at + 1 + j]
                w += length
                continue
            if pending:
                out[w] = 32
                w += 1
                pending = False
            out[w] = v
            w += 1
        if cx[d]:
            w = start
        out_off[d + 1] = w
    return out[:w], out_off, cx


# -- sets, exact duplicates and the m-gram candidate index ------------------------------------


SMALL_BUCKET = 32  # values: sorted by insertion; a larger bucket (repeats, or bad luck) by heapsort
MAX_BUCKET_BITS = 20  # a million buckets at most: the scratch stays 8 MB for one long array


@numba.njit(cache=True, nogil=True)
def _sort_hashes(src, lo, hi, dst, start, counts):
    """``src[lo:hi]`` (64-bit hashes, spread evenly) sorted into ``dst[start:]``: scattered by
    their top bits into about as many buckets as values, each bucket then sorted on its own
    (insertion, or heapsort past ``SMALL_BUCKET`` values) — expected linear time, and
    O(n log n) at worst. numba's ``np.sort`` costs a second of compiling; this, written as one
    function, a fraction. ``counts``: scratch of ``2 ** min(ceil(log2(hi - lo)),
    MAX_BUCKET_BITS) + 1`` integers at least."""
    n = hi - lo
    bits = 0
    while (1 << bits) < n and bits < MAX_BUCKET_BITS:
        bits += 1
    buckets = 1 << bits
    shift = np.uint64(64 - bits) if bits > 0 else np.uint64(63)
    for b in range(buckets + 1):
        counts[b] = 0
    for i in range(lo, hi):
        counts[(np.int64(src[i] >> shift) if bits > 0 else 0) + 1] += 1
    for b in range(buckets):
        counts[b + 1] += counts[b]
    for i in range(lo, hi):  # counts[b]: the next free place of bucket b
        b = np.int64(src[i] >> shift) if bits > 0 else 0
        dst[start + counts[b]] = src[i]
        counts[b] += 1
    first = 0  # counts[b] is now the end of bucket b
    for b in range(buckets):
        a0, a1 = start + first, start + counts[b]
        first = counts[b]
        if a1 - a0 <= SMALL_BUCKET:  # insertion sort
            for i in range(a0 + 1, a1):
                v = dst[i]
                j = i - 1
                while j >= a0 and dst[j] > v:
                    dst[j + 1] = dst[j]
                    j -= 1
                dst[j + 1] = v
            continue
        m = a1 - a0  # heapsort of dst[a0:a1]
        for k in range(2 * m - 1, 0, -1):  # heapify (k >= m), then pop (k < m)
            if k >= m:
                root, end = k - m, m
                if root >= m // 2:
                    continue
            else:
                dst[a0], dst[a0 + k] = dst[a0 + k], dst[a0]
                root, end = 0, k
            while True:  # sift down
                child = 2 * root + 1
                if child >= end:
                    break
                if child + 1 < end and dst[a0 + child] < dst[a0 + child + 1]:
                    child += 1
                if dst[a0 + root] >= dst[a0 + child]:
                    break
                dst[a0 + root], dst[a0 + child] = dst[a0 + child], dst[a0 + root]
                root = child


def unique_per_doc(hashes, offsets):
    """Sort each document's hashes and drop repeats; returns ``(values, offsets)``.

    Sorting is :func:`sort_per_doc`'s, the repeats are dropped by a small kernel of its own:
    a kernel that called :func:`_sort_hashes` itself would compile it a second time (about half
    a second on a first run, where every kernel compiles)."""
    ordered = sort_per_doc(np.asarray(hashes, np.uint64), offsets)
    if small(len(ordered)):
        return twins.drop_repeats(ordered, offsets)
    return _drop_repeats(ordered, offsets)


@numba.njit(cache=True, nogil=True)
def _drop_repeats(values, offsets):
    """Each document's run of sorted ``values`` without repeats, in place; returns ``(values,
    offsets)`` (a prefix of ``values``)."""
    ndocs = offsets.shape[0] - 1
    out_off = np.empty(ndocs + 1, np.int64)
    out_off[0] = 0
    w = 0
    for d in range(ndocs):
        start = w
        for i in range(offsets[d], offsets[d + 1]):  # in place: w <= i
            if w == start or values[i] != values[w - 1]:
                values[w] = values[i]
                w += 1
        out_off[d + 1] = w
    return values[:w], out_off


@numba.njit(cache=True, nogil=True)
def smallest_keys(values, offsets, most):
    """Each document's ``clip(size // 4, min(4, most), most)`` first values (its smallest:
    each document's values are sorted), and their offsets: one pass."""
    ndocs = offsets.shape[0] - 1
    out_off = np.empty(ndocs + 1, np.int64)
    out_off[0] = 0
    total = 0
    for d in range(ndocs):
        size = offsets[d + 1] - offsets[d]
        total += min(size, max(min(size // 4, most), min(4, most)))
        out_off[d + 1] = total
    out = np.empty(total, values.dtype)
    for d in range(ndocs):
        k = out_off[d + 1] - out_off[d]
        for i in range(k):
            out[out_off[d] + i] = values[offsets[d] + i]
    return out, out_off


@numba.njit(cache=True, nogil=True)
def consistent_sample(values, offsets, rate):
    """Each document's values ``v % rate == 0`` (``rate`` a power of two: a mask, not a
    division), and their offsets: one pass to count, one to copy."""
    ndocs = offsets.shape[0] - 1
    mask = np.uint64(rate - 1)
    out_off = np.empty(ndocs + 1, np.int64)
    out_off[0] = 0
    total = 0
    for d in range(ndocs):
        for i in range(offsets[d], offsets[d + 1]):
            if (values[i] & mask) == 0:
                total += 1
        out_off[d + 1] = total
    out = np.empty(total, values.dtype)
    w = 0
    for d in range(ndocs):
        for i in range(offsets[d], offsets[d + 1]):
            if (values[i] & mask) == 0:
                out[w] = values[i]
                w += 1
    return out, out_off


def kept_where_absent(keys, values, offsets, members):
    """Per document of ``(values, offsets)``, the values whose ``keys`` are not in ``members``
    (:func:`_kept_where_absent`; a small run, :mod:`neardup.compiling`: its NumPy twin)."""
    if small(len(values)):
        return twins.kept_where_absent(keys, values, offsets, members)
    return _kept_where_absent(keys, values, offsets, members)


@numba.njit(cache=True, nogil=True)
def _kept_where_absent(keys, values, offsets, members):
    """Per document of ``(values, offsets)``, the values whose ``keys`` (the same positions)
    are not in ``members`` (hash values, looked up in an open-addressing table); returns
    ``(values, offsets)``. With ``keys`` the values themselves: each set without the members
    (a text's rare grams); with its written grams as keys: a text's heard grams where its
    written gram is rare."""
    size = 1
    while size < 2 * members.shape[0] + 2:
        size *= 2
    mask = np.uint64(size - 1)
    slots = np.zeros(size, np.uint64)
    used = np.zeros(size, np.bool_)
    for m in members:
        k = m & mask
        while used[k] and slots[k] != m:
            k = (k + np.uint64(1)) & mask
        slots[k] = m
        used[k] = True
    out = np.empty(values.shape[0], np.uint64)
    out_off = np.empty(offsets.shape[0], np.int64)
    out_off[0] = 0
    w = 0
    for d in range(offsets.shape[0] - 1):
        for i in range(offsets[d], offsets[d + 1]):
            v = keys[i]
            k = v & mask
            found = False
            while used[k]:
                if slots[k] == v:
                    found = True
                    break
                k = (k + np.uint64(1)) & mask
            if not found:
                out[w] = values[i]
                w += 1
        out_off[d + 1] = w
    return out[:w], out_off


def sort_per_doc(values, offsets):
    """Each document's values (64-bit hashes) sorted, repeats kept (:func:`_sort_per_doc`; a
    small run, :mod:`neardup.compiling`: its NumPy twin)."""
    if small(len(values)):
        return twins.sort_per_doc(values, offsets)
    return _sort_per_doc(values, offsets)


@numba.njit(cache=True, nogil=True)
def _sort_per_doc(values, offsets):
    """Each document's values (64-bit hashes) sorted, repeats kept (:func:`_sort_hashes`)."""
    out = np.empty_like(values)
    longest = 1
    for d in range(offsets.shape[0] - 1):
        longest = max(longest, offsets[d + 1] - offsets[d])
    counts = np.empty(min(2 * longest, 1 << MAX_BUCKET_BITS) + 2, np.int64)  # the buckets + 1
    for d in range(offsets.shape[0] - 1):
        _sort_hashes(values, offsets[d], offsets[d + 1], out, offsets[d], counts)
    return out


@numba.njit(cache=True, nogil=True)
def document_hashes(cps, offsets):
    """One 64-bit hash of each whole document (for grouping identical texts)."""
    ndocs = offsets.shape[0] - 1
    out = np.empty(ndocs, np.uint64)
    for d in range(ndocs):
        h = FNV_OFFSET ^ np.uint64(offsets[d + 1] - offsets[d])
        for i in range(offsets[d], offsets[d + 1]):
            h = _fnv_step(h, cps[i])
        out[d] = fmix64(h)
    return out


@numba.njit(cache=True, nogil=True)
def _utf8_valid(data) -> bool:
    """Whether the bytes ``data`` are UTF-8 (RFC 3629: shortest forms, no surrogates, at most
    U+10FFFF), as Python's strict decoder judges them."""
    n = data.shape[0]
    i = 0
    while i < n:
        c = data[i]
        if c < 0x80:
            i += 1
            continue
        if 0xE1 <= c <= 0xEC or 0xEE <= c <= 0xEF:  # most CJK: three bytes, no special case
            if i + 2 >= n or (data[i + 1] & 0xC0) != 0x80 or (data[i + 2] & 0xC0) != 0x80:
                return False
            i += 3
            continue
        if c < 0xC2 or c > 0xF4:
            return False  # a continuation byte, an overlong two-byte lead, past U+10FFFF
        if c < 0xE0:
            if i + 1 >= n or (data[i + 1] & 0xC0) != 0x80:
                return False
            i += 2
            continue
        more = 2 if c < 0xF0 else 3
        if i + more >= n:
            return False  # cut inside a character
        low, high = 0x80, 0xBF  # the allowed range of the second byte
        if c == 0xE0:
            low = 0xA0  # no overlong three-byte form
        elif c == 0xED:
            high = 0x9F  # no surrogate
        elif c == 0xF0:
            low = 0x90  # no overlong four-byte form
        elif c == 0xF4:
            high = 0x8F  # nothing past U+10FFFF
        if data[i + 1] < low or data[i + 1] > high:
            return False
        for k in range(2, more + 1):
            if (data[i + k] & 0xC0) != 0x80:
                return False
        i += more + 1
    return True


def utf8_valid(data: bytes) -> bool:
    """Whether ``data`` is UTF-8: ASCII at once, a small run by decoding it (the kernel's
    twin, :mod:`neardup.compiling`), else :func:`_utf8_valid` (about 1 GB/s, twice as fast as
    decoding Chinese text)."""
    if data.isascii():
        return True
    if small(len(data)):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True
    return bool(_utf8_valid(np.frombuffer(data, np.uint8)))
