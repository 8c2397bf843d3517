"""Compiled hot loops (numba). The only module with per-element loops; everything else calls these.

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


@numba.njit(cache=True, nogil=True)
def normalize_codepoints(cps, offsets, table, html):
    """Map code points through the normalisation table, fold white space, strip the ends.

    Returns ``(out, out_offsets, complex)``; a document flagged complex has no output here and
    must be normalised by the exact Python path.
    """
    ndocs = offsets.shape[0] - 1
    out = np.empty(cps.shape[0], np.uint32)
    out_off = np.empty(ndocs + 1, np.int64)
    cx = np.zeros(ndocs, np.bool_)
    w = 0
    out_off[0] = 0
    for d in range(ndocs):
        start = w
        pending = False
        for i in range(offsets[d], offsets[d + 1]):
            c = cps[i]
            if html and (c == 60 or c == 38):  # '<' or '&'
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


@numba.njit(cache=True, nogil=True)
def docs_holding(cps, offsets, starts, needles, needle_off):
    """Which documents hold a code point ``c`` with ``starts[c]`` equal to 1 (a character that
    is a trigger alone) or a string of ``needles`` (flat code points, ``needle_off`` offsets),
    each of whose first characters has ``starts`` equal to 2: the texts that can hold markup
    (:func:`neardup.markup.markup_candidates`). One table lookup per character."""
    ndocs = offsets.shape[0] - 1
    found = np.zeros(ndocs, np.bool_)
    size = starts.shape[0]
    for d in range(ndocs):
        end = offsets[d + 1]
        for i in range(offsets[d], end):
            c = cps[i]
            if c >= size or starts[c] == 0:
                continue
            if starts[c] == 1:
                found[d] = True
                break
            for k in range(needle_off.shape[0] - 1):
                lo, hi = needle_off[k], needle_off[k + 1]
                if i + hi - lo <= end:
                    j = 0
                    while j < hi - lo and cps[i + j] == needles[lo + j]:
                        j += 1
                    if j == hi - lo:
                        found[d] = True
            if found[d]:
                break
    return found


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


@numba.njit(cache=True, nogil=True)
def unique_per_doc(hashes, offsets):
    """Sort each document's hashes and drop repeats; returns ``(values, offsets)``."""
    ndocs = offsets.shape[0] - 1
    out = np.empty(hashes.shape[0], np.uint64)
    out_off = np.empty(ndocs + 1, np.int64)
    out_off[0] = 0
    longest = 1
    for d in range(ndocs):
        longest = max(longest, offsets[d + 1] - offsets[d])
    counts = np.empty(min(2 * longest, 1 << MAX_BUCKET_BITS) + 2, np.int64)  # the buckets + 1
    w = 0
    for d in range(ndocs):
        start = w
        _sort_hashes(hashes, offsets[d], offsets[d + 1], out, start, counts)
        for i in range(start, start + offsets[d + 1] - offsets[d]):  # in place: w <= i
            if i == start or out[i] != out[w - 1]:
                out[w] = out[i]
                w += 1
        out_off[d + 1] = w
    return out[:w], out_off


@numba.njit(cache=True, nogil=True)
def kept_where_absent(keys, values, offsets, members):
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


@numba.njit(cache=True, nogil=True)
def sort_per_doc(values, offsets):
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
def _intersection_at_least(a, alo, ahi, b, blo, bhi, need):
    """Like :func:`_intersection`, but -1 as soon as fewer than ``need`` common values remain
    possible."""
    i = alo
    j = blo
    common = 0
    while i < ahi and j < bhi:
        if common + min(ahi - i, bhi - j) < need:
            return -1
        if a[i] == b[j]:
            common += 1
            i += 1
            j += 1
        elif a[i] < b[j]:
            i += 1
        else:
            j += 1
    return common if common >= need else -1


@numba.njit(cache=True, nogil=True)
def _intersection(a, alo, ahi, b, blo, bhi):
    """Number of values two sorted unique runs share."""
    return _intersection_at_least(a, alo, ahi, b, blo, bhi, 0)


@numba.njit(cache=True, nogil=True)
def jaccard_at_least(values, offsets, left, right, floor):
    """Jaccard of sorted unique sets ``left[p]`` and ``right[p]`` (two empty sets: 1) where it
    reaches ``floor``, -1 where it certainly does not: Jaccard >= f needs ``f (|A| + |B|) /
    (1 + f)`` common values, and the merge stops once they are out of reach (floor 0: exact)."""
    out = np.empty(left.shape[0], np.float32)
    for p in range(left.shape[0]):
        a = left[p]
        b = right[p]
        na = offsets[a + 1] - offsets[a]
        nb = offsets[b + 1] - offsets[b]
        if na == 0 and nb == 0:
            out[p] = 1.0
            continue
        need = int(np.ceil(floor * (na + nb) / (1.0 + floor) - 1e-9))
        common = _intersection_at_least(
            values, offsets[a], offsets[a + 1], values, offsets[b], offsets[b + 1], need
        )
        out[p] = -1.0 if common < 0 else common / (na + nb - common)
    return out


