"""The online index's flat columns give back exactly the states put in them."""

import random

import numpy as np

from neardup.methods import create
from neardup.methods.columns import PreparedColumns
from neardup.methods.prepared import merge_prepared, split_prepared


def _same(a, b):
    assert a.compared == b.compared
    np.testing.assert_array_equal(a.tokens, b.tokens)
    for field in ("grams", "sketch", "sample"):
        for x, y in zip(getattr(a, field), getattr(b, field), strict=True):
            np.testing.assert_array_equal(x, y)


def test_columns_match_the_states_put_in_them_through_reuse_and_compaction():
    """Oracle: a dict of the per-document states, merged with ``merge_prepared``. Thousands of
    random puts and drops (so slots are reused and the buffers compacted and grown), texts
    from empty to long, and random gathers in any order, repeats included."""
    rng = random.Random(3)
    words = [
        "央视网消息",
        "新闻联播",
        "国务院",
        "常务会议",
        "哈哈",
        "转发微博",
        "the",
        "market",
        "2024年",
    ]
    texts = [
        "".join(rng.choice(words) for _ in range(rng.choice([0, 1, 3, 10, 60])))
        for _ in range(3000)
    ]
    method = create("auto")
    states = split_prepared(method.prepare(method.compared(texts), fit=True))
    columns, slot_of, kept = PreparedColumns(), {}, {}
    for step in range(6000):
        if kept and rng.random() < 0.45:
            k = rng.choice(list(kept))
            columns.drop(slot_of.pop(k))
            del kept[k]
        else:
            k = rng.randrange(len(texts))
            if k in kept:
                continue
            slot_of[k] = columns.put(states[k])
            kept[k] = states[k]
        if step % 500 == 0 and kept:
            pick = rng.choices(list(kept), k=rng.randint(1, 50))
            got = columns.take(np.array([slot_of[k] for k in pick]))
            _same(got, merge_prepared([kept[k] for k in pick]))
            assert columns.sketch_keys(slot_of[pick[0]]) == kept[pick[0]].sketch[0].tolist()
    assert len(set(slot_of.values())) == len(slot_of)  # a live slot is never handed out twice
    everything = list(kept)
    _same(
        columns.take(np.array([slot_of[k] for k in everything])),
        merge_prepared([kept[k] for k in everything]),
    )
