"""The paragraph method on documents of thousands of lines: the substitution veto pairs every
paragraph of one document with every one of another, and must find its answer without
tokenizing a paragraph once per piece of that cross product, nor judging every such pair by
the copy rule; the answers stay those of judging every pair."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup.copyrule.tokens as tokens_module
import neardup.copyrule.verdicts as verdicts_module
import neardup.methods.auto as auto_module
import neardup.methods.paragraph as paragraph_module
from neardup.arrays import in_sorted
from neardup.dedup import dedup_with
from neardup.methods import create

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample_zh.jsonl"


def _lines(count: int) -> list[str]:
    """Sentences of the bundled sample's stories, one per line (short paragraphs)."""
    texts = [json.loads(line)["text"] for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    found = [s for t in texts for s in re.split(r"(?<=。)", t.replace("\n", "")) if len(s) >= 12]
    return found[:count]


def _documents() -> list[str]:
    """A page of many short lines held three times over (a crawler's capture), the same with
    a line added, and with figures changed in a few lines (versions of them: the veto), among
    stories of their own."""
    lines = _lines(160)
    page = "\n".join(lines * 3)
    rng = random.Random(1)
    changed = list(lines)
    for at in rng.sample(range(len(lines)), 12):
        changed[at] = re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), changed[at])
    others = ["\n".join(_lines(400)[160 + 20 * k : 180 + 20 * k]) for k in range(5)]
    return [*others, page, page + "\n又一段新的文字，说的是别的事情。", "\n".join(changed * 3)]


def _every_pair(self, a, da, b, db):  # the oracle: every cross pair, none left out
    found = list(paragraph_module._cross_chunks(a, da, b, db))
    none = np.empty(0, np.int64)
    return tuple(np.concatenate([none, *(f[i] for f in found)]) for i in range(3))


def _answers(result) -> tuple[list[int], list[float], list[tuple[int, int]]]:
    """What a run decides: representatives, similarities to them, and its related pairs."""
    related = result.related
    pairs = list(zip(related.left.tolist(), related.right.tolist(), strict=True)) if related else []
    return (
        result.clusters.representative.tolist(),
        np.nan_to_num(result.similarity_to_representative, nan=-1.0).round(6).tolist(),
        sorted(pairs),
    )


def _sorted_triples(found) -> list[tuple[int, int, int]]:
    return sorted(zip(*(np.asarray(f).tolist() for f in found), strict=True))


def test_the_veto_judges_only_pairs_that_can_pass_and_finds_what_every_pair_finds(
    monkeypatch,
):
    """Held against judging every paragraph pair (the cross product, as before): the same
    substituted paragraph pairs, and the same clusters."""
    docs = _documents()
    method = create("paragraph")
    paras = method.paragraphs(docs, fit=True)
    n = len(docs)
    da, db = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    da, db = da[da < db], db[da < db]
    found = method.substitutions(paras, da, paras, db)
    kept = len(method._passing(paras, da, paras, db)[0])
    every = sum(len(k) for k, _, _ in paragraph_module._cross_chunks(paras, da, paras, db))
    assert 0 < kept < every // 20  # most pairs of short lines are dropped unjudged
    with monkeypatch.context() as patched:
        patched.setattr(paragraph_module.ParagraphMethod, "_passing", _every_pair)
        oracle = method.substitutions(paras, da, paras, db)
        oracle_run = dedup_with(create("paragraph"), docs)
    assert len(oracle[0]) > 0  # the changed figures are versions
    assert _sorted_triples(found) == _sorted_triples(oracle)
    run = dedup_with(create("paragraph"), docs)
    assert _answers(run) == _answers(oracle_run)
    assert run.clusters.representative.tolist()[-3:] == [n - 3, n - 3, n - 1]


def test_token_buckets_change_no_paragraph_decision(monkeypatch):
    """The buckets only drop pairs of short paragraphs that cannot be copies: without them,
    the same clusters and similarities."""
    docs = _documents()
    run = dedup_with(create("paragraph"), docs)
    monkeypatch.setattr(paragraph_module.ParagraphMethod, "_buckets", lambda self: False)
    bare = dedup_with(create("paragraph"), docs)
    assert _answers(run) == _answers(bare)
    assert run.clusters.n_duplicates > 0


