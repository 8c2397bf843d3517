"""Compiled hot loops over pairs of documents (numba): sorted-set intersections, the shapes of
``auto``'s candidate pairs, the short-text bucket bound, posting lists and the candidate pairs
they make (shaped as they are made for a batch of ``auto``).
Split from :mod:`neardup._kernels` (hashing, fingerprints, normalisation), whose rule they
follow: per-element loops live in the ``_*kernels`` modules only.
"""

from __future__ import annotations

import numba
import numpy as np

from ._prefetch import AHEAD, prefetch


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


def pair_shapes(
    grams, offsets, sample, sample_off, sketch, sketch_off, tokens, left, right, text, bounds, rate
):
    """Whether each pair ``(left[p], right[p])`` can pass on its sizes and rare-gram shares,
    whether the short-text rule judges it, and its rare-gram containment and coverage (the
    shapes of :meth:`neardup.methods.auto.AutoMethod`, by :func:`_shapes_into`, called here
    from Python: a compiled wrapper would add half a second of compiling to a first run)."""
    n = left.shape[0]
    possible = np.zeros(n, np.bool_)
    strict = np.zeros(n, np.bool_)
    contain = np.zeros(n, np.float64)
    cover = np.zeros(n, np.float64)
    _shapes_into(
        grams, offsets, sample, sample_off, sketch, sketch_off, tokens, left, right, n,
        text, bounds, rate, possible, strict, contain, cover,
    )  # fmt: skip
    return possible, strict, contain, cover


@numba.njit(cache=True, nogil=True)
def _shapes_into(
    grams, offsets, sample, sample_off, sketch, sketch_off, tokens, left, right, n,
    text, bounds, rate, possible, strict, contain, cover,
):  # fmt: skip
    """The shapes of the first ``n`` pairs ``(left[p], right[p])`` into ``possible``,
    ``strict``, ``contain`` and ``cover`` (:func:`pair_shapes`): one pass, no array per step.

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
    for p in range(n):
        if p + 2 * AHEAD < n:  # the second documents of later pairs: their sizes, then grams
            later = right[p + 2 * AHEAD]
            prefetch(tokens, later)
            prefetch(offsets, later)
        if p + AHEAD < n:
            prefetch(grams, offsets[right[p + AHEAD]])
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
    n = left.shape[0]
    out = np.empty(n, np.int64)
    for p in range(n):
        if p + 2 * AHEAD < n:  # later pairs' sets: where they start, then their first values
            prefetch(offsets, left[p + 2 * AHEAD])
            prefetch(offsets, right[p + 2 * AHEAD])
        if p + AHEAD < n:
            prefetch(values, offsets[left[p + AHEAD]])
            prefetch(values, offsets[right[p + AHEAD]])
        out[p] = _common_count(
            values, offsets, sample, sample_off, left[p], right[p], need[p], rate
        )
    return out


def bucket_bound(counts, row, lengths, needs, left, right, strict):
    """Which pairs ``(left[p], right[p])`` may share enough items (:func:`_bucket_bound_into`,
    called from Python as :func:`pair_shapes` calls its loop)."""
    out = np.ones(left.shape[0], np.bool_)
    _bucket_bound_into(counts, row, lengths, needs, left, right, strict, left.shape[0], out)
    return out


@numba.njit(cache=True, nogil=True)
def _bucket_bound_into(counts, row, lengths, needs, left, right, strict, n, out):
    """Of the first ``n`` pairs ``(left[p], right[p])``, set ``out[p]`` False for those with
    ``strict[p]`` whose texts both have a row (``row``, -1: none) of ``counts`` (items per
    bucket) and ``sum_k min(counts[ra, k], counts[rb, k]) < needs[short, long]``, by the two
    rows' ``lengths``: they cannot share enough items."""
    buckets = counts.shape[1]
    for p in range(n):
        if p + 2 * AHEAD < n:  # the rows of later pairs' second documents
            prefetch(row, right[p + 2 * AHEAD])
        if p + AHEAD < n:
            later = row[right[p + AHEAD]]
            if later >= 0:
                prefetch(counts, later)
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


