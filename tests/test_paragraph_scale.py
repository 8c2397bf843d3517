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
from neardup.arrays import in_sorted, unique_sorted
from neardup.dedup import dedup_with
from neardup.index.ngram import candidates_from_keys
from neardup.methods import create
from neardup.methods.paragraphpairs import VetoRows
from neardup.prefixjoin import run_pairs

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


def _cross_chunks(a, da, b, db, size=1 << 20):
    """Every pair of usable paragraphs of documents ``da[k]`` (rows of ``a``) and ``db[k]``
    (rows of ``b``), in order, ``size`` at a time: what the veto went through before."""
    rows_a, rows_b = np.flatnonzero(a.usable), np.flatnonzero(b.usable)
    lo_a = np.searchsorted(a.doc[rows_a], da, "left")
    lo_b = np.searchsorted(b.doc[rows_b], db, "left")
    na = np.searchsorted(a.doc[rows_a], da, "right") - lo_a
    nb = np.searchsorted(b.doc[rows_b], db, "right") - lo_b
    for k, i, j in run_pairs(lo_a, na, lo_b, nb, size):
        yield k, rows_a[i], rows_b[j]


def _every_pair_substitutions(self, a, da, b, db):
    """The oracle: the veto as it was, every paragraph pair of the cross product looked at
    and every pair that can pass judged, none left out, none judged once for several."""
    pm = paragraph_module
    da, db = np.asarray(da, np.int64), np.asarray(db, np.int64)
    copied_a, copied_b, changes = [], [], []
    found = []
    for k, ia, ib in _cross_chunks(a, da, b, db):
        at = self.inner.passing(a.prepared, ia, b.prepared, ib)
        found.append((k[at], ia[at], ib[at]))
    none = np.empty(0, np.int64)
    k, ia, ib = (np.concatenate([none, *(f[i] for f in found)]) for i in range(3))
    ok, changed = self._copies(a, ia, b, ib)
    copied_a.append(((k << 32) | ia)[ok])
    copied_b.append(((k << 32) | ib)[ok])
    changes.append(changed[ok])
    copies = unique_sorted(np.concatenate([none, *copied_a]))
    copies_b = unique_sorted(np.concatenate([none, *copied_b]))
    copied_rest = pm._all_but_first_copied(a, da, copies) & pm._all_but_first_copied(
        b, db, copies_b
    )
    found = []
    for k, ia, ib in _cross_chunks(a, da, b, db):
        free = ~in_sorted((k << 32) | ia, copies) & ~in_sorted((k << 32) | ib, copies_b)
        k, ia, ib = k[free], ia[free], ib[free]
        versions, one_value = self._versions(a, ia, b, ib)
        versions &= ~(pm._headlines(a, ia, b, ib, most=pm.HEADLINE_TOKENS) & copied_rest[k])
        found.append((k[versions], a.index[ia[versions]], b.index[ib[versions]]))
        copied_a.append(((k << 32) | ia)[one_value])
        copied_b.append(((k << 32) | ib)[one_value])
        changes.append(np.ones(int(one_value.sum()), np.int64))
    keys_a, keys_b = np.concatenate([none, *copied_a]), np.concatenate([none, *copied_b])
    most = self._corrections(a, da, b, db)
    at = pm._changed_copies(keys_a, keys_b, np.concatenate([none, *changes]), most=most)
    found.append(
        (keys_a[at] >> 32, a.index[keys_a[at] & pm.ROW_MASK], b.index[keys_b[at] & pm.ROW_MASK])
    )
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
    assert VetoRows(paras, paras, da, db).joined
    kept = len(method._passing(paras, da, paras, db, VetoRows(paras, paras, da, db))[0])
    every = sum(len(k) for k, _, _ in _cross_chunks(paras, da, paras, db))
    assert 0 < kept < every // 20  # most pairs of short lines are dropped unjudged
    with monkeypatch.context() as patched:
        patched.setattr(
            paragraph_module.ParagraphMethod, "substitutions", _every_pair_substitutions
        )
        oracle = method.substitutions(paras, da, paras, db)
        oracle_run = dedup_with(create("paragraph"), docs)
    assert len(oracle[0]) > 0  # the changed figures are versions
    assert [f.tolist() for f in found] == [f.tolist() for f in oracle]  # in the same order
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


