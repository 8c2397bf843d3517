"""How much of each document its matched paragraphs cover, and which contains which.

The one decision of the ``paragraph`` method, for every surface (batch, the online detector and
Spark call it): given matched paragraph pairs between documents, each with the weight it covers
on either side (characters for the default ``copy`` evidence, 1 per paragraph for the reference's
``topic`` evidence), a document pair's

- ``covered_a`` / ``covered_b``: the weight of A's (B's) distinct matched paragraphs, each counted
  once at its best match;
- ``share_a`` / ``share_b``: that weight over the document's whole weight (reported both ways);
- **duplicate** when ``max(share_a, share_b) >= threshold``, both sides cover at least
  ``min_shared`` (enough distinctive text in common, not a shared dateline) and no paragraph
  pair is *substituted* (:meth:`DocumentShares.mark_substituted`): two stories built from one
  template share their frame paragraphs word for word and hold the others as versions with
  other values (two years' congress sessions, a ceremony with other leaders); a copy inserts,
  deletes and edits paragraphs, it does not restate one with other values;
- **relation**: ``a_in_b`` when A is contained in B (``share_a >= contained``), ``b_in_a`` the
  reverse, ``mutual`` both, ``partial`` neither (some paragraphs shared);
- **frames** (``frame=`` rows, :func:`frame_rows`): a header line matched to the other's header
  line, or a footer line to its footer, in documents that each hold a body, is no anchor: a
  pair whose whole matched rows are all such lines shares nothing — one header and footer
  around two different stories (a corpus makes a header held by many documents common; a
  header of a few documents, or of two compared alone, it cannot);
- **shared tails** (``frame=`` rows coded ``TAIL_ROW``): each document's *last* paragraph
  matched, at least one of them after a body of its own. A pair whose anchors are all such
  rows shares only its ending — two different stories closing with one broadcast notice or
  one background paragraph — and is no duplicate unless one document is contained in the
  other (an excerpt of a story's last paragraph); it is still reported as a partial
  duplicate. A corpus makes a notice held by many documents common; a notice of a few
  documents (nine announcements of a batch of 3,000 stories) it cannot.

A containment pair is a relation, not an equivalence: clusters come from the greedy rule of
:mod:`neardup.cluster`, which verifies every duplicate against its own representative.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

RELATIONS = ("mutual", "a_in_b", "b_in_a", "partial")
MAX_LISTED = 50  # matched paragraph pairs listed per document pair in the evidence
FIRST, LAST, SHORT, ALONE = 1, 2, 4, 8  # bits of a paragraph's frame ends (:func:`frame_ends`)
FRAME_ROW, TAIL_ROW = 1, 2  # codes of a matched row (:func:`frame_rows`)


@dataclass
class DocumentShares:
    """Per candidate document pair (``a < b``): covered weights and shares both ways; the
    matched paragraph rows sorted by pair (``rows[start[k]:start[k + 1]]`` are pair ``k``'s)."""

    a: np.ndarray
    b: np.ndarray
    covered_a: np.ndarray
    covered_b: np.ndarray
    share_a: np.ndarray
    share_b: np.ndarray
    para_a: np.ndarray  # per matched row, sorted by pair
    para_b: np.ndarray
    start: np.ndarray
    substituted: np.ndarray  # per pair: substituted paragraph pairs marked (none at first)
    versions: dict[int, list[list[int]]] = field(default_factory=dict)  # listed in evidence
    tail: np.ndarray | None = None  # per pair: anchored by shared tails alone (see above)

    def __len__(self) -> int:
        return len(self.a)

    def mark_substituted(self, pair: np.ndarray, para_a: np.ndarray, para_b: np.ndarray) -> None:
        """Record substituted paragraph pairs ``(para_a[k], para_b[k])`` of document pairs
        ``pair[k]`` (positions in this table): such a pair is not a duplicate."""
        pair = np.asarray(pair, np.int64)
        self.substituted = self.substituted + np.bincount(pair, minlength=len(self))
        for k, ia, ib in zip(pair.tolist(), para_a.tolist(), para_b.tolist(), strict=True):
            listed = self.versions.setdefault(k, [])
            if len(listed) < MAX_LISTED:
                listed.append([ia, ib])

    @property
    def score(self) -> np.ndarray:
        """The closeness the clustering rule uses: the larger share, as float32 everywhere."""
        return np.maximum(self.share_a, self.share_b).astype(np.float32)

    def duplicate(self, *, threshold: float, min_shared: float) -> np.ndarray:
        return self.candidate(threshold=threshold, min_shared=min_shared) & (self.substituted == 0)

    def candidate(self, *, threshold: float, min_shared: float) -> np.ndarray:
        """The pairs that are duplicates by their shares alone (before substitutions are
        looked for: only these need the look)."""
        shared = np.minimum(self.covered_a, self.covered_b)
        found = (self.score >= np.float32(threshold)) & (shared >= min_shared)
        return found if self.tail is None else found & ~self.tail

    def relation(self, *, contained: float) -> np.ndarray:
        """Codes into :data:`RELATIONS` per pair."""
        ina, inb = self.share_a >= contained, self.share_b >= contained
        return np.where(ina & inb, 0, np.where(ina, 1, np.where(inb, 2, 3))).astype(np.int8)

    def evidence(self, keep: np.ndarray, *, contained: float) -> dict[tuple[int, int], Any]:
        """``{(a, b): {share_a, share_b, covered_a, covered_b, containment, matched_paragraphs}}``
        for the pairs ``keep`` selects."""
        rel = self.relation(contained=contained)
        out: dict[tuple[int, int], Any] = {}
        for k in np.flatnonzero(keep).tolist():
            lo, hi = int(self.start[k]), int(self.start[k + 1])
            matched = sorted(
                set(zip(self.para_a[lo:hi].tolist(), self.para_b[lo:hi].tolist(), strict=True))
            )
            out[(int(self.a[k]), int(self.b[k]))] = {
                "share_a": round(float(self.share_a[k]), 4),
                "share_b": round(float(self.share_b[k]), 4),
                "covered_a": round(float(self.covered_a[k]), 1),
                "covered_b": round(float(self.covered_b[k]), 1),
                "containment": RELATIONS[rel[k]],
                "matched_paragraphs": [list(m) for m in matched[:MAX_LISTED]],
                "substituted_paragraphs": sorted(self.versions.get(k, [])),
            }
            if self.tail is not None and self.tail[k]:  # why such a share is no duplicate
                out[(int(self.a[k]), int(self.b[k]))]["shared_tail_only"] = True
        return out


def document_shares(
    doc_a: np.ndarray,
    doc_b: np.ndarray,
    para_a: np.ndarray,
    para_b: np.ndarray,
    covered_a: np.ndarray,
    covered_b: np.ndarray,
    total_a: np.ndarray,
    total_b: np.ndarray,
    *,
    whole: np.ndarray | None = None,
    frame: np.ndarray | None = None,
    contained: float = 1.0,
    excerpts: bool = False,
    lines: np.ndarray | None = None,
) -> DocumentShares:
    """Aggregate matched paragraph rows (one per paragraph pair, ``doc_a < doc_b``) into
    document pairs. ``covered_*``: the weight each row covers on that side; ``total_*``: the
    document's whole weight (the same on every row of a document). ``whole`` (default: every
    row): which rows are whole matches; ``frame`` (default: none): per row, ``FRAME_ROW`` where
    it matches a header line to the other's header line or a footer line to its footer,
    ``TAIL_ROW`` where it matches the two documents' last paragraphs (:func:`frame_rows`). Rows
    count only in a document pair with at least one whole row that is not a frame: a contained
    paragraph needs a whole one beside it, and two documents that share no more than their
    frame (one header and footer around different stories) share nothing — unless, with
    ``excerpts``, its rows that are neither frames nor ``lines`` (default: none; per row, a
    paragraph of it is a line: :func:`line_rows`) cover at least ``contained`` of one document
    (an excerpt: :func:`_excerpt_rows`). A pair whose whole
    rows are all tails, neither document contained in the other (a share under
    ``contained``), is marked ``tail``: no duplicate (see the module docstring)."""
    doc_a = np.asarray(doc_a, np.int64)
    doc_b = np.asarray(doc_b, np.int64)
    code = np.zeros(len(doc_a), np.int8) if frame is None else np.asarray(frame, np.int8)
    if (whole is not None or frame is not None) and len(doc_a):
        anchor = np.ones(len(doc_a), np.bool_) if whole is None else np.asarray(whole, np.bool_)
        anchor = anchor & (code != FRAME_ROW)
        key = (doc_a << 32) | doc_b
        anchored = np.isin(key, key[anchor])
        beyond_tail = np.isin(key, key[anchor & (code != TAIL_ROW)])
        if excerpts and not anchored.all():
            loose = ~anchored & (code != FRAME_ROW)
            if lines is not None:
                loose &= ~np.asarray(lines, np.bool_)
            anchored |= _excerpt_rows(
                key, loose, para_a, para_b, covered_a, covered_b, total_a, total_b,
                contained=contained,
            )  # fmt: skip
        if not anchored.all():
            doc_a, doc_b = doc_a[anchored], doc_b[anchored]
            para_a, para_b = np.asarray(para_a)[anchored], np.asarray(para_b)[anchored]
            covered_a, covered_b = np.asarray(covered_a)[anchored], np.asarray(covered_b)[anchored]
            total_a, total_b = np.asarray(total_a)[anchored], np.asarray(total_b)[anchored]
            beyond_tail = beyond_tail[anchored]
    else:
        beyond_tail = np.ones(len(doc_a), np.bool_)
    if len(doc_a) and not (doc_a < doc_b).all():
        raise ValueError("document_shares needs rows oriented doc_a < doc_b")
    key = (doc_a << 32) | doc_b
    order = np.lexsort((para_b, para_a, key))
    key, doc_a, doc_b = key[order], doc_a[order], doc_b[order]
    beyond_tail = beyond_tail[order]
    para_a, para_b = np.asarray(para_a)[order], np.asarray(para_b)[order]
    covered_a, covered_b = np.asarray(covered_a)[order], np.asarray(covered_b)[order]
    total_a, total_b = np.asarray(total_a)[order], np.asarray(total_b)[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, int)
    pair = np.cumsum(np.r_[False, key[1:] != key[:-1]]) if len(key) else np.zeros(0, int)
    n = len(first)
    got_a, share_a = _covered(pair, n, para_a, covered_a, total_a[first])
    got_b, share_b = _covered(pair, n, para_b, covered_b, total_b[first])
    tail = ~beyond_tail[first] & (share_a < contained) & (share_b < contained)
    return DocumentShares(
        doc_a[first],
        doc_b[first],
        got_a,
        got_b,
        share_a,
        share_b,
        para_a.astype(np.int64),
        para_b.astype(np.int64),
        np.r_[first, len(key)].astype(np.int64),
        np.zeros(n, np.int64),
        tail=tail,
    )


def frame_ends(
    doc: np.ndarray,
    index: np.ndarray,
    tokens: np.ndarray,
    usable: np.ndarray,
    *,
    documents: int,
    most: int,
) -> np.ndarray:
    """Per paragraph (of document ``doc`` of ``documents``, ``index`` within it, ``tokens``
    long; ``usable``: can be evidence), bits: ``SHORT`` for a paragraph of
    at most ``most`` tokens (a line: a header, a footer), and ``FIRST`` / ``LAST`` for the
    first / last *usable* paragraph of a document with a *body* besides it: a usable paragraph
    that is not a line at either end. A separator no paragraph can match ("###", "* * *") does
    not hide a header or footer; a document whose lines, or whose one long paragraph, are all
    it has to match with has no frame."""
    doc, index = np.asarray(doc, np.int64), np.asarray(index, np.int64)
    usable = np.asarray(usable, np.bool_)
    n = documents
    first = np.full(n, np.iinfo(np.int64).max, np.int64)  # stays so where none is usable
    last = np.full(n, -1, np.int64)
    np.minimum.at(first, doc[usable], index[usable])
    np.maximum.at(last, doc[usable], index[usable])
    ends = np.where(index == first[doc], FIRST, 0) | np.where(index == last[doc], LAST, 0)
    short = np.asarray(tokens) <= most
    inner = usable & ~((ends != 0) & short)
    body = np.bincount(doc[inner], minlength=n)[doc] - inner > 0 if len(doc) else inner
    ends = np.where(body & usable, ends, 0) | np.where(short, SHORT, 0)
    alone = usable & (np.bincount(doc[usable], minlength=n)[doc] == 1) if len(doc) else usable
    return (ends | np.where(alone, ALONE, 0)).astype(np.int8)


def frame_rows(end_a: np.ndarray, end_b: np.ndarray) -> np.ndarray:
    """Per matched row, ``FRAME_ROW`` where it pairs two first paragraphs that are both lines
    (headers), or two last paragraphs of which one is a line (:func:`frame_ends`): a footer,
    also one glued to the last lines of a hard-wrapped text or of a table, whose other rare
    grams are few; ``TAIL_ROW`` where it pairs two last paragraphs otherwise — each its
    document's last usable one after a body (``LAST``) or its only one (``ALONE``), at least
    one after a body; else 0. A paragraph under a headline line is neither: that document is
    the paragraph (an excerpt with a title of its own stays a duplicate; a notice under a
    headline, the cost, too)."""
    end_a, end_b = np.asarray(end_a, np.int8), np.asarray(end_b, np.int8)
    both, either = end_a & end_b, end_a | end_b
    header = ((both & FIRST) != 0) & ((both & SHORT) != 0)
    footer = ((both & LAST) != 0) & ((either & SHORT) != 0)
    ending_a, ending_b = (end_a & (LAST | ALONE)) != 0, (end_b & (LAST | ALONE)) != 0
    tail = ending_a & ending_b & ((either & LAST) != 0)
    return np.where(header | footer, FRAME_ROW, np.where(tail, TAIL_ROW, 0)).astype(np.int8)


def line_rows(end_a: np.ndarray, end_b: np.ndarray) -> np.ndarray:
    """Per matched row, whether one of its paragraphs is a *line* (``SHORT``: at most
    ``HEADLINE_TOKENS`` tokens, :func:`frame_ends`). A line inside a paragraph is no excerpt: a
    flash headline ("SEARS ROEBUCK SAID IT WILL REDEEM ALL … SHARES") restates the story that
    follows it in other words, and a one-line statement is what a longer story quotes."""
    return ((np.asarray(end_a, np.int8) | np.asarray(end_b, np.int8)) & SHORT) != 0


def _excerpt_rows(
    key: np.ndarray,
    loose: np.ndarray,
    para_a: np.ndarray,
    para_b: np.ndarray,
    covered_a: np.ndarray,
    covered_b: np.ndarray,
    total_a: np.ndarray,
    total_b: np.ndarray,
    *,
    contained: float,
) -> np.ndarray:
    """Which ``loose`` rows (of pairs without an anchor; frames and lines left out) belong to a
    pair one of whose documents they cover to at least ``contained``: an *excerpt* — a
    document cut from the other, its paragraphs each inside one of the other's (a
    one-paragraph story cut short, a run of its sentences) — needs no whole paragraph beside
    it. A follow-up that quotes part of a speech holds text of its own, so the quotes cover
    little of it (one that quotes all of a document is contained in it: a relation)."""
    rows = np.flatnonzero(loose)
    if not len(rows):
        return loose
    pairs, pair = np.unique(key[rows], return_inverse=True)
    first = rows[np.unique(pair, return_index=True)[1]]
    n = len(pairs)
    share = [
        _covered(
            pair, n, np.asarray(para)[rows], np.asarray(covered)[rows], np.asarray(total)[first]
        )[1]
        for para, covered, total in ((para_a, covered_a, total_a), (para_b, covered_b, total_b))
    ]
    excerpt = pairs[(share[0] >= contained) | (share[1] >= contained)]
    return loose & np.isin(key, excerpt)


def _covered(
    pair: np.ndarray, n: int, para: np.ndarray, covered: np.ndarray, total: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per pair (``pair`` numbers the rows' pairs ``0..n-1``; ``total``: each pair's document
    weight on this side): the weight its distinct paragraphs cover, and that share of it."""
    got = _distinct_best(pair, para, covered, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return got, np.nan_to_num(got / total).clip(0.0, 1.0)


def _distinct_best(pair: np.ndarray, para: np.ndarray, weight: np.ndarray, n: int) -> np.ndarray:
    """Per pair: the sum over its distinct paragraphs of their largest covered weight."""
    if not len(pair):
        return np.zeros(n, np.float64)
    order = np.lexsort((weight, para, pair))
    p, q, w = pair[order], para[order], np.asarray(weight, np.float64)[order]
    last = np.r_[(p[1:] != p[:-1]) | (q[1:] != q[:-1]), True]
    return np.bincount(p[last], weights=w[last], minlength=n)