@numba.njit(cache=True, nogil=True)
def pair_shapes(
    grams, offsets, sample, sample_off, sketch, sketch_off, tokens, left, right, text, bounds, rate
):
    """Whether each pair ``(left[p], right[p])`` can pass on its sizes and rare-gram shares,
    whether the short-text rule judges it, and its rare-gram containment and coverage (the
    shapes of :meth:`neardup.methods.auto.AutoMethod`): one pass, no array per step.

    ``bounds``: short_tokens, min_rare_grams, typo_tokens, min(short_similarity, coverage),
    containment, coverage, text_threshold, the full sketch size and the sketch keys two full
    sketches must share (0: no such test); ``rate``: the sample's (:func:`common_counts`).
    ``text``: rare-gram Jaccard decides instead. A ratio over an empty set is 0. Counts go
    through :func:`_common_count` (the sampled test, then the exact merge), only for pairs whose
    set sizes can pass and, when both texts have full sketches and at least ``typo_tokens``
    tokens (the grams decide), whose sketches share enough keys.
    """
    short_tokens, min_grams, typo_tokens, low = bounds[0], bounds[1], bounds[2], bounds[3]
    containment, coverage, text_threshold = bounds[4], bounds[5], bounds[6]
    full, shared_keys = int(bounds[7]), int(bounds[8])
    n = left.shape[0]
    possible = np.zeros(n, np.bool_)
    strict = np.zeros(n, np.bool_)
    contain = np.zeros(n, np.float64)
    cover = np.zeros(n, np.float64)
    for p in range(n):
        a = left[p]
        b = right[p]
        ta = float(tokens[a])
        tb = float(tokens[b])
        sa = float(offsets[a + 1] - offsets[a])
        sb = float(offsets[b + 1] - offsets[b])
        small = min(sa, sb)
        large = max(sa, sb)
        few = min(ta, tb)
        many = max(ta, tb)
        is_strict = few < short_tokens or small < min_grams
        ratio = small / large if large > 0 else 0.0
        if text:
            need = np.ceil(text_threshold * (sa + sb) / (1.0 + text_threshold) - 1e-9)
            maybe = ratio >= text_threshold and small > 0
        else:
            need = np.ceil(max(containment * small, coverage * large) - 1e-9)
            maybe = not is_strict and ratio >= coverage
        if maybe and shared_keys > 0 and few >= typo_tokens:
            ka, kb = sketch_off[a], sketch_off[b]
            if sketch_off[a + 1] - ka >= full and sketch_off[b + 1] - kb >= full:
                got = _intersection_at_least(
                    sketch, ka, sketch_off[a + 1], sketch, kb, sketch_off[b + 1], shared_keys
                )
                maybe = got >= 0
        common = 0.0
        if maybe:
            least = max(int(need), 1)
            got = _common_count(grams, offsets, sample, sample_off, a, b, least, rate)
            common = float(max(got, 0))
        c_small = common / small if small > 0 else 0.0
        c_large = common / large if large > 0 else 0.0
        if text:
            union = sa + sb - common
            jaccard = common / union if union > 0 else 0.0
            possible[p] = jaccard >= text_threshold and small > 0
        else:
            grams_pass = c_small >= containment and c_large >= coverage
            # a few typos destroy most grams of a short text: judge it on its tokens instead
            if not grams_pass and few < typo_tokens:
                is_strict = True
            if is_strict:
                possible[p] = (few / many if many > 0 else 0.0) >= low
            else:
                possible[p] = grams_pass
        strict[p] = is_strict
        contain[p] = c_small
        cover[p] = c_large
    return possible, strict, contain, cover


@numba.njit(cache=True, nogil=True)
def _common_count(values, offsets, sample, sample_off, a, b, need, rate):
    """:func:`common_counts` of the pair ``(a, b)``."""
    if rate > 0:
        expected = need / rate
        if expected >= 16.0:
            least = int(np.ceil(expected - 4.0 * np.sqrt(expected)))
            if least > 0:
                lo_a, hi_a = sample_off[a], sample_off[a + 1]
                lo_b, hi_b = sample_off[b], sample_off[b + 1]
                if _intersection_at_least(sample, lo_a, hi_a, sample, lo_b, hi_b, least) < 0:
                    return -1
    return _intersection_at_least(
        values, offsets[a], offsets[a + 1], values, offsets[b], offsets[b + 1], need
    )


@numba.njit(cache=True, nogil=True)
def common_counts(values, offsets, sample, sample_off, left, right, need, rate):
    """Size of the intersection of sorted unique sets ``left[p]`` and ``right[p]``, or -1 when
    it is below ``need[p]`` (found out early, in the merge), or certainly so by the consistent sample of the
    sets (``sample``: the values ``v % rate == 0``; ``rate`` 0 means no sample) holding more
    than 4 standard deviations fewer common values than ``need[p]`` would give. The sampled
    test decides only where the expected sampled count is at least 16, so a pair at the bound
    is dropped with probability below 1e-4, and counts are exact wherever they are returned.
    """
    out = np.empty(left.shape[0], np.int64)
    for p in range(left.shape[0]):
        out[p] = _common_count(
            values, offsets, sample, sample_off, left[p], right[p], need[p], rate
        )
    return out


