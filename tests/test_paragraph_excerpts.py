"""Excerpts (the ``paragraph`` method's contained paragraphs): a document cut from another — a
run of sentences of a one-paragraph story, or each of its paragraphs a part of one of the
other's — is contained in it although no paragraph of it is a whole copy; a follow-up that
quotes the same sentences beside text of its own is not. Every surface decides alike."""

from __future__ import annotations

import random

import numpy as np
import pytest

from neardup.containment import document_shares
from neardup.dedup import dedup_with
from neardup.methods import create
from neardup.methods.paragraph import HEADLINE_TOKENS
from neardup.online import Detector
from neardup.store import open_store
from wordstories import corpus, sentence


def _speech(seed: int) -> tuple[str, str, str]:
    """A one-paragraph speech of nine sentences, an excerpt of three of them (a third of it:
    under the half a whole paragraph match needs), and a follow-up quoting those three as a
    paragraph beside two paragraphs of its own."""
    rng = random.Random(seed)
    said = [sentence(rng) for _ in range(9)]
    excerpt = " ".join(said[3:6])
    own = [" ".join(sentence(rng) for _ in range(3)) for _ in range(2)]
    return " ".join(said), excerpt, "\n\n".join([own[0], excerpt, own[1]])


@pytest.mark.parametrize("seed", range(4))
def test_an_excerpt_needs_no_whole_paragraph(seed):
    """The excerpt is contained in the speech (``b_in_a``), a duplicate; without contained
    paragraphs, or with ``excerpts`` off (the rule before it), it shares nothing (the one
    paragraph pair is no copy by the rule: the excerpt covers a third of the speech). The
    follow-up holding the same quote shares nothing."""
    speech, excerpt, follow_up = _speech(seed)
    found = create("paragraph").compare(speech, excerpt)
    assert found["duplicate"] and found["containment"] == "b_in_a"
    assert found["share_b"] >= 0.9 and found["share_a"] < 0.5
    assert found["matched_paragraphs"] == [[0, 0]]
    for off in ({"contained_paragraphs": False}, {"excerpts": False}):
        assert not create("paragraph", **off).compare(speech, excerpt)["duplicate"]
    quoted = create("paragraph").compare(speech, follow_up)
    assert not quoted["duplicate"] and quoted["matched_paragraphs"] == []


@pytest.mark.parametrize(("excerpts", "first"), [(True, False), (False, False), (True, True)])
def test_excerpts_in_a_corpus_on_every_surface(excerpts, first):
    """In a corpus of 300 stories with two speeches, their excerpts and a follow-up: the batch
    and the online detector (documents added in order) remove each excerpt for its speech,
    and nothing else beyond the planted repost (the follow-up, after the excerpt, holds it as a
    whole paragraph, but only the speech is kept). With ``excerpts`` off the excerpt is kept,
    and the follow-up that holds it whole is removed for it. An excerpt that comes first is
    kept, and the speech that contains it and the follow-up are removed for it (``--keep
    first``: the later document of a pair, whatever the containment)."""
    texts, source = corpus(size=300)
    planted = {300: source}
    for seed in (1, 2):
        speech, excerpt, follow_up = _speech(seed)
        at = len(texts)
        if first:
            texts += [excerpt, speech, follow_up]
            planted.update({at + 1: at, at + 2: at})
        else:
            texts += [speech, excerpt, follow_up]  # the follow-up holds the excerpt whole
            planted.update({at + 1: at} if excerpts else {at + 2: at + 1})
    method = create("paragraph", excerpts=excerpts)
    rep = np.asarray(dedup_with(method, texts).clusters.representative)
    assert {i: int(r) for i, r in enumerate(rep) if r != i} == planted
    det = Detector(
        store=open_store("memory://"), method="paragraph", tables=method.tables, excerpts=excerpts
    )
    online = {}
    for i, text in enumerate(texts):
        result = det.add(str(i), text)
        if result.duplicate:
            online[i] = int(result.matches[0].id)
    assert online == planted


def test_an_excerpt_of_one_paragraph_of_several(monkeypatch):
    """A run of sentences from the middle of the second of three paragraphs (a third of it)
    is contained in the story, either way round; one sentence of it, a line (at most
    ``HEADLINE_TOKENS`` tokens), is no excerpt — a flash headline restates its story, a
    one-line statement is what a longer story quotes — though it is contained, as the rule
    without lines says."""
    import neardup.methods.paragraph as paragraph

    rng = random.Random(7)
    paras = [[sentence(rng) for _ in range(9)] for _ in range(3)]
    story = "\n\n".join(" ".join(p) for p in paras)
    excerpt = " ".join(paras[1][3:6])
    method = create("paragraph")
    found = method.compare(story, excerpt)
    assert found["duplicate"] and found["containment"] == "b_in_a"
    assert found["matched_paragraphs"] == [[1, 0]]
    back = method.compare(excerpt, story)
    assert back["duplicate"] and back["containment"] == "a_in_b"
    assert back["matched_paragraphs"] == [[0, 1]]
    line = paras[1][1]
    assert len(line.split()) <= HEADLINE_TOKENS
    assert not method.compare(story, line)["duplicate"]
    monkeypatch.setattr(paragraph, "line_rows", lambda a, b: np.zeros(len(a), np.bool_))
    assert method.compare(story, line)["duplicate"]


