"""The copy rule on many pairs at once (:func:`judge_pairs`): compiled bounds and one vectorised
alignment call decide most pairs; the value test (:func:`_value_verdicts`) reads the rest."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..compiling import few_pairs
from ..forked import MAX_CHUNKS, map_forked
from ..parallel import chunk_ranges
from ..readings import heard_codes
from .align import _MAY_MOVE, _after, _aligned_in_order, _canonical, _matched_tokens, _permuted
from .boilerplate import Boilerplate
from .numerals import numeral_typos
from .rule import HEARD_FLOOR, CopyRule, CopyVerdict, Verdicts
from .tokens import _numbers, _week_codes, number_keys, token_codes, tokenize
from .values import (
    _has_tail,
    _value_changes,
    _with_boilerplate,
    counter_codes,
    exclusive_codes,
    negation_codes,
    number_word_codes,
    numeral_codes,
)


def judge(a: str, b: str, rule: CopyRule) -> CopyVerdict:
    """The verdict on two compared texts, measured on their tokens alone."""
    return judge_pairs([a, b], np.array([0]), np.array([1]), rule, prune=False)[0]


def judge_pairs(
    texts: Sequence[str],
    left: np.ndarray,
    right: np.ndarray,
    rule: CopyRule,
    *,
    token_rule: np.ndarray | None = None,
    gram_containment: np.ndarray | None = None,
    gram_coverage: np.ndarray | None = None,
    workers: int = 1,
    prune: bool = True,
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    bags: np.ndarray | None = None,
    boilerplate: Boilerplate | None = None,
    memo: TextMemo | None = None,
) -> Verdicts:
    """The verdict on each pair of compared texts ``(texts[left[k]], texts[right[k]])``.

    Pairs under ``token_rule`` (default: the shorter text has fewer than ``short_tokens``
    tokens) must be near-identical as token sequences and may change no value; the others are
    measured by ``gram_containment``/``gram_coverage`` (rare-gram sets, given by the caller) or,
    when those are not given, by token alignment. Tokens are hashed by a compiled tokenizer;
    alignment lengths come from one vectorised rapidfuzz call (on ``workers`` threads) for the
    pairs whose bags of tokens overlap enough (a compiled bound; with ``prune`` off every pair
    is aligned, so that the similarity of a rejected pair is exact too); only pairs whose shape
    passes are tested for value changes (:func:`_value_verdicts`). A pair under the token rule
    whose shape fails is aligned again on readings (:func:`_heard_tokens`). ``tokens``: the
    :func:`token_codes` of ``texts``, and ``bags`` their hashes sorted per text, when the
    caller keeps them. ``boilerplate``: the corpus's common text, which the value test of
    pairs not under the token rule leaves out (:class:`Boilerplate`). ``memo``: what the value
    test read of each text, kept by a caller that judges the pairs of ``texts`` in several
    calls (:class:`TextMemo`).
    """
    left = np.asarray(left, np.int64)
    right = np.asarray(right, np.int64)
    n = len(left)
    if not n:
        return Verdicts.empty()
    from .._kernels import sort_per_doc

    tokens = token_codes(texts) if tokens is None else tokens
    codes, offsets, _flags = tokens
    bags = sort_per_doc(codes, offsets) if bags is None else bags
    sizes = np.diff(offsets)
    la, lb = sizes[left].astype(np.float64), sizes[right].astype(np.float64)
    short_len, long_len = np.minimum(la, lb), np.maximum(la, lb)
    strict = short_len < rule.short_tokens if token_rule is None else np.asarray(token_rule, bool)
    bound_ok = _bag_bound(bags, offsets, left, right, short_len, long_len, rule)
    aligned = ~strict | bound_ok | (not prune)
    matched = np.zeros(n)
    align = np.flatnonzero(aligned)
    matched[align] = _matched_tokens(codes, offsets, left[align], right[align], workers)
    containment, coverage = _shares(
        matched, short_len, long_len, strict, gram_containment, gram_coverage
    )
    shape = _shape(containment, coverage, short_len, strict, rule)
    need = _heard_need(long_len, rule)
    retry = np.flatnonzero(strict & ~shape & (short_len >= need))
    if len(retry):  # typos in a short text: characters that read alike count as matched
        heard = _heard_tokens(
            tokens, bags, left[retry], right[retry], long_len[retry], need[retry], prune=prune
        )
        shape[retry] = heard >= need[retry]
        late = retry[shape[retry] & ~aligned[retry]]  # a copy's similarity is always measured
        if len(late):
            matched[late] = _matched_tokens(codes, offsets, left[late], right[late], workers)
            containment, coverage = _shares(
                matched, short_len, long_len, strict, gram_containment, gram_coverage
            )
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.nan_to_num(2 * matched / (la + lb))
    changes, hard, ok = _value_verdicts(
        texts,
        left,
        right,
        np.flatnonzero(shape),
        strict,
        rule,
        matched >= short_len,
        tokens,
        boilerplate,
        unmatched=long_len - matched if prune else None,
        workers=workers,
        memo=memo,
    )
    return Verdicts(
        np.round(sim, 6), np.round(containment, 6), np.round(coverage, 6), changes, hard, ok
    )


def _shares(
    matched: np.ndarray,
    short_len: np.ndarray,
    long_len: np.ndarray,
    strict: np.ndarray,
    gram_containment: np.ndarray | None,
    gram_coverage: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Containment (of the shorter) and coverage (of the longer) of each pair: of the aligned
    tokens, or of the rare grams where the caller gives them and the pair is not strict."""
    with np.errstate(invalid="ignore", divide="ignore"):
        containment = np.nan_to_num(matched / short_len)
        coverage = np.nan_to_num(matched / long_len)
    if gram_containment is not None and gram_coverage is not None:
        containment = np.where(strict, containment, gram_containment)
        coverage = np.where(strict, coverage, gram_coverage)
    return containment, coverage


