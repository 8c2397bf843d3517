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


@pytest.mark.parametrize("excerpts", [True, False])
def test_excerpts_in_a_corpus_on_every_surface(excerpts):
    """In a corpus of 300 stories with two speeches, their excerpts and a follow-up: the batch
    and the online detector (documents added in order) remove each excerpt for its speech,
    and nothing else beyond the planted repost (the follow-up, after the excerpt, holds it as a
    whole paragraph, but only the speech is kept). With ``excerpts`` off the excerpt is kept,
    and the follow-up that holds it whole is removed for it."""
    texts, source = corpus(size=300)
    planted = {300: source}
    for seed in (1, 2):
        speech, excerpt, follow_up = _speech(seed)
        texts += [speech, excerpt, follow_up]  # the follow-up holds the excerpt whole
        if excerpts:  # the excerpt for its speech
            planted[len(texts) - 2] = len(texts) - 3
        else:  # the excerpt is kept, and the follow-up holding it whole removed for it
            planted[len(texts) - 1] = len(texts) - 2
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


def test_document_shares_takes_an_unanchored_pair_only_as_an_excerpt():
    """The rule on rows, by hand: pair (0, 1) has contained rows only, covering all of
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