def test_the_batch_judges_every_pair_that_could_be_an_excerpt(monkeypatch):
    """The batch judges contained paragraphs only of document pairs whose paragraphs could
    cover ``contained`` of one document (``_could_be_excerpts``, a bound): its shares are
    those of judging every candidate pair, on a small corpus (few common grams, so that
    excerpts are not whole copies) of excerpts and sources both ways round, stories of several
    paragraphs, lines, follow-ups and excerpts beside text of their own (shares under 1)."""
    import neardup.methods.paragraph as paragraph

    rng = random.Random(3)
    texts, _ = corpus(size=20)
    for seed in range(6):
        speech, excerpt, follow_up = _speech(seed)
        piece = " ".join(texts[seed].split("\n\n")[1].split(". ")[:2])
        headline = " ".join(speech.split()[:12])
        said = [sentence(rng) for _ in range(15)]
        padded = " ".join(said[6:9]) + "\n\n" + sentence(rng)  # a share of about 0.75
        group = [speech, excerpt, follow_up, piece, headline, " ".join(said), padded]
        rng.shuffle(group)
        texts += group

    def shares():
        method = create("paragraph", contained=0.7)
        compared, counts = method.compared_paragraphs(texts)
        s = method._copy_shares(compared, counts, fit=True)
        return {
            (a, b): (round(x, 9), round(y, 9))
            for a, b, x, y in zip(s.a.tolist(), s.b.tolist(), s.share_a, s.share_b, strict=True)
        }

    bounded = shares()
    assert sum(max(v) >= 0.7 for v in bounded.values()) >= 12
    assert sum(0.7 <= max(v) < 0.9 for v in bounded.values()) >= 3  # not whole excerpts only
    monkeypatch.setattr(
        paragraph, "_could_be_excerpts", lambda paras, pair, pl, pr, **_: np.ones(len(pl), bool)
    )
    assert shares() == bounded


def test_document_shares_takes_an_unanchored_pair_only_as_an_excerpt():
    """The rule on rows, by hand (``excerpts`` on): pair (0, 1) has contained rows only, covering all of
    document 1 — kept; pair (0, 2) contained rows covering 60 % of either — dropped; pair
    (3, 4) a frame row and a contained row covering 95 % of document 4 beside it — the
    contained row is kept, the frame row is not counted."""
    shares = document_shares(
        np.array([0, 0, 0, 3, 3]),
        np.array([1, 2, 2, 4, 4]),
        np.array([0, 0, 1, 0, 1]),
        np.array([0, 0, 1, 0, 1]),
        np.array([30.0, 30.0, 30.0, 5.0, 95.0]),
        np.array([40.0, 30.0, 30.0, 5.0, 95.0]),
        np.array([100, 100, 100, 100, 100]),
        np.array([40, 100, 100, 100, 100]),
        whole=np.zeros(5, np.bool_),
        frame=np.array([0, 0, 0, 1, 0], np.int8),
        contained=0.9,
        excerpts=True,
    )
    assert list(zip(shares.a.tolist(), shares.b.tolist(), strict=True)) == [(0, 1), (3, 4)]
    assert shares.share_b.tolist() == [1.0, 0.95]
    assert shares.share_a.tolist() == [0.3, 0.95]


@pytest.mark.parametrize(("covered", "kept"), [(90.0, True), (89.0, False)])
def test_an_excerpt_is_a_share_of_at_least_contained(covered, kept):
    """At ``contained`` exactly, a pair is an excerpt; under it, not; a row that pairs a line
    carries none, and without ``excerpts`` no unanchored pair counts."""
    rows = [np.array([v]) for v in (0, 1, 0, 0)] + [np.array([covered])] * 2
    totals = [np.array([100]), np.array([100])]

    def pairs(**options) -> int:
        shares = document_shares(*rows, *totals, whole=np.zeros(1, np.bool_), **options)
        return len(shares)

    assert pairs(contained=0.9, excerpts=True) == int(kept)
    assert pairs(contained=0.9, excerpts=True, lines=np.ones(1, np.bool_)) == 0
    assert pairs(contained=0.9) == 0