def _shape(
    containment: np.ndarray,
    coverage: np.ndarray,
    short_len: np.ndarray,
    strict: np.ndarray | bool,
    rule: CopyRule,
) -> np.ndarray:
    """Whether each pair has the shape of a copy: near-identical as a whole, or the shorter
    text (of at least ``min_contained_tokens``) contained in the longer, covering enough of it."""
    contained = (short_len >= rule.min_contained_tokens) & (coverage >= rule.coverage)
    return (
        (coverage >= rule.short_similarity)
        | (contained & (containment >= np.where(strict, rule.short_containment, rule.containment)))
    ) & (short_len > 0)


def _heard_tokens(
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray],
    bags: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    long_len: np.ndarray,
    need: np.ndarray,
    *,
    prune: bool = True,
) -> np.ndarray:
    """Tokens each pair's longest common subsequence matches when every CJK character stands for
    its (fuzzy, toneless) reading: 星期天间 / 星期天见, 我门 / 我们 — a learner's or a pinyin
    input method's typos in a sentence too short to hide them. A pair gets 0 unless at least
    ``HEARD_FLOOR`` of the longer text's tokens are in both as written (typos that read alike
    are a minority; 伟大的诠释 / 伟大的公司 is another phrase); with ``prune``, also unless
    their bags of readings share at least ``need`` tokens (a bound of the alignment)."""
    from .._kernels import sort_per_doc
    from .._pairkernels import common_counts
    from ..arrays import gather

    codes, offsets, _flags = tokens
    floor = _heard_floor(long_len)
    out = np.zeros(len(left))
    written = np.flatnonzero(
        common_counts(bags, offsets, bags[:0], offsets, left, right, floor, 0) >= 0
    )
    if not len(written):
        return out
    left, right, need = left[written], right[written], need[written]
    docs, local = np.unique(np.concatenate([left, right]), return_inverse=True)
    sub_codes, sub_off = gather(codes, offsets[docs], np.diff(offsets)[docs])
    heard = heard_codes(sub_codes)
    sub_left, sub_right = local[: len(left)], local[len(left) :]
    least = need.astype(np.int64) if prune else np.zeros(len(left), np.int64)
    bags = sort_per_doc(heard, sub_off)
    rows = np.flatnonzero(
        common_counts(bags, sub_off, bags[:0], sub_off, sub_left, sub_right, least, 0) >= 0
    )
    if len(rows):
        out[written[rows]] = _matched_tokens(heard, sub_off, sub_left[rows], sub_right[rows], 1)
    return out