@numba.njit(cache=True, nogil=True)
def bucket_signatures(counts, row, lengths):
    """:meth:`neardup.bagbound.TokenBuckets.signatures` of the texts with rows ``row`` (-1:
    none) in ``counts``: ``masks[d, level]`` has bit ``k`` set where bucket ``k`` holds more
    than ``level`` tokens, and ``info[d]`` is ``lengths[row[d]]`` plus 256 times the tokens
    beyond the second in any bucket (-1: no row)."""
    n = row.shape[0]
    masks = np.zeros((n, 2), np.uint64)
    info = np.full(n, -1, np.int32)
    for d in range(n):
        r = row[d]
        if r < 0:
            continue
        once = np.uint64(0)
        twice = np.uint64(0)
        beyond = 0
        for k in range(counts.shape[1]):
            c = counts[r, k]
            if c > 0:
                once |= np.uint64(1) << np.uint64(k)
            if c > 1:
                twice |= np.uint64(1) << np.uint64(k)
                beyond += c - 2
        masks[d, 0] = once
        masks[d, 1] = twice
        info[d] = lengths[r] + (beyond << 8)
    return masks, info


_SPREAD = np.uint64(0x9E3779B97F4A7C15)  # odd: multiplying by it maps distinct keys apart


@numba.njit(cache=True, nogil=True)
def posting_lists(values, offsets):
    """The posting lists of documents' key sets ``(values, offsets)`` (64-bit key hashes, each
    document's distinct): ``(key_ids, after, post_docs, post_off)`` — each entry's key id (in
    order of first appearance), where the documents after the entry's own start in its key's
    list, and the lists ``post_docs[post_off[k]:post_off[k + 1]]`` of documents holding key
    ``k``, in increasing order. One pass through an open-addressing table of the keys, then a
    counting sort: linear, where sorting the keys took four times as long."""
    n = values.shape[0]
    bits = 1
    while (1 << bits) < n + n // 2 + 2:  # at most two thirds full
        bits += 1
    mask = np.uint64((1 << bits) - 1)
    shift = np.uint64(64 - bits)
    first = np.full(1 << bits, -1, np.int64)  # each key's first entry: one array, not two
    key_ids = np.empty(n, np.int64)
    counts = np.zeros(n + 1, np.int64)
    keys = 0
    for i in range(n):
        v = values[i]
        # the high bits of a product: keys alike in their low bits (not hashes) still spread
        h = (v * _SPREAD) >> shift
        while first[h] >= 0 and values[first[h]] != v:
            h = (h + np.uint64(1)) & mask
        if first[h] < 0:
            first[h] = i
            key_ids[i] = keys
            keys += 1
        else:
            key_ids[i] = key_ids[first[h]]
        counts[key_ids[i] + 1] += 1
    post_off = np.cumsum(counts[: keys + 1])
    cursor = post_off[:keys].copy()
    post_docs = np.empty(n, np.int64)
    after = np.empty(n, np.int64)
    for d in range(offsets.shape[0] - 1):
        for i in range(offsets[d], offsets[d + 1]):
            k = key_ids[i]
            post_docs[cursor[k]] = d
            cursor[k] += 1
            after[i] = cursor[k]
    return key_ids, after, post_docs, post_off


@numba.njit(cache=True, nogil=True)
def key_candidates(
    doc_keys, doc_after, doc_off, post_docs, post_off, key_ok, lo, hi, out_l, out_r, counts
):
    """Pairs ``x < y`` (``x`` in ``[lo, hi)``) sharing at least one usable key, each once
    (:func:`_later_docs`): ``counts[x - lo]`` gets the number of ``x``'s pairs, and the pairs
    are written to ``out_l`` and ``out_r`` when they have room (empty arrays: count only, the
    first of two passes)."""
    fill = out_l.shape[0] > 0
    mark = np.full(doc_off.shape[0] - 1, -1, np.int64)
    later = np.empty(doc_off.shape[0] - 1, np.int64)
    w = 0
    for x in range(lo, hi):
        c = _later_docs(x, doc_keys, doc_after, doc_off, post_docs, post_off, key_ok, mark, later)
        if fill:
            for t in range(c):  # a loop: slice assignment takes numba seconds to compile
                out_l[w + t] = x
                out_r[w + t] = later[t]
        w += c
        counts[x - lo] = c
    return w