def _clauses(count: int) -> list[str]:
    """Distinct clauses of the bundled sample's stories (short lines of a few words)."""
    texts = [json.loads(line)["text"] for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    found = [s for t in texts for s in re.split(r"(?<=[。，；！？])", t.replace("\n", ""))]
    return list(dict.fromkeys(s for s in found if len(s) >= 10))[:count]


def _short_line_pages(lines: int) -> list[str]:
    """Pages of ``lines`` short lines each, as one request may send them: a page, another
    page, the page with figures changed in a few lines (versions: the veto) and a line added,
    a page of a few of its lines repeated many times over, and the page re-sent with a line
    added (a duplicate)."""
    clauses = _clauses(lines + 400)
    page = clauses[:lines]
    changed = list(page)
    rng = random.Random(3)
    for at in rng.sample([k for k, c in enumerate(page) if re.search(r"\d", c)], 8):
        changed[at] = re.sub(r"\d", lambda m: str((int(m.group()) + 3) % 10), changed[at])
    few = [page[k % 40] for k in range(lines)]
    return [
        "\n".join(page),
        "\n".join(clauses[lines:]),
        "\n".join([*changed, "又一段新的文字，说的是别的事情。"]),
        "\n".join(few),
        "\n".join([*page, "编者按：本文转载时有删节。"]),
    ]


class _PairCount:
    """Paragraph pairs handed to the copy rule's shape test (``shaped``), and verified: by
    its verdicts and as versions with other values (``verified``)."""

    def __init__(self, monkeypatch):
        self.shaped = self.verified = 0
        for owner, name, field in (
            (auto_module.AutoMethod, "passing", "shaped"),
            (auto_module.AutoMethod, "judge", "verified"),
            (paragraph_module.ParagraphMethod, "_versions", "verified"),
        ):
            real = getattr(owner, name)

            def counting(method, a, ia, b, ib, *args, _real=real, _field=field, **kwargs):
                setattr(self, _field, getattr(self, _field) + len(ia))
                return _real(method, a, ia, b, ib, *args, **kwargs)

            monkeypatch.setattr(owner, name, counting)


def test_a_request_of_thousands_of_short_lines_is_answered_as_batch_with_few_pairs(
    monkeypatch,
):
    """One check-and-insert of a page of 1,500 short lines against a store holding such
    pages looked at every pair of their lines (2.25 million per stored page) and verified
    most of them one by one (a service's writer held for minutes at 20,000 lines). The
    online answers are the batch run's, and the pairs verified stay a small multiple of the
    lines, not their square."""
    from neardup.online import Detector
    from neardup.store import open_store

    lines = 1500
    docs = _short_line_pages(lines)
    method = create("paragraph")
    batch = dedup_with(method, docs)
    detector = Detector(store=open_store("memory://"), method="paragraph", tables=method.tables)
    counts, online = [], []
    for k, text in enumerate(docs):
        with monkeypatch.context() as patched:
            counter = _PairCount(patched)
            found = detector.add(f"d{k}", text)
        counts.append((counter.shaped, counter.verified))
        best = found.matches[0] if found.duplicate else None
        online.append(
            (k, -1.0) if best is None else (int(best.id[1:]), round(float(best.similarity), 6))
        )
    want = [
        (int(r), -1.0 if np.isnan(s) else round(float(s), 6))
        for r, s in zip(
            batch.clusters.representative, batch.similarity_to_representative, strict=True
        )
    ]
    assert online == want
    assert want[-1][0] == 0 and want[-2][0] == 3  # the re-sent page is a duplicate; the
    # page of 40 lines repeated is kept (its lines' grams are common in the batch's table)
    # before: every pair of the page's lines with each stored page's shaped (2.5 million
    # here), and 2 million of them verified one by one
    assert max(verified for _shaped, verified in counts) <= 5 * lines, counts
    assert max(shaped for shaped, _verified in counts) <= lines * lines // 2, counts


def test_the_veto_of_pages_of_short_lines_finds_what_every_pair_finds(monkeypatch):
    """The veto of pages of short lines (copies, versions with other values, lines repeated
    many times over) by the prefix join of their distinct lines gives what looking at every
    pair gives, in the same order; batch runs decide alike."""
    docs = _short_line_pages(600)
    method = create("paragraph")
    paras = method.paragraphs(docs, fit=True)
    n = len(docs)
    da, db = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    da, db = da[da < db], db[da < db]
    found = method.substitutions(paras, da, paras, db)
    assert VetoRows(paras, paras, da, db).joined  # not every pair: the joins
    with monkeypatch.context() as patched:
        patched.setattr(
            paragraph_module.ParagraphMethod, "substitutions", _every_pair_substitutions
        )
        oracle = method.substitutions(paras, da, paras, db)
        oracle_run = dedup_with(create("paragraph"), docs)
    assert len(oracle[0]) > 0  # the changed figures are versions
    assert [f.tolist() for f in found] == [f.tolist() for f in oracle]
    assert _answers(dedup_with(create("paragraph"), docs)) == _answers(oracle_run)


def test_paragraph_pairs_with_the_same_texts_are_judged_once_with_the_same_verdicts():
    """A page of a few lines repeated many times over pairs each line with itself thousands
    of times: judged once per pair of texts, each pair gets the verdict judging it alone
    gives."""
    docs = _short_line_pages(300)
    method = create("paragraph")
    paras = method.paragraphs([docs[0], docs[3], docs[4]], fit=False)
    left, right, _stats = candidates_from_keys(*method.usable_sketch(paras))
    cross = paras.doc[left] != paras.doc[right]
    left, right = left[cross], right[cross]
    assert len(left) > 2 * len({(paras.prepared.compared[i], paras.prepared.compared[j])
                                for i, j in zip(left.tolist(), right.tolist(), strict=True)})  # fmt: skip
    once = method.matches(paras, left, paras, right)
    every = method._matches(paras, left, paras, right, copies_only=False, contained=True)
    assert [x.tolist() for x in once] == [x.tolist() for x in every]
    assert once[0].sum() > 0


def test_online_candidates_are_those_of_each_key_of_each_paragraph():
    """The online paragraph index looks each distinct paragraph's keys up once: the same
    candidates, in the same order, as looking up every key of every paragraph."""
    from neardup.methods.incremental import ParagraphOnline

    def every_key(index, doc, skip):
        found = {}
        for i, key in index._keys(doc.state):
            for doc_id, j in index.postings.get(key, {}):
                found[(i, doc_id, j)] = None
        found = [c for c in found if c[1] not in skip]
        ids = list(dict.fromkeys(d for _i, d, _j in found))
        place = {d: k for k, d in enumerate(ids)}
        return ids, [[i for i, _, _ in found], [place[d] for _, d, _ in found],
                     [j for _, _, j in found]]  # fmt: skip

    online = ParagraphOnline(create("paragraph"))
    docs = _short_line_pages(300)
    for k, doc in enumerate(online.prepare_many([*docs, docs[3] + "\n" + docs[0]])):
        for skip in (set(), {"d0"}, {"d1", "d3"}):
            ids, want = every_key(online, doc, skip)
            got = online._candidates(doc, skip)
            assert got[0] == ids and [x.tolist() for x in got[1:]] == want
        online.add(f"d{k}", doc)
    assert len(want[0]) > 1000