def substituted(
    texts: Sequence[str],
    left: np.ndarray,
    right: np.ndarray,
    rule: CopyRule,
    *,
    coverage: float,
    short_strict: bool = True,
) -> np.ndarray:
    """Which pairs ``(texts[left[k]], texts[right[k]])`` are *versions of one passage with other
    values*: their token alignment covers at least ``coverage`` of the longer text, and it
    changes a year, date, ordinal or identifier, a name, or more than ``max_value_changes``
    values (:func:`_value_changes`) — with ``short_strict``, any value when the shorter has
    fewer than ``short_tokens`` tokens, as the copy rule allows none there (a short paragraph
    with another figure is then no copy and no version: the paragraph method counts such a
    version as a copy that changes one value). Two stories built from one template hold such paragraphs
    (the same ceremony paragraph with other leaders, the same meeting paragraph of another
    year); a copy does not. A compiled bag bound drops most pairs before any alignment."""
    left = np.asarray(left, np.int64)
    right = np.asarray(right, np.int64)
    out = np.zeros(len(left), np.bool_)
    if not len(left):
        return out
    from .._kernels import sort_per_doc
    from .._pairkernels import common_counts

    tokens = token_codes(texts)
    codes, offsets, _flags = tokens
    bags = sort_per_doc(codes, offsets)
    sizes = np.diff(offsets)
    long_len = np.maximum(sizes[left], sizes[right]).astype(np.float64)
    need = np.maximum(np.ceil(coverage * long_len - 1e-9), 1).astype(np.int64)
    maybe = common_counts(bags, offsets, bags[:0], offsets, left, right, need, 0) >= 0
    rows = np.flatnonzero(maybe & (np.minimum(sizes[left], sizes[right]) > 0))
    if not len(rows):
        return out
    matched = np.zeros(len(left))
    matched[rows] = _matched_tokens(codes, offsets, left[rows], right[rows], 1)
    rows = rows[matched[rows] >= coverage * long_len[rows] - 1e-9]
    # max_value_changes values allowed, as for copies; none in a short passage, as for copies
    strict = (np.minimum(sizes[left], sizes[right]) < rule.short_tokens) & short_strict
    within = matched >= np.minimum(sizes[left], sizes[right])
    _changes, _hard, ok = _value_verdicts(texts, left, right, rows, strict, rule, within, tokens)
    out[rows] = ~ok[rows]
    return out


def _bag_bound(
    bags: np.ndarray,
    offsets: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    short_len: np.ndarray,
    long_len: np.ndarray,
    rule: CopyRule,
) -> np.ndarray:
    """Which pairs may pass: the tokens both texts hold (as bags) bound the alignment, and most
    pairs fail on that alone (a compiled count that stops once the need is met)."""
    from .._pairkernels import common_counts

    least = _aligned_need(short_len, long_len, rule)
    return common_counts(bags, offsets, bags[:0], offsets, left, right, least, 0) >= 0


def _aligned_need(short_len: np.ndarray, long_len: np.ndarray, rule: CopyRule) -> np.ndarray:
    """Tokens a pair under the short-text rule must match to have the shape of a copy
    (:func:`_shape` on aligned tokens): near-identical, or contained and covering enough."""
    need = np.minimum(
        np.ceil(rule.short_similarity * long_len - 1e-9),
        np.where(
            short_len >= rule.min_contained_tokens,
            np.ceil(
                np.maximum(rule.coverage * long_len, rule.short_containment * short_len) - 1e-9
            ),
            np.inf,
        ),
    )
    return np.maximum(need, 1).astype(np.int64)


def _heard_need(long_len: np.ndarray, rule: CopyRule) -> np.ndarray:
    """Tokens a pair must match on readings (:func:`_heard_tokens`) to be a copy."""
    return np.maximum(np.ceil(rule.heard_similarity * long_len - 1e-9), 1)


def _heard_floor(long_len: np.ndarray) -> np.ndarray:
    """Tokens a pair must hold alike as written before it is aligned on readings."""
    return np.maximum(np.ceil(HEARD_FLOOR * long_len - 1e-9), 1).astype(np.int64)