@numba.njit(cache=True, nogil=True)
def _later_docs(x, doc_keys, doc_after, doc_off, post_docs, post_off, key_ok, mark, out):
    """The documents ``y > x`` that share a usable key with ``x``, each once, into ``out``;
    returns how many (:func:`_later_pairs` without its tests: a kernel of its own, so that a
    small batch's candidates compile in a fraction of the time)."""
    c = 0
    for i in range(doc_off[x], doc_off[x + 1]):
        k = doc_keys[i]
        if key_ok[k]:
            for j in range(doc_after[i], post_off[k + 1]):
                y = post_docs[j]
                if mark[y] != x:
                    mark[y] = x
                    out[c] = y
                    c += 1
    return c


@numba.njit(cache=True, nogil=True)
def _later_pairs(
    x, doc_keys, doc_after, doc_off, post_docs, post_off, key_ok, mark, out,
    post_tokens, post_grams, tx, gx, low, least_ratio, masks, info, post_info, gram_masks,
    rule, needs,
):  # fmt: skip
    """The documents ``y > x`` that share a usable key with ``x``, each once (as
    :func:`_later_docs` finds them): returns how many were found and how many of them were kept
    in ``out``. ``doc_keys`` are each document's distinct key ids; ``post_docs[post_off[k]:
    post_off[k+1]]`` lists the documents holding key ``k`` in increasing order, and
    ``doc_after`` is where the documents after each key's own document start in it. ``mark[y]
    == x`` once ``y`` is found (the caller's array, over all ``x``).

    Only the documents whose sizes let them pass with ``x`` are kept (:func:`_shapes_into`):
    ``few / many`` tokens at least ``low``, or ``small / large`` rare grams at least
    ``least_ratio`` (``tx`` and ``gx``: ``x``'s). The other document's sizes are read from
    ``post_tokens`` and ``post_grams``, beside its entry in the posting lists, in the order the
    lists are scanned: a pair that fails is dropped without a look at the other document.

    With ``masks`` (empty: none), a pair the short-text rule judges by its sizes alone (fewer
    tokens than ``rule[0]``, short_tokens, or fewer rare grams than ``rule[1]``,
    min_rare_grams, as :func:`_shapes_into` decides) is kept only if its token ratio reaches
    ``low`` and, when both texts have token buckets, the buckets' signatures
    (:meth:`neardup.bagbound.TokenBuckets.signatures`, :func:`_bucket_most`: ``masks`` and
    ``info`` per document, the other document's ``info`` also beside its entry in
    ``post_info``) let the texts share the tokens ``needs`` asks for: the pairs
    :func:`_keep_possible` would drop, dropped here from 20 bytes per text (weibo_ced_zh: 11.1
    of 11.8 million pairs), not from the shapes' sets and the buckets' 64-byte rows.

    With ``gram_masks`` too (:func:`gram_signatures`), a pair judged on its rare grams whose
    texts have fewer than ``rule[2]`` tokens (typo_tokens: where its grams fail, the short-text
    rule judges it on its tokens) is dropped where neither can pass: its tokens as above, and
    its rare grams by their ratio (``rule[4]``, coverage) and an upper bound of the grams the
    two share (:func:`_grams_most`) below the count :func:`_shapes_into` asks for
    (containment ``rule[3]`` of the smaller set, coverage of the larger) — unless an empty
    share would pass (both 0)."""
    bucketed = masks.shape[0] > 0
    signed = bucketed and info[x] >= 0
    found = 0
    c = 0
    for i in range(doc_off[x], doc_off[x + 1]):
        k = doc_keys[i]
        if not key_ok[k]:
            continue
        end = post_off[k + 1]
        for j in range(doc_after[i], end):
            y = post_docs[j]
            if mark[y] == x:
                continue
            mark[y] = x
            found += 1
            ty = float(post_tokens[j])
            gy = float(post_grams[j])
            many = max(tx, ty)
            large = max(gx, gy)
            by_tokens = many > 0 and min(tx, ty) / many >= low
            if not (by_tokens or (large > 0 and min(gx, gy) / large >= least_ratio)):
                continue
            if not bucketed:
                out[c] = y
                c += 1
                continue
            few = min(tx, ty)
            small = min(gx, gy)
            if few < rule[0] or small < rule[1] or (gram_masks.shape[0] > 0 and few < rule[2]):
                if j + AHEAD < end:  # a later entry's masks, at an address nothing predicts
                    prefetch(masks, post_docs[j + AHEAD])
                    if gram_masks.shape[0] > 0:
                        prefetch(gram_masks, post_docs[j + AHEAD])
                tokens_may = by_tokens and not (
                    signed
                    and post_info[j] >= 0
                    and not _bucket_most(masks, info, x, y, post_info[j], needs)
                )
                if few < rule[0] or small < rule[1]:  # judged on its tokens
                    if not tokens_may:
                        continue
                elif not tokens_may and not _grams_may(gram_masks, x, y, gx, gy, rule):
                    continue
            out[c] = y
            c += 1
    return found, c


