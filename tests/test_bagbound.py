"""The batch's token-bucket bound against exact bags of tokens and the copy rule's verdicts."""

import itertools
import random
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.bagbound import BUCKET_BITS, MOST_TOKENS, TokenBuckets
from neardup.copyrule import judge_pairs, token_codes
from neardup.methods import create
from textedits import edited

WORDS = st.text(alphabet=st.sampled_from(list("甲乙丙丁戊己家已的是 ab1第次")), max_size=40)


def buckets_of(texts):
    return TokenBuckets.of(texts, np.ones(len(texts), np.bool_))


@given(
    st.lists(st.text(alphabet="甲乙丙丁的是 ab1第次éд…😀", max_size=30), min_size=1, max_size=12),
    st.data(),
)
@settings(max_examples=80, deadline=None)
def test_rows_from_the_callers_code_points_equal_rows_from_the_texts(texts, data):
    """A chunk that has its texts' code points hands them over (no second encoding): the rows
    are those made from the texts, whichever texts are counted (texts of other scripts go
    through the Python tokenizer either way)."""
    from neardup.normalize import encode_texts

    counted = np.array(data.draw(st.lists(st.booleans(), min_size=len(texts), max_size=len(texts))))
    want = TokenBuckets.of(texts, counted)
    got = TokenBuckets.of(texts, counted, encode_texts(texts))
    for field in ("counts", "row", "lengths"):
        assert np.array_equal(getattr(got, field), getattr(want, field)), field


@given(st.lists(WORDS, min_size=2, max_size=8), st.integers(0, 40))
@settings(max_examples=80, deadline=None)
def test_bucket_rows_count_each_texts_tokens_and_bound_the_shared_ones(texts, need):
    """A row counts a text's token hashes by their top bits; two rows never share fewer tokens
    than the two bags do (the exact multiset intersection); the kernel compares the sum of the
    smaller counts with the table's need, for strict pairs of texts with rows only."""
    from neardup import _pairkernels

    buckets = buckets_of(texts)
    codes, offsets, _flags = token_codes(texts)
    bags = [Counter(codes[offsets[i] : offsets[i + 1]].tolist()) for i in range(len(texts))]
    for i, bag in enumerate(bags):
        want = Counter()
        for h, n in bag.items():
            want[h >> (64 - BUCKET_BITS)] += n
        got = buckets.counts[buckets.row[i]]
        assert {k: int(got[k]) for k in np.flatnonzero(got)} == dict(want)
        assert buckets.lengths[buckets.row[i]] == sum(bag.values())
    pairs = np.array(list(itertools.combinations(range(len(texts)), 2)), np.int64)
    rows = buckets.row
    bound = np.array(
        [np.minimum(buckets.counts[rows[a]], buckets.counts[rows[b]]).sum() for a, b in pairs]
    )
    assert (bound >= [sum((bags[a] & bags[b]).values()) for a, b in pairs]).all()
    needs = np.full((MOST_TOKENS + 1, MOST_TOKENS + 1), need, np.int64)
    strict = np.arange(len(pairs)) % 3 > 0
    row = rows.copy()
    row[0] = -1  # the first text has no row: its pairs are kept
    got = _pairkernels.bucket_bound(
        buckets.counts, row, buckets.lengths, needs, pairs[:, 0], pairs[:, 1], strict
    )
    assert got.tolist() == ((bound >= need) | ~strict | (pairs[:, 0] == 0)).tolist()


@given(st.lists(WORDS | st.text(alphabet="甲乙", max_size=300), min_size=2, max_size=8))
@settings(max_examples=80, deadline=None)
def test_bucket_signatures_never_bound_below_the_rows(texts):
    """The signatures' bound of a pair (buckets held once and twice by both, and the smaller
    count of tokens beyond the second) is never below the rows' ``sum_k min`` — also for texts
    whose tokens crowd into few buckets — and equals it where no bucket holds three tokens;
    texts without a row (over ``MOST_TOKENS`` tokens) have no signature."""
    from neardup import _pairkernels

    buckets = buckets_of(texts)
    masks, info = buckets.signatures()
    assert ((info >= 0) == (buckets.row >= 0)).all()
    rows = buckets.row
    for a, b in itertools.combinations(np.flatnonzero(rows >= 0).tolist(), 2):
        ca, cb = buckets.counts[rows[a]].astype(int), buckets.counts[rows[b]].astype(int)
        exact = int(np.minimum(ca, cb).sum())
        for need in (exact, exact + 1):
            needs = np.full((MOST_TOKENS + 1, MOST_TOKENS + 1), need, np.int64)
            most = _pairkernels._bucket_most(masks, info, a, b, info[b], needs)
            assert most or need > exact  # never below the rows' bound
            if max(ca.max(), cb.max()) <= 2:  # exact where no bucket holds three
                assert most == (need <= exact)


def _typo_corpus(seed, n=60):
    """Short texts, with copies that drop, insert or replace a character or two, or write
    several characters as others that read alike (a pinyin input method's typos)."""
    rng = random.Random(seed)
    alphabet = "今天气很好我们去公园转发微博的了是不在有人这中大为上个国见他"
    alike = {"们": "门", "在": "再", "的": "得", "见": "间", "他": "她", "天": "添", "好": "号"}
    texts = []
    for _ in range(n):
        base = "".join(rng.choice(alphabet) for _ in range(rng.randint(3, 30)))
        texts.append(base)
        heard = "".join(alike.get(c, c) if rng.random() < 0.3 else c for c in base)
        if heard != base:
            texts.append(heard)
        for _ in range(rng.randint(0, 2)):
            texts.append(edited(rng, base, alphabet, rng.randint(1, 2)))
    return texts


def test_buckets_drop_no_pair_the_copy_rule_calls_a_copy():
    """Every pair the short-text rule calls a copy, aligning every pair, passes the bound; and
    the bound drops most of the others."""
    method = create("auto")
    rule = method.config.rule()
    texts = _typo_corpus(0)
    pairs = np.array(list(itertools.combinations(range(len(texts)), 2)), np.int64)
    strict = np.ones(len(pairs), np.bool_)
    full = judge_pairs(texts, pairs[:, 0], pairs[:, 1], rule, token_rule=strict, prune=False)
    keep = buckets_of(texts).may_be_copies(pairs[:, 0], pairs[:, 1], strict, rule)
    assert full.copy.sum() > 40
    assert not (full.copy & ~keep).any()
    assert keep.sum() < 0.2 * len(pairs)


def test_batch_with_buckets_finds_the_pairs_it_finds_without():
    """``find_pairs`` drops pairs by the bound; it finds the same pairs and similarities."""
    texts = _typo_corpus(1, n=200)
    with_buckets = create("auto")
    pairs = with_buckets.find_pairs(texts)
    without = create("auto")
    plain_prepare = without.prepare
    without.prepare = lambda compared, **kw: plain_prepare(compared, **{**kw, "buckets": False})
    want = without.find_pairs(texts)
    assert len(want.left) > 50
    got, want = pairs.sorted(), want.sorted()
    assert np.array_equal(got.left, want.left) and np.array_equal(got.right, want.right)
    assert np.array_equal(got.similarity, want.similarity)
