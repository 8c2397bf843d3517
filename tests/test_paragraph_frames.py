"""Header and footer lines (the ``paragraph`` method's ``ignore_frames``): two documents that
share no more than the lines around different bodies share nothing — neither a duplicate nor a
partial one — on every surface; a frame beside shared text still counts with it."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.containment import (
    ALONE,
    FIRST,
    FRAME_ROW,
    LAST,
    SHORT,
    TAIL_ROW,
    document_shares,
    frame_ends,
    frame_rows,
)
from neardup.dedup import dedup_with
from neardup.methods import create
from neardup.methods.paragraph import HEADLINE_TOKENS
from neardup.online import Detector
from neardup.store import open_store
from wordstories import VOCABULARY, corpus, sentence

HEAD = "From our correspondents in London and New York today."
FOOT = "This article is reproduced from the web and copyright belongs to its author."


def _framed(body: str) -> str:
    return f"{HEAD}\n\n{body}\n\n{FOOT}"


def ends_by_definition(counts, tokens, usable, most):
    """The docstring of :func:`frame_ends`, one document and paragraph at a time."""
    out, row = [], 0
    for n in counts:
        rows = [r for r in range(row, row + n) if usable[r]]
        ends = (rows[0], rows[-1]) if rows else ()
        body = [r for r in rows if not (r in ends and tokens[r] <= most)]
        for r in range(row, row + n):
            bits = SHORT if tokens[r] <= most else 0
            if usable[r] and [q for q in body if q != r]:
                bits |= (FIRST if r == ends[0] else 0) | (LAST if r == ends[1] else 0)
            if usable[r] and len(rows) == 1:  # the document's only usable paragraph
                bits |= ALONE
            out.append(bits)
        row += n
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_frame_ends_by_definition(counts, rnd):
    total = sum(counts)
    tokens = [rnd.randint(0, 40) for _ in range(total)]
    usable = [rnd.random() < 0.6 for _ in range(total)]
    doc = np.repeat(np.arange(len(counts)), counts)
    index = np.concatenate([np.arange(n) for n in counts])
    got = frame_ends(doc, index, np.array(tokens), np.array(usable), documents=len(counts), most=20)
    assert got.tolist() == ends_by_definition(counts, tokens, usable, 20)


@given(st.lists(st.tuples(st.integers(0, 15), st.integers(0, 15)), max_size=60))
def test_frame_rows_by_definition(pairs):
    """A header pairs two first lines; a footer two last paragraphs, one a line (frames); a
    tail two paragraphs that end their documents (last, or alone), one after a body."""
    a = np.array([p[0] for p in pairs], np.int8)
    b = np.array([p[1] for p in pairs], np.int8)
    want = []
    for x, y in pairs:
        frame = bool(x & y & FIRST and x & SHORT and y & SHORT) or bool(
            x & y & LAST and (x | y) & SHORT
        )
        tail = bool(x & (LAST | ALONE)) and bool(y & (LAST | ALONE)) and bool((x | y) & LAST)
        want.append(FRAME_ROW if frame else TAIL_ROW if tail else 0)
    assert frame_rows(a, b).tolist() == want


def _two_stories() -> tuple[str, str]:
    rng = random.Random(3)
    return _framed(sentence(rng)), _framed(sentence(rng))


def test_documents_that_share_only_their_frame_share_nothing():
    """Two one-sentence stories between one header and one footer: the frame is 70 % of
    each, a duplicate by shares alone; now neither a duplicate nor a partial duplicate."""
    a, b = _two_stories()
    found = create("paragraph").compare(a, b)
    assert not found["duplicate"] and not found["partial_duplicate"]
    assert found["matched_paragraphs"] == [] and found["share_a"] == 0.0
    assert found["frame_paragraphs"] == [[0, 0], [2, 2]]  # compare shows what it set aside
    old = create("paragraph", ignore_frames=False).compare(a, b)
    assert old["duplicate"] and old["matched_paragraphs"] == [[0, 0], [2, 2]]


def test_batch_and_online_keep_framed_stories_apart():
    """In a corpus, the batch and the online detector (documents added in order) remove the
    planted repost and not the second framed story; without the rule both remove it."""
    texts, source = corpus(size=300)
    texts += list(_two_stories())
    n = len(texts)
    for ignore, removed in ((True, {300: source}), (False, {300: source, n - 1: n - 2})):
        method = create("paragraph", ignore_frames=ignore)
        rep = np.asarray(dedup_with(method, texts).clusters.representative)
        assert {i: int(r) for i, r in enumerate(rep) if r != i} == removed
        assert online_removals(texts, method.tables, ignore_frames=ignore) == removed


def online_removals(texts: list[str], tables, **options) -> dict[int, int]:
    """Each document the online detector, given the texts in order, finds a duplicate: its
    first match."""
    det = Detector(store=open_store("memory://"), method="paragraph", tables=tables, **options)
    online = {}
    for i, text in enumerate(texts):
        result = det.add(str(i), text)
        if result.duplicate:
            online[i] = int(result.matches[0].id)
    return online


def test_a_frame_beside_a_shared_paragraph_counts_with_it():
    """Where the documents share more than their frame, the frame's lines count as before:
    the same matched paragraphs and covered characters as without the rule."""
    rng = random.Random(4)
    shared = sentence(rng) + " " + sentence(rng)
    a = _framed(shared + "\n\n" + sentence(rng))
    b = _framed(shared + "\n\n" + sentence(rng))
    found = create("paragraph").compare(a, b)
    old = create("paragraph", ignore_frames=False).compare(a, b)
    assert found["matched_paragraphs"] == old["matched_paragraphs"] == [[0, 0], [1, 1], [3, 3]]
    assert found["covered_chars_a"] == old["covered_chars_a"] > 0
    assert found["frame_paragraphs"] == old["frame_paragraphs"] == []
    assert found["duplicate"] == old["duplicate"]


def test_lines_are_all_a_document_without_a_body_has():
    """Two documents of a header and a footer line alone (no body between them) are copies
    of each other when their lines are: nothing else could be evidence."""
    a = f"{HEAD}\n\n{FOOT}"
    b = f"{HEAD}\n\n{FOOT} Thanks."
    assert create("paragraph").compare(a, b)["duplicate"]


def test_a_long_first_paragraph_is_a_quoted_lead_not_a_header():
    """A digest that opens with a story's first paragraph shares a lead, not a header, when
    that paragraph is longer than a line (``HEADLINE_TOKENS``): still a partial duplicate."""
    rng = random.Random(6)
    lead = " ".join(sentence(rng) for _ in range(3))
    assert len(lead.split()) > HEADLINE_TOKENS
    story = "\n\n".join([lead, *(sentence(rng) + " " + sentence(rng) for _ in range(4)), FOOT])
    digest = "\n\n".join([lead, *(sentence(rng) + " " + sentence(rng) for _ in range(6)), HEAD])
    found = create("paragraph").compare(story, digest)
    assert found["partial_duplicate"] and found["matched_paragraphs"] == [[0, 0]]


def test_a_footer_glued_to_the_last_lines_of_a_wrapped_text_is_a_frame():
    """A hard-wrapped text's lines are joined into paragraphs, and a footer line right under
    its last line joins that paragraph: matched inside it, it is still the footer."""
    rng = random.Random(7)
    words = " ".join(sentence(rng) for _ in range(4)).split()
    lines, line = [], ""
    for w in words:
        if len(line) + len(w) > 60:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    wrapped = "\n".join([*lines, line + ".", FOOT])
    a = f"{HEAD}\n\n{sentence(rng)} {sentence(rng)}\n\n{sentence(rng)}\n\n{FOOT}"
    b = f"{HEAD}\n\n{sentence(rng)} {sentence(rng)}\n\n{wrapped}"
    old = create("paragraph", ignore_frames=False).compare(a, b)
    assert old["partial_duplicate"] or old["duplicate"]  # the frame alone, counted
    found = create("paragraph").compare(a, b)
    assert not found["duplicate"] and not found["partial_duplicate"]


def test_a_frame_anchors_no_quoted_sentence():
    """A contained paragraph counts only beside a whole one; a header or footer is none: a
    follow-up quoting a sentence of a speech shares nothing with it under one frame, as
    without the frame (review of the first version, which let the frame anchor the quote)."""
    rng = random.Random(11)
    quote = " ".join(sentence(rng) for _ in range(2))
    speech = " ".join([sentence(rng), quote, sentence(rng), sentence(rng), sentence(rng)])
    own = [" ".join(sentence(rng) for _ in range(3)) for _ in range(2)]
    bare = create("paragraph").compare(f"{speech}\n\n{own[0]}", f"{quote}\n\n{own[1]}")
    assert bare["matched_paragraphs"] == []  # the quote alone: no whole paragraph shared
    a = "\n\n".join([HEAD, speech, own[0], FOOT])
    b = "\n\n".join([HEAD, quote, own[1], FOOT])
    found = create("paragraph").compare(a, b)
    assert not found["duplicate"] and found["matched_paragraphs"] == []
    assert found["frame_paragraphs"] == [[0, 0], [3, 3]]  # the lines, not the quote
    texts = [a, b]
    assert list(dedup_with(create("paragraph"), texts).clusters.representative) == [0, 1]


@pytest.mark.parametrize("around", [("", "\n\n###"), ("* * *\n\n", ""), ("* * *\n\n", "\n\n###")])
def test_a_separator_does_not_hide_the_frame(around):
    """A line no paragraph can match before the header or after the footer ("###" under a
    press release) leaves the header and footer the ends of their documents."""
    a, b = _two_stories()
    before, after = around
    found = create("paragraph").compare(before + a + after, b + after)
    assert not found["duplicate"] and not found["partial_duplicate"]


def test_a_story_copied_as_the_short_last_line_of_another_is_no_footer():
    """A one-paragraph story that another document quotes whole as its short last paragraph
    is contained in it, not a footer facing a footer (review of the first version). Quoted
    in part (20 of its 26 words), it shares only the other's ending, holding text of its own
    besides: a partial duplicate, reported, not removed (a shared tail)."""
    rng = random.Random(21)
    words = [rng.choice(VOCABULARY) for _ in range(26)]
    a = " ".join(words).capitalize() + "."
    body = " ".join(sentence(rng) for _ in range(3))
    for quoted, duplicate in ((26, True), (20, False)):
        tail = " ".join(words[:quoted]).capitalize() + "."
        found = create("paragraph").compare(a, "\n\n".join([HEAD, body, tail]))
        assert found["matched_paragraphs"] == [[0, 2]]
        assert found["duplicate"] == duplicate and found["partial_duplicate"] != duplicate


NOTICE = (
    "The ceremony will be broadcast live on the first channel, the news channel and the "
    "international channel, and streamed on the website and the mobile application of the "
    "station. Listeners can follow it on the national radio and on the world service, which "
    "will carry it in eleven languages. Local stations will relay the broadcast in full."
)


def _announcements() -> list[str]:
    """Three announcements of different events closing with one broadcast notice (two with
    the notice as a paragraph of its own, one with it in the lead's paragraph), and an
    excerpt: the notice alone."""
    rng = random.Random(5)
    a, b, c = (sentence(rng) + " " + sentence(rng) for _ in range(3))
    return [f"{a}\n\n{NOTICE}", f"{b}\n\n{NOTICE}", f"{c} {NOTICE}", NOTICE]


def test_stories_that_share_only_their_ending_are_no_duplicates():
    """Nine CCTV announcements of different events (a congress opening, a wreath ceremony, a
    press meeting) share one broadcast notice, more than half of each: the paragraph method
    removed seven of them from a batch of 3,000 stories, where the notice is not common. A
    pair anchored by its documents' last paragraphs alone is a partial duplicate, not a
    duplicate — unless one document is contained in the other (the excerpt)."""
    a, b, c, excerpt = _announcements()
    method = create("paragraph")
    for x, y in ((a, b), (a, c), (c, b)):
        found = method.compare(x, y)
        assert found["share_a"] >= 0.5 and found["share_b"] >= 0.5  # a duplicate by shares
        assert not found["duplicate"] and found["partial_duplicate"], (x[:30], y[:30])
        assert found["shared_tail_only"]
    assert method.compare(excerpt, a)["duplicate"]  # contained: an excerpt of its ending
    # what eval scores decides as compare does (a share over the threshold kept apart: 0)
    scores = method.score_pairs([a, a, c, excerpt], [b, c, b, a])
    assert (scores >= method.threshold).tolist() == [False, False, False, True]
    # review: an excerpt under a headline line of its own (less than 0.9 of it) is no tail —
    # a document of a headline and one paragraph is that paragraph — and stays a duplicate
    titled = "Station sets out its plan to cover the national day ceremony and parade\n\n" + NOTICE
    found = method.compare(titled, a)
    assert found["share_a"] < 0.9 and found["duplicate"] and not found["shared_tail_only"]
    texts, source = corpus(size=300)
    texts += [a, b, c, excerpt]
    n = len(texts)
    removed = {300: source, n - 1: n - 4}  # the planted repost, and the excerpt
    batch = create("paragraph")
    result = dedup_with(batch, texts)
    rep = np.asarray(result.clusters.representative)
    assert {i: int(r) for i, r in enumerate(rep) if r != i} == removed
    pairs = zip(result.related.left.tolist(), result.related.right.tolist(), strict=True)
    related = set(pairs)
    assert {(n - 4, n - 3), (n - 4, n - 2), (n - 3, n - 2)} <= related  # still reported
    assert online_removals(texts, batch.tables) == removed


def test_a_tail_beside_another_shared_paragraph_counts_with_it():
    """Rows: pair 0 shares only its tails (no duplicate); pair 1 a tail and a body paragraph
    (a duplicate, the tail counted); pair 2 only tails, but document 0 is contained in 2."""
    shares = document_shares(
        np.array([0, 0, 1, 1, 0]),
        np.array([1, 1, 2, 2, 2]),
        np.array([1, 1, 0, 1, 0]),
        np.array([1, 1, 0, 1, 1]),
        np.array([60.0, 60.0, 40.0, 60.0, 100.0]),
        np.array([60.0, 60.0, 40.0, 60.0, 100.0]),
        np.array([100.0, 100.0, 100.0, 100.0, 100.0]),
        np.array([100.0, 100.0, 100.0, 100.0, 200.0]),
        whole=np.ones(5, np.bool_),
        frame=np.array([TAIL_ROW, TAIL_ROW, 0, TAIL_ROW, TAIL_ROW], np.int8),
        contained=0.9,
    )
    assert list(zip(shares.a.tolist(), shares.b.tolist(), strict=True)) == [(0, 1), (0, 2), (1, 2)]
    assert shares.tail.tolist() == [True, False, False]
    assert shares.candidate(threshold=0.5, min_shared=50).tolist() == [False, True, True]
    evidence = shares.evidence(np.ones(3, np.bool_), contained=0.9)
    assert evidence[(0, 1)]["shared_tail_only"] and "shared_tail_only" not in evidence[(1, 2)]


def test_one_stock_sentence_beside_a_shared_ending_is_no_copy():
    """Review (of a version that let any contained paragraph beside a shared last paragraph
    count as text shared beyond the ending, to find heavy copies that pad their source's
    paragraphs): two stories closing with one newsletter notice, one of them quoting a stock
    sentence of the other inside a paragraph of its own, became duplicates. A shared tail is
    judged on the whole matched rows only; the contained sentence counts in the shares."""
    notice = (
        "This story has been updated with additional reporting. Sign up for our daily "
        "newsletter to receive the latest local news, weather and traffic updates every "
        "morning in your inbox, free of charge, and follow us on social media for breaking "
        "alerts throughout the day."
    )
    a = (
        "The city council voted on Tuesday to approve a new budget for road repairs across "
        "the northern district.\n\nOfficials declined to say how much the plan would cost "
        f"taxpayers.\n\n{notice}"
    )
    b = (
        "A local bakery won a national award for its sourdough bread this weekend, beating "
        "more than two hundred competitors from across the country.\n\nThe owner said she "
        "started baking at home during the pandemic and opened the shop two years ago, but "
        "officials declined to say how much the plan would cost taxpayers when asked about "
        "the new tax on small shops. She hopes to open a second location next year."
        f"\n\n{notice}"
    )
    found = create("paragraph").compare(a, b)
    assert found["share_a"] >= 0.5 and found["shared_tail_only"]
    assert not found["duplicate"] and found["partial_duplicate"]
    texts = [a, b, "An unrelated story about a football match that ended in a draw."]
    assert list(dedup_with(create("paragraph"), texts).clusters.representative) == [0, 1, 2]


def test_an_empty_batch_has_no_pairs():
    """A review: ``dedup_with(create("paragraph"), [])`` raised a ValueError (the command line
    refuses an input without records first; the library did not), where the other methods
    give an empty result."""
    for name in ("paragraph", "auto"):
        result = dedup_with(create(name), [])
        assert len(result.clusters.representative) == 0 and len(result.pairs) == 0