@numba.njit(cache=True, nogil=True, inline="always")
def _popcount(v):
    """The number of bits set in a 64-bit word."""
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((v * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True, nogil=True, inline="always")
def _grams_may(gram_masks, a, b, ga, gb, rule):
    """Whether the rare grams of texts ``a`` and ``b`` (``ga`` and ``gb`` of them) may pass
    :func:`_shapes_into`'s test: their ratio reaches coverage and :func:`_grams_most` the count
    it asks for (or an empty share passes)."""
    containment, coverage = rule[3], rule[4]
    if containment <= 0.0 and coverage <= 0.0:
        return True  # a share of nothing passes
    small = min(ga, gb)
    large = max(ga, gb)
    if large <= 0 or small <= 0 or small / large < coverage:
        return False
    need = np.ceil(max(containment * small, coverage * large) - 1e-9)
    return _grams_most(gram_masks, a, b, int(ga), int(gb)) >= max(int(need), 1)


@numba.njit(cache=True, nogil=True, inline="always")
def _grams_most(gram_masks, a, b, ga, gb):
    """An upper bound of the rare grams two texts share (``ga`` and ``gb`` of them): the
    256 buckets (top 8 bits) both hold, plus the smaller count of grams that share a bucket
    with another of their own text."""
    both = 0
    own_a = 0
    own_b = 0
    for w in range(4):
        both += _popcount(gram_masks[a, w] & gram_masks[b, w])
        own_a += _popcount(gram_masks[a, w])
        own_b += _popcount(gram_masks[b, w])
    return both + min(ga - own_a, gb - own_b)


@numba.njit(cache=True, nogil=True)
def gram_signatures(values, offsets):
    """Per document, which of 256 buckets (the top 8 bits of the hash) its rare grams
    ``values[offsets[d]:offsets[d + 1]]`` fall in: four 64-bit words (:func:`_grams_most`)."""
    n = offsets.shape[0] - 1
    out = np.zeros((n, 4), np.uint64)
    for d in range(n):
        for i in range(offsets[d], offsets[d + 1]):
            top = values[i] >> np.uint64(56)
            out[d, top >> np.uint64(6)] |= np.uint64(1) << (top & np.uint64(63))
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _bucket_most(masks, info, a, b, info_b, needs):
    """Whether texts ``a`` and ``b`` (whose ``info`` is ``info_b``) may share the tokens
    ``needs[short, long]`` asks for, by their bucket signatures: an upper bound of ``sum_k
    min(count_a[k], count_b[k])`` (:func:`_bucket_bound_into`), never below it, so a pair this
    drops the bound drops too."""
    la = info[a] & 0xFF
    lb = info_b & 0xFF
    most = _popcount(masks[a, 0] & masks[b, 0]) + _popcount(masks[a, 1] & masks[b, 1])
    most += min(info[a] >> 8, info_b >> 8)
    return most >= needs[min(la, lb), max(la, lb)]


SHAPED_AT_ONCE = 4096  # candidates shaped together by possible_candidates (they stay in cache)


@numba.njit(cache=True, nogil=True)
def possible_candidates(
    doc_keys, doc_after, doc_off, post_docs, post_off, key_ok, lo, hi, room,
    grams, offsets, sample, sample_off, sketch, sketch_off, tokens, text, bounds, rate,
    counts, row, lengths, needs, masks, info, mark, later, post_tokens, post_grams, post_info,
    gram_masks,
):  # fmt: skip
    """The candidate pairs of :func:`key_candidates` (``x`` in ``[lo, hi)``, at most ``room``
    of them) whose shape can pass (:func:`_shapes_into`) and that the token buckets do not rule
    out, in the order :func:`key_candidates` makes them — shaped ``SHAPED_AT_ONCE`` at a time as
    they are made, never held all at once. The buckets: ``counts``, ``row``, ``lengths``,
    ``needs`` (:func:`_bucket_bound_into`; ``row`` empty: none), their signatures ``masks`` and
    ``info`` per document, and ``info`` beside each entry, as ``post_tokens``, in
    ``post_info``; with them, ``gram_masks``, the rare grams' signatures (all empty when
    ``row`` is: :func:`_later_pairs`).

    Returns ``(left, right, strict, contain, cover, candidates)``: the pairs that can pass,
    their shapes, and how many candidates there were. ``mark`` and ``later`` are
    :func:`_later_pairs`' arrays, one item per document; a thread may pass the same to each
    block it runs once (``mark`` starts at -1 and holds documents of other blocks only, never
    ``x``: a block run again needs them fresh). (The output arrays are never replaced inside
    the loop: a reassigned array costs reference counting on every candidate, five times the
    time.)"""
    m = SHAPED_AT_ONCE
    buf_l = np.empty(m, np.int64)
    buf_r = np.empty(m, np.int64)
    possible = np.empty(m, np.bool_)
    strict = np.empty(m, np.bool_)
    contain = np.empty(m, np.float64)
    cover = np.empty(m, np.float64)
    out_l = np.empty(room, np.int64)
    out_r = np.empty(room, np.int64)
    out_s = np.empty(room, np.bool_)
    out_c = np.empty(room, np.float64)
    out_v = np.empty(room, np.float64)
    w = 0
    got = 0
    seen = 0
    if text:  # the sizes a pair needs to pass (:func:`_shapes_into`): see _later_pairs
        low, least_ratio = np.inf, bounds[6]
    else:
        low, least_ratio = bounds[3], bounds[5]
    # short_tokens, min_rare_grams, typo_tokens, containment, coverage (:func:`_later_pairs`)
    rule = np.array([bounds[0], bounds[1], bounds[2], bounds[4], bounds[5]])
    if text:
        rule[:3] = 0.0  # no pair is judged by the short-text rule
    for x in range(lo, hi):
        found, c = _later_pairs(
            x, doc_keys, doc_after, doc_off, post_docs, post_off, key_ok, mark, later,
            post_tokens, post_grams, float(tokens[x]), float(offsets[x + 1] - offsets[x]),
            low, least_ratio, masks, info, post_info, gram_masks, rule, needs,
        )  # fmt: skip
        seen += found
        for t in range(c):
            buf_l[got] = x
            buf_r[got] = later[t]
            got += 1
            if got < m:
                continue
            _shapes_into(
                grams, offsets, sample, sample_off, sketch, sketch_off, tokens,
                buf_l, buf_r, got, text, bounds, rate, possible, strict, contain, cover,
            )  # fmt: skip
            w = _keep_possible(
                buf_l, buf_r, got, possible, strict, contain, cover, counts, row, lengths,
                needs, out_l, out_r, out_s, out_c, out_v, w,
            )  # fmt: skip
            got = 0
    _shapes_into(
        grams, offsets, sample, sample_off, sketch, sketch_off, tokens,
        buf_l, buf_r, got, text, bounds, rate, possible, strict, contain, cover,
    )  # fmt: skip
    w = _keep_possible(
        buf_l, buf_r, got, possible, strict, contain, cover, counts, row, lengths, needs,
        out_l, out_r, out_s, out_c, out_v, w,
    )  # fmt: skip
    return out_l[:w], out_r[:w], out_s[:w], out_c[:w], out_v[:w], seen


@numba.njit(cache=True, nogil=True)
def _keep_possible(
    left, right, n, possible, strict, contain, cover, counts, row, lengths, needs,
    out_l, out_r, out_s, out_c, out_v, w,
):  # fmt: skip
    """Append the first ``n`` shaped pairs that can pass and, where ``row`` is not empty, that
    the token buckets do not rule out (:func:`_bucket_bound_into`) to the outputs from row
    ``w``; returns the new number of rows. The buffers are reused for the possible pairs."""
    q = 0
    for p in range(n):  # the possible pairs, moved to the front
        if possible[p]:
            left[q], right[q], strict[q] = left[p], right[p], strict[p]
            contain[q], cover[q] = contain[p], cover[p]
            possible[q] = True
            q += 1
    if row.shape[0] > 0:
        _bucket_bound_into(counts, row, lengths, needs, left, right, strict, q, possible)
    for p in range(q):
        if possible[p]:
            out_l[w], out_r[w], out_s[w] = left[p], right[p], strict[p]
            out_c[w], out_v[w] = contain[p], cover[p]
            w += 1
    return w