def strict_least(short_len: np.ndarray, long_len: np.ndarray, rule: CopyRule) -> np.ndarray:
    """The fewest tokens two texts judged by the short-text rule must hold in common (as bags
    of token hashes, repeats counted) for :func:`judge_pairs` to find a copy with ``prune``:
    what the alignment needs (:func:`_bag_bound`) or, where the lengths allow the retry on
    readings, the floor of that retry. A batch drops pairs below it before it tokenizes them."""
    short_len = np.asarray(short_len, np.float64)
    long_len = np.asarray(long_len, np.float64)
    least = _aligned_need(short_len, long_len, rule)
    heard = short_len >= _heard_need(long_len, rule)
    return np.where(heard, np.minimum(least, _heard_floor(long_len)), least)


def least_share(rule: CopyRule) -> float:
    """A share of the longer text's tokens that :func:`strict_least` never asks less than,
    whatever the lengths: ``strict_least(s, l) >= ceil(least_share(rule) · l)``. Two texts whose
    bags hold fewer tokens in common are no copy under the short-text rule."""
    return min(rule.short_similarity, rule.coverage, HEARD_FLOOR)


def _value_verdicts(
    texts: Sequence[str],
    left: np.ndarray,
    right: np.ndarray,
    shaped: np.ndarray,
    strict: np.ndarray,
    rule: CopyRule,
    within: np.ndarray,
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    boilerplate: Boilerplate | None = None,
    *,
    unmatched: np.ndarray | None = None,
    workers: int = 1,
    memo: TextMemo | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Value changes, hard changes and the verdict of the pairs ``shaped`` (whose shape passed):
    each aligned in full, in canonical order, to look for substituted values, unless it is one
    of two kinds whose outcome is known without the alignment.

    Two kinds of pair need no alignment in Python:

    - ``within``: the shorter token sequence is a subsequence of the longer (its alignment
      matched every token of it). Such a pair differs only by inserted text: no gap has tokens
      on both sides, and neither text holds a number the other lacks, so no value can have
      changed — unless the two hold negations in different numbers (a 不 one of them adds,
      :func:`_negations_differ`): such a pair is aligned like the others.
    - given the texts' :func:`token_codes` as ``tokens``, pairs that differ in one replaced
      token (a counter at the end of a repost, a typo): decided by a compiled test
      (:func:`neardup._tokenkernels.one_replaced`) that gives the outcome of the alignment.

    Property tests check both against the full alignment. With ``boilerplate``, the pairs
    aligned in Python that are not ``strict`` leave the texts' boilerplate out of it.

    Given ``unmatched`` (per pair, the tokens of the longer text outside its longest common
    subsequence with the shorter), a pair whose numbers differ as a whole
    (:func:`_numbers_differ`) is rejected without its alignment when no passage can be long
    enough to hold numbers that do not count (:func:`_without_passages`) and no second reading
    with boilerplate can follow: a hard change, as the alignment would find, decided by a
    compiled test (:func:`_numbers_differ_unaligned`) — 112 thousand of the 177 thousand pairs
    of 20,000 templated messages ("李娜在8日参加了…第8届运动会并获得6枚奖牌") that reached
    Python. Their value-change count is left at 0 (only ``compare``, which passes no
    ``unmatched``, reports it).

    The pairs left are aligned in Python, on ``workers`` processes where forking is safe
    (:func:`neardup.forked.map_forked`; same verdicts)."""
    n = len(left)
    changes = np.zeros(n, np.int64)
    hard = np.zeros(n, np.bool_)
    ok = np.zeros(n, np.bool_)
    inside = shaped[within[shaped]]
    negated = _negations_differ(tokens, left[inside], right[inside])
    ok[inside[~negated]] = True
    rest = np.sort(np.concatenate([inside[negated], shaped[~within[shaped]]]))
    compiled = tokens is not None and not few_pairs(len(rest))  # else the alignment decides
    if compiled and len(rest):
        from .._tokenkernels import one_replaced

        handled, changed, dated = one_replaced(
            *tokens,
            left[rest],
            right[rest],
            *_MAY_MOVE,
            *_week_codes(),
            exclusive_codes(),
            counter_codes(),
            number_word_codes(),
            numeral_codes(),
        )
        done = rest[handled]
        changes[done] = changed[handled]
        hard[done] = dated[handled]
        allowed = np.where(strict[done], 0, rule.max_value_changes)
        ok[done] = ~hard[done] & (changes[done] <= allowed)
        rest = rest[~handled]
    if compiled and unmatched is not None and len(rest):
        final = strict if boilerplate is not None else np.ones(n, np.bool_)  # no second reading
        differ = _numbers_differ_unaligned(tokens, left, right, rest, final, unmatched, rule)
        hard[rest[differ]] = True  # what the alignment would find: ok stays False
        rest = rest[~differ]
        inserted = _inserted_only(tokens, texts, left, right, rest, unmatched)
        ok[rest[inserted]] = True  # what the alignment would find: no value changed
        rest = rest[~inserted]
    size = max(ALIGNED_CHUNK, -(-len(rest) // MAX_CHUNKS))
    parts = map_forked(
        lambda lo, hi: _aligned_verdicts(
            texts, left, right, rest[lo:hi], strict, rule, boilerplate, memo
        ),
        len(rest),
        size=size,
        workers=workers if len(rest) >= FORK_PAIRS else 1,
    )
    for (lo, hi), (part_changes, part_hard, part_ok) in zip(
        chunk_ranges(len(rest), size), parts, strict=True
    ):
        changes[rest[lo:hi]] = part_changes
        hard[rest[lo:hi]] = part_hard
        ok[rest[lo:hi]] = part_ok
    return changes, hard, ok


@dataclass
class TextMemo:
    """What the value test read of each text (by its position in the texts judged): its tokens
    and numbers, and its boilerplate mask. A caller that judges the pairs of one list of texts
    in several calls keeps one, so that a text in many pairs (a template's) is read once;
    threads may share it (a text read twice gives the same)."""

    words: dict[int, tuple[list[str], frozenset[str]]] = field(default_factory=dict)
    boilerplate: dict[int, list[bool] | None] = field(default_factory=dict)
    held: int = 0  # tokens of the texts held

    def make_room(self) -> None:
        """Forget every text when more than ``MEMO_TOKENS`` tokens are held (memory: a token
        read costs about 80 bytes, and a group's texts may be long and each in one pair)."""
        if self.held > MEMO_TOKENS:
            self.words.clear()
            self.boilerplate.clear()
            self.held = 0


MEMO_TOKENS = 500_000  # tokens a TextMemo holds at most (about 40 MB)


# The aligned value test on ``workers`` processes (:func:`neardup.forked.map_forked`) from
# ``FORK_PAIRS`` pairs (a fork costs about 5 ms, a long pair 0.5-1 ms, a short one 20 µs),
# ``ALIGNED_CHUNK`` pairs at a time (a text's tokens are made once per chunk; more at once past
# ``MAX_CHUNKS`` chunks).
FORK_PAIRS = 200
ALIGNED_CHUNK = 64


def _aligned_verdicts(
    texts: Sequence[str],
    left: np.ndarray,
    right: np.ndarray,
    rows: np.ndarray,
    strict: np.ndarray,
    rule: CopyRule,
    boilerplate: Boilerplate | None,
    memo: TextMemo | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Value changes, hard changes and the verdict of the pairs ``rows``, each aligned in full
    in canonical order (:func:`_value_verdicts`' pairs that no shortcut decided); a text is
    tokenized, and its boilerplate read, once for all its pairs here (and in every call given
    the same ``memo``)."""
    changes = np.zeros(len(rows), np.int64)
    hard = np.zeros(len(rows), np.bool_)
    ok = np.zeros(len(rows), np.bool_)
    memo = TextMemo() if memo is None else memo
    found, common = memo.words, memo.boilerplate
    for r, k in enumerate(rows.tolist()):
        memo.make_room()  # before this pair's texts are read: both stay until it is judged
        for i in (left[k], right[k]):
            if i not in found:
                words = tokenize(texts[i])
                found[i] = words, _numbers(words)
                memo.held += len(words)
        i, j = _canonical(left[k], right[k], texts, found)
        (ta, na), (tb, nb) = found[i], found[j]
        tb, order, ops = _aligned_in_order(ta, tb)
        allowed = 0 if strict[k] else rule.max_value_changes
        numbers, names, hard[r] = _value_changes(ta, tb, rule, (na, nb), ordered=True, opcodes=ops)
        ok[r] = not hard[r] and names == 0 and numbers <= allowed
        reread = boilerplate is not None and not strict[k]
        if not ok[r] and reread and (names or _has_tail(ta, tb, ops)):
            for d in (i, j):  # a footer, header or advertisement? (boilerplate read when needed)
                if d not in common:
                    common[d] = boilerplate.tokens(texts[d])
            again = _with_boilerplate(
                ta, tb, rule, (na, nb), (common[i], _permuted(common[j], order)), ops
            )
            if again is not None and not again[2] and again[1] == 0 and again[0] <= allowed:
                numbers, names, hard[r], ok[r] = *again, True
        if not ok[r]:
            again = numeral_typos(texts[i], texts[j], (ta, tb), order, ops, rule, (na, nb))
            if again is not None and not again[2] and again[1] == 0 and again[0] <= allowed:
                numbers, names, hard[r], ok[r] = *again, True
        changes[r] = numbers + names
    return changes, hard, ok


def _negations_differ(
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray] | None, left: np.ndarray, right: np.ndarray
) -> np.ndarray:
    """Which pairs hold negations (:data:`~neardup.copyrule.values.NEGATIONS`) in different
    numbers (all of them without ``tokens``): a text that is a subsequence of the other may
    still lack a 不 the other has (:func:`~neardup.copyrule.values._negated`)."""
    if tokens is None:
        return np.ones(len(left), np.bool_)
    in_left, in_right = _marked_tokens(
        tokens, left, right, lambda codes, _flags: np.isin(codes, negation_codes())
    )
    return in_left != in_right


def _marked_tokens(
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray],
    left: np.ndarray,
    right: np.ndarray,
    mark: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """How many tokens of each pair's left and right text ``mark`` (given token codes and
    flags, one bool each) marks: read from the tokens of those texts only."""
    from ..arrays import gather

    if not len(left):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    codes, offsets, flags = tokens
    docs, local = np.unique(np.concatenate([left, right]), return_inverse=True)
    starts, sizes = offsets[docs], np.diff(offsets)[docs]
    sub, sub_off = gather(codes, starts, sizes)
    found = np.zeros(len(sub) + 1, np.int64)
    np.cumsum(mark(sub, gather(flags, starts, sizes)[0]), out=found[1:])
    per_doc = found[sub_off[1:]] - found[sub_off[:-1]]
    return per_doc[local[: len(left)]], per_doc[local[len(left) :]]


def _inserted_only(
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray],
    texts: Sequence[str],
    left: np.ndarray,
    right: np.ndarray,
    rows: np.ndarray,
    unmatched: np.ndarray,
) -> np.ndarray:
    """Which pairs ``rows`` differ by inserted and deleted tokens alone, hold no number and
    negations in equal numbers: copies with no value changed, decided without the alignment in
    Python (most pairs of reposted posts left to it: 欢迎 / 热烈欢迎, a word added here, one
    dropped there).

    :func:`~neardup.copyrule.values._value_changes` finds a value only in a gap where both texts
    have tokens (a substitution), in a region of gaps joined by weak anchors that replaces a
    character one for one (:func:`~neardup.copyrule.values._grown_letter`), in a negation one
    text adds (which needs the two to hold them in different numbers), or among numbers. So a
    pair is one of these when its canonical alignment (:func:`_canonical`; rapidfuzz's on the
    token hashes, as :func:`token_alignment` makes it on the tokens) has no gap with tokens on
    both sides, and no passage can have moved: :func:`_move_order` keeps the order of a text of
    fewer than ``MOVE_MIN`` tokens, or of a pair whose distance (from ``unmatched``, the longer
    text's tokens outside their longest common subsequence) leaves less than ``MOVE_GAIN`` to
    gain. Only pairs of up to ``INSERTED_ONLY_TOKENS`` tokens are tried: a longer pair is
    rarely one of these (weibo_ced_zh: 244 of 5,477), and one that is not is aligned again in
    Python. Property tests check them against the full alignment."""
    from rapidfuzz.distance import Indel

    from .._tokenkernels import TOKEN_DIGIT
    from .align import _token_arrays
    from .rule import MOVE_GAIN, MOVE_MIN

    out = np.zeros(len(rows), np.bool_)
    if not len(rows):
        return out
    codes, offsets, _flags = tokens
    a, b = left[rows], right[rows]
    sizes = np.diff(offsets)
    la, lb = sizes[a], sizes[b]
    short, long = np.minimum(la, lb), np.maximum(la, lb)
    distance = la + lb - 2 * (long - unmatched[rows])
    unmoved = (short < MOVE_MIN) | (distance - (long - short) < 2 * MOVE_GAIN * short)
    maybe = np.flatnonzero(unmoved & (long <= INSERTED_ONLY_TOKENS) & (short > 0))
    digits_a, digits_b = _marked_tokens(
        tokens, a[maybe], b[maybe], lambda _codes, flags: (flags & TOKEN_DIGIT) > 0
    )
    maybe = maybe[(digits_a == 0) & (digits_b == 0)]
    maybe = maybe[~_negations_differ(tokens, a[maybe], b[maybe])]
    if not len(maybe):
        return out
    docs, local = np.unique(np.concatenate([a[maybe], b[maybe]]), return_inverse=True)
    sequences = _token_arrays(codes, offsets, docs)
    lengths = sizes[docs].tolist()
    docs_at = docs.tolist()
    pairs = zip(local[: len(maybe)].tolist(), local[len(maybe) :].tolist(), strict=True)
    for k, (p, q) in zip(maybe.tolist(), pairs, strict=True):
        if _after(lengths[p], texts[docs_at[p]], lengths[q], texts[docs_at[q]]):  # _canonical
            p, q = q, p
        out[k] = _one_sided(Indel.opcodes(sequences[p], sequences[q]))
    return out


INSERTED_ONLY_TOKENS = 64  # the longer text's tokens up to which _inserted_only tries a pair


def _one_sided(opcodes: Any) -> bool:
    """Whether no gap of an alignment has tokens on both sides: no deletion next to an
    insertion (which :func:`token_alignment` joins into one gap)."""
    last = "equal"
    for op in opcodes:
        tag = op[0]
        if tag == "replace" or {last, tag} == {"insert", "delete"}:
            return False
        last = tag
    return True


def _numbers_differ_unaligned(
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray],
    left: np.ndarray,
    right: np.ndarray,
    rows: np.ndarray,
    final: np.ndarray,
    unmatched: np.ndarray,
    rule: CopyRule,
) -> np.ndarray:
    """Which pairs ``rows`` are hard changes without their alignment: ``final`` ones (no reading
    with boilerplate can follow their verdict) where no passage can hold numbers that do not
    count (:func:`_without_passages`) and the numbers differ as a whole (:func:`_numbers_differ`,
    compiled over :func:`number_keys`)."""
    from .._tokenkernels import numbers_differ

    out = np.zeros(len(rows), np.bool_)
    eligible = np.flatnonzero(final[rows] & _without_passages(unmatched[rows], rule))
    if not len(eligible):
        return out
    pairs = rows[eligible]
    docs = np.unique(np.concatenate([left[pairs], right[pairs]]))
    keys, offsets = number_keys(tokens, docs)
    out[eligible] = numbers_differ(
        keys, offsets, np.searchsorted(docs, left[pairs]), np.searchsorted(docs, right[pairs])
    )
    return out


def _without_passages(unmatched: np.ndarray, rule: CopyRule) -> np.ndarray:
    """Whether an alignment that leaves at most ``unmatched`` tokens of each text outside it can
    hold no moved, inserted or deleted passage longer than ``max_value_tokens`` — the passages
    whose numbers :func:`_numbers_differ` does not count. A one-sided gap holds unmatched tokens
    only; a lopsided region (:func:`_segments`) with ``w`` tokens of weak anchors and ``u`` and
    ``v`` unmatched ones on its sides is longer than twice its other side only if ``u > 2v +
    w``, so its length ``u + w`` stays under ``2u``. Putting moved passages back in order
    (:func:`_put_in_order`) only ever matches more."""
    return 2 * unmatched <= rule.max_value_tokens