def test_each_paragraph_is_tokenized_a_bounded_number_of_times(monkeypatch):
    """A page of 480 lines against two versions of it made 3 x 480 x 480 paragraph pairs,
    judged a piece at a time, each piece tokenizing its paragraphs again (tens of thousands of
    tokenizations; 134 s for three 420,000-character pages)."""
    docs = _documents()
    seen = [0]
    original = tokens_module.token_codes

    def counting(texts, *args, **kwargs):
        seen[0] += len(texts)
        return original(texts, *args, **kwargs)

    for module in (auto_module, verdicts_module):
        monkeypatch.setattr(module, "token_codes", counting)
    dedup_with(create("paragraph"), docs)
    lines = sum(d.count("\n") + 1 for d in docs)
    assert 0 < seen[0] <= 3 * lines  # twice as a batch, once in the veto (before: 4.7x)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(-50, 50), max_size=40),
    st.lists(st.integers(-50, 50), max_size=20),
)
def test_in_sorted_is_isin(values, pool):
    ordered = np.unique(np.array(pool, np.int64))
    got = in_sorted(np.array(values, np.int64), ordered)
    assert got.tolist() == np.isin(np.array(values, np.int64), ordered).tolist()


def test_online_paragraphs_prepared_together_are_those_prepared_one_by_one():
    """The online paragraph index prepares a group of texts (and a store's documents when it
    opens) in one batch, cut per document: the same arrays as one document at a time (which
    took 96 s to open a store of 21,000 stories)."""
    from dataclasses import astuple

    from neardup.methods.incremental import ParagraphOnline

    texts = [*_documents(), "一行字。", "另一行字，和别的都不一样。\n第二段也不一样，说的是天气。"]
    online = ParagraphOnline(create("paragraph"))
    together = online.prepare_many(texts)
    alone = [online.prepare_many([t])[0] for t in texts]
    stored = online.stored_docs([d.fingerprint for d in alone], [d.payload for d in alone])
    for a, b, c in zip(together, alone, stored, strict=True):
        assert a.fingerprint == b.fingerprint and a.payload == b.payload
        for x, y in ((a.state, b.state), (c.state, b.state)):
            assert x.doc.tolist() == y.doc.tolist() and x.usable.tolist() == y.usable.tolist()
            for u, v in zip(astuple(x.prepared), astuple(y.prepared), strict=True):
                assert _same(u, v)


def _same(u, v) -> bool:
    if isinstance(u, tuple):
        return all(_same(p, q) for p, q in zip(u, v, strict=True))
    if isinstance(u, np.ndarray):
        return u.tolist() == v.tolist()
    return u == v


def test_a_large_batch_takes_the_kernels_for_every_chunk_of_its_paragraphs(monkeypatch):
    """The size of the batch, not of each chunk of its paragraphs, decides between the
    kernels and their twins (:mod:`neardup.compiling`): the paragraph method called the
    copy rule and the gram steps on chunks each under the bound, and took the Python twins
    on cctv_xwlb_news_zh's 20,985 stories (15.6 s end to end; 7.1 s with the kernels)."""
    import neardup.twins as twins_module

    texts = [json.loads(line)["text"] for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    texts = texts[:200]
    monkeypatch.setenv("NEARDUP_COMPILED_FROM", str(sum(map(len, texts)) - 1))  # large batch
    called: list[str] = []
    for name in ("sort_per_doc", "drop_repeats", "kept_where_absent", "token_counts"):
        real = getattr(twins_module, name)

        def spy(*args, _name=name, _real=real):
            called.append(_name)
            return _real(*args)

        monkeypatch.setattr(twins_module, name, spy)
    create("paragraph").find_pairs(texts)
    assert called == []
    create("paragraph").find_pairs(texts[:20])  # a small batch still takes them
    assert called