@numba.njit(cache=True, nogil=True)
def bucket_bound(counts, row, lengths, needs, left, right, strict):
    """Which pairs ``(left[p], right[p])`` may share enough items: every pair but those with
    ``strict[p]`` whose texts both have a row (``row``, -1: none) of ``counts`` (items per
    bucket) and ``sum_k min(counts[ra, k], counts[rb, k]) < needs[short, long]``, by the two
    rows' ``lengths``."""
    out = np.ones(left.shape[0], np.bool_)
    buckets = counts.shape[1]
    for p in range(left.shape[0]):
        if not strict[p]:
            continue
        ra = row[left[p]]
        rb = row[right[p]]
        if ra < 0 or rb < 0:
            continue
        la = lengths[ra]
        lb = lengths[rb]
        a = counts[ra]
        b = counts[rb]
        shared = 0
        for k in range(buckets):
            shared += min(a[k], b[k])
        out[p] = shared >= needs[min(la, lb), max(la, lb)]
    return out


@numba.njit(cache=True, nogil=True)
def key_candidates(doc_keys, doc_off, post_docs, post_off, key_ok, lo, hi, out_l, out_r, counts):
    """Pairs ``x < y`` (``x`` in ``[lo, hi)``) sharing at least one usable key, each once:
    ``counts[x - lo]`` gets the number of ``x``'s pairs, and the pairs are written to ``out_l``
    and ``out_r`` when they have room (empty arrays: count only, the first of two passes).

    ``doc_keys`` are each document's distinct key ids; ``post_docs[post_off[k]:post_off[k+1]]``
    lists the documents holding key ``k`` in increasing order.
    """
    fill = out_l.shape[0] > 0
    mark = np.full(doc_off.shape[0] - 1, -1, np.int64)
    w = 0
    for x in range(lo, hi):
        start = w
        for i in range(doc_off[x], doc_off[x + 1]):
            k = doc_keys[i]
            if not key_ok[k]:
                continue
            for j in range(post_off[k], post_off[k + 1]):
                y = post_docs[j]
                if y <= x or mark[y] == x:
                    continue
                mark[y] = x
                if fill:
                    out_l[w] = x
                    out_r[w] = y
                w += 1
        counts[x - lo] = w - start
    return w


@numba.njit(cache=True, nogil=True)
def _is_cjk(c):
    return (
        (0x3400 <= c <= 0x4DBF)
        or (0x4E00 <= c <= 0x9FFF)
        or (0xF900 <= c <= 0xFAFF)
        or (0x20000 <= c <= 0x2FA1F)
    )


@numba.njit(cache=True, nogil=True)
def token_counts(cps, offsets):
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
#: or 第, which makes the number after it a date.
TOKEN_DIGIT = 1
TOKEN_DATED = 2
TOKEN_UNIT = 4
TOKEN_BEFORE_DATE = 8


@numba.njit(cache=True, nogil=True)
def _run_flags(length, digits, head):
    """The flags of a run of letters and digits from its length, digit count and first two
    characters (``head``, base 256)."""
    if digits == 0:
        return 0
    year = length == 4 and digits == 4 and (head == 49 * 256 + 57 or head == 50 * 256 + 48)
    return TOKEN_DIGIT | (TOKEN_DATED if length >= 5 or year else 0)


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
                    if not in_run:
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
def one_replaced(codes, offsets, flags, left, right, moved_lo, moved_hi):
    """The value test of the copy rule (:func:`neardup.copyrule._value_changes`) for pairs whose
    token sequences differ in one token replaced by another, and its outcome: ``(handled,
    changed, hard)`` per pair.

    Handled: both have the same number of tokens, not in ``[moved_lo, moved_hi)`` (where moved
    passages might be looked for), they differ at exactly one position ``p``, and neither
    token there equals a neighbour of itself (so the one longest-common-subsequence alignment
    is that substitution). Then a value changed when both replaced tokens hold a digit and
    ``p`` is interior (not the first or last token: wrapping and truncation change ends), and
    the change is hard when both hold a digit and one is a year or identifier, or the token
    after is a date unit, or the one before a month or 第.
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
        handled[k] = True
        fx, fy = flags[a0 + p], flags[b0 + p]
        if not (fx & TOKEN_DIGIT and fy & TOKEN_DIGIT):
            continue
        changed[k] = 0 < p < size - 1
        hard[k] = (
            (fx | fy) & TOKEN_DATED != 0
            or (p + 1 < size and flags[a0 + p + 1] & TOKEN_UNIT != 0)
            or (p > 0 and flags[a0 + p - 1] & TOKEN_BEFORE_DATE != 0)
        )
    return handled, changed, hard
