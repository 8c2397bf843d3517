"""The ``paragraph`` method: documents that share paragraphs — reposts with commentary, excerpts,
digests, a story with a new lead — found, scored both ways and explained (reference 002).

Each document is split into paragraphs (its line breaks; with ``unwrap_lines``, on, the lines
of hard-wrapped prose are joined into their paragraph: :func:`neardup.features.paragraphs`).
Which paragraphs match is the *evidence*:

- ``copy`` (the default, chosen by measurement: docs/quality.md): a paragraph is compared as the
  ``auto`` method compares documents — compared text (markup, punctuation and script variants
  gone), rare character grams (grams held by more than ``max(common_min_df, common_share · N)``
  of the corpus' N paragraphs are common: headers, footers, datelines, template phrases) kept
  *as heard* (``heard_grams``: the gram of the characters read as their first reading, at each
  position whose written gram is rare, so that homophone typos leave a paragraph's grams as
  they were; in alphabetic text, with ``word_grams`` (3), a gram runs on over that many words —
  English letters carry too little for a 5-gram of them to be rare, three words in a row
  usually are: :func:`neardup._tokenkernels.word_gram_hashes`), bottom-k sketch candidates
  and the copy rule of :mod:`neardup.copyrule` (contained, and no substituted number, date or
  name). A paragraph with fewer than
  ``min_paragraph_grams`` rare grams carries no evidence. A matched paragraph covers its
  characters, times the share of it the match holds. With ``contained_paragraphs`` (on), a
  paragraph contained in a longer one matches too, however little of the longer it covers (a
  paragraph a copy padded with inserted sentences, or cut short by truncation), covering on
  each side what the match holds — but only in a document pair that also shares a *whole*
  paragraph (a copy by the rule, covering at least half of the longer): a copy keeps some of
  its source's paragraphs whole, while a follow-up that quotes sentences of a speech, each a
  short paragraph of its own inside a long one of the speech, shares none — or where such
  matches cover at least ``contained`` of one document: an *excerpt* (a run of sentences of a
  one-paragraph story) is all inside the other, a follow-up holds text of its own. With
  ``ignore_frames`` (on), two documents whose matched paragraphs are all header and footer
  lines around different bodies share nothing (:func:`neardup.containment.frame_rows`).
- ``topic`` (the reference's DRPKP fingerprint, :mod:`neardup.drpkp`): paragraphs within
  ``max_distance`` of each other's weighted topic-word SimHash match; every kept paragraph weighs
  1; fingerprints held by more than ``max_paragraph_docs`` documents are boilerplate.

The decision is :mod:`neardup.containment`'s, on every surface: the covered share of each
document (``share_a``, ``share_b``); a duplicate when the larger reaches ``threshold`` and (for
``copy``) both sides share at least ``min_shared_chars`` characters and no paragraph of one is a
version of one of the other with other values (:meth:`ParagraphMethod.substitutions`: two
stories of one template; a re-written headline over a body copied whole is exempt), nor do the
copied paragraphs change more than ``max_value_changes`` figures in all (none in a document of
fewer than ``typo_tokens`` tokens: :meth:`ParagraphMethod._corrections`); the relation ``a_in_b``,
``b_in_a``, ``mutual`` (share ≥ ``contained``) or ``partial``, with the matched paragraph
indices, in the pair's evidence. Pairs that share at least ``min_shared_chars`` characters but
too small a share to be duplicates are *partial duplicates*: reported (``related_pairs``,
``neardup dedup --pairs``), never removed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ..arrays import in_sorted, unique_sorted
from ..compiling import run_of_texts
from ..config import HammingConfig, NormalizeConfig
from ..containment import (
    FRAME_ROW,
    DocumentShares,
    document_shares,
    frame_ends,
    frame_rows,
    line_rows,
)
from ..copyrule import least_share
from ..copyrule import substituted as versions_with_values
from ..errors import ConfigError
from ..features import paragraphs as split_paragraphs
from ..index.ngram import candidates_from_keys
from ..index.permuted import hamming_pairs
from ..nearmiss import NearMisses
from ..normalize import normalize_many
from ..pairs import PairSet
from ..parallel import chunk_ranges
from .auto import VERIFY_CHUNK, AutoConfig, AutoMethod, persisted_options
from .base import exact_copy_pairs, identical_groups
from .commongrams import CommonGrams
from .paragraphpairs import ROW_MASK, VetoRows, per_distinct_texts
from .prepared import Prepared

EVIDENCE = ("copy", "topic")
# the copy rule's coverage floor for a contained paragraph (``contained_paragraphs``): none in
# effect (the rule takes a share in (0, 1]); the document share counts what it covers
CONTAINED_COVERAGE = 0.01
CROSS_CHUNK = 1 << 20  # paragraph pairs of candidate documents built at a time (memory)
HEADLINE_TOKENS = 20  # a first paragraph of at most this many tokens may be a headline
TOPIC_EXACT_KEY = "normalised paragraphs"  # the topic evidence's exact-copy key (persisted)


@dataclass(frozen=True, kw_only=True)
class ParagraphConfig:
    """Options of the ``paragraph`` method (see the module docstring)."""

    evidence: str = "copy"
    threshold: float = 0.5
    min_shared_chars: int = 50
    contained: float = 0.9
    gram: int = 5
    sketch: int = 16
    common_min_df: int = 20
    common_share: float = 0.0001
    min_paragraph_grams: int = 8
    max_distance: int = 3
    blocks: int | None = None
    min_words: int = 3
    max_paragraph_docs: int = 50
    version_coverage: float = 0.5
    overlap: float | None = None
    heard_grams: bool = True
    word_grams: int = 3
    contained_paragraphs: bool = True
    excerpts: bool = True
    unwrap_lines: bool = True
    ignore_frames: bool = True
    normalize: NormalizeConfig = field(default_factory=NormalizeConfig)

    def __post_init__(self) -> None:
        if self.evidence not in EVIDENCE:
            raise ConfigError(
                f"evidence={self.evidence!r} is not supported; choose 'copy' (paragraphs that "
                "are copies, the default) or 'topic' (the reference's topic-word fingerprints)"
            )
        HammingConfig(max_distance=self.max_distance, blocks=self.blocks)
        for name in ("contained_paragraphs", "excerpts", "unwrap_lines", "ignore_frames"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name}={getattr(self, name)!r} must be true or false")
        for name in ("threshold", "contained", "version_coverage", "overlap"):
            value = getattr(self, name)
            if name == "overlap" and value is None:
                continue  # off: only paragraphs that are copies match
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
                raise ConfigError(f"{name}={value!r} must be a number in (0, 1] (a share)")
        for name, low in (
            ("min_shared_chars", 0),
            ("min_paragraph_grams", 1),
            ("min_words", 1),
            ("max_paragraph_docs", 2),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{name}={value!r} must be an integer >= {low}")
        self.auto_config()  # validates gram, sketch, common_min_df, common_share

    def auto_config(self) -> AutoConfig:
        """The ``auto`` options paragraphs are compared with (``copy`` evidence)."""
        return AutoConfig(
            gram=self.gram,
            sketch=self.sketch,
            common_min_df=self.common_min_df,
            common_share=self.common_share,
            heard_grams=self.heard_grams,
            word_grams=self.word_grams,
            normalize=self.normalize,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Paragraphs:
    """The paragraphs of a batch of documents, prepared for the ``copy`` evidence."""

    doc: np.ndarray  # int64 document position of each paragraph
    index: np.ndarray  # int64 paragraph index within its document (every paragraph counted)
    chars: np.ndarray  # int64 characters of the compared paragraph (its weight)
    usable: np.ndarray  # bool: enough rare grams to be evidence
    total: np.ndarray  # int64 characters per document
    end: np.ndarray  # int8 frame ends of each paragraph (``containment.frame_ends``; 0: none)
    prepared: Prepared

    def __len__(self) -> int:
        return len(self.doc)


def _could_be_excerpts(
    paras: Paragraphs, pair: np.ndarray, pl: np.ndarray, pr: np.ndarray, *, contained: float
) -> np.ndarray:
    """Which rows (paragraph pairs ``pl``, ``pr`` of document pairs ``pair``) belong to a
    document pair whose paragraphs in these rows weigh at least the ``contained`` share of one
    document — a bound: a match covers at most its paragraph's weight — so that only such
    pairs' rows are judged as excerpts (:func:`neardup.containment.document_shares`)."""
    if not len(pl):
        return np.zeros(0, np.bool_)
    pairs, at = np.unique(pair, return_inverse=True)
    could = np.zeros(len(pairs), np.bool_)
    for side in (pl, pr):
        key = unique_sorted((at.astype(np.int64) << 32) | side)  # a paragraph once per pair
        rows = key >> 32
        weight = np.bincount(rows, weights=paras.chars[key & ROW_MASK], minlength=len(pairs))
        head = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        doc = paras.doc[key[head] & ROW_MASK]
        could |= weight >= contained * paras.total[doc] * (1 - 1e-9)  # rounding: a bound
    return could[at]


def paragraph_positions(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For documents with ``counts`` paragraphs each, every paragraph's document number and its
    index within the document, in order."""
    doc = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return doc, np.arange(len(doc), dtype=np.int64) - starts


def boilerplate(fingerprints: np.ndarray, doc: np.ndarray, limit: int) -> np.ndarray:
    """Which paragraph rows ``(fingerprint, doc)`` carry a fingerprint held by more than
    ``limit`` distinct documents (boilerplate: not evidence). One machine applies it to the whole
    corpus, the Spark job to each partition holding a fingerprint's rows."""
    if not len(fingerprints):
        return np.zeros(0, bool)
    uniq, inv = np.unique(fingerprints, return_inverse=True)
    per_doc = np.unique(np.stack([inv.reshape(-1), np.asarray(doc)]), axis=1)
    docs_per_fp = np.bincount(per_doc[0], minlength=len(uniq))
    return docs_per_fp[inv.reshape(-1)] > limit


class ParagraphMethod:
    """Documents that share paragraphs, scored by the share of each they cover."""

    name = "paragraph"
    measure = "paragraph_share"
    higher_is_closer = True

    def __init__(self, config: ParagraphConfig | None = None, *, tables: CommonGrams | None = None):
        self.config = config or ParagraphConfig()
        if tables is not None and self.config.evidence != "copy":
            raise ConfigError("paragraph evidence='topic' takes no common-gram table")
        self.inner = AutoMethod(self.config.auto_config(), tables=tables)
        self.stats: dict[str, Any] = {}
        self.near_misses = NearMisses()  # the last batch's closest rejected candidates

    @property
    def tables(self) -> CommonGrams | None:
        """The common paragraph grams (fitted by a batch, or given): ``copy`` evidence only."""
        return self.inner.tables if self.config.evidence == "copy" else None

    @property
    def given_tables(self) -> CommonGrams | None:
        """The frozen table given at construction (None: each batch fits its own)."""
        return self.inner.given_tables

    def online_index(self) -> Any:
        from .incremental import ParagraphOnline

        return ParagraphOnline(self)

    def persisted(self) -> dict[str, Any]:
        """What defines stored data (checked when a store is reopened)."""
        config = persisted_options(self.config)
        if not config["contained_paragraphs"]:
            config["excerpts"] = False  # decides nothing without contained paragraphs
        for option in ("contained_paragraphs", "excerpts", "unwrap_lines", "ignore_frames"):
            if not config[option]:
                del config[option]  # what stores built before the option decide (and hold)
        if self.config.evidence == "topic":
            for option in ("contained_paragraphs", "excerpts", "word_grams", "ignore_frames"):
                config.pop(option, None)
            # what the stored key digests are of: a store of the compared paragraphs' keys
            # (before it was recorded) would take texts for exact copies that are not
            return {**config, "exact_key": TOPIC_EXACT_KEY}
        return {**self.inner.persisted(), **config}

    @property
    def threshold(self) -> float:
        return float(self.config.threshold)

    def thresholds(self) -> dict[str, float]:
        """The decision point a report marks, by the measure it applies to."""
        return {"paragraph share": self.config.threshold}

    @property
    def min_shared(self) -> float:
        return float(self.config.min_shared_chars) if self.config.evidence == "copy" else 0.0

    # -- the copy evidence ----------------------------------------------------------------
    def paragraphs(self, texts: Sequence[str], *, fit: bool = False) -> Paragraphs:
        """Split, compare and prepare the paragraphs of ``texts`` (``fit``: fit the common-gram
        table on them first, when none was given)."""
        compared, counts = self.compared_paragraphs(texts)
        prepared = self.inner.prepare(compared, fit=fit, buckets=self._buckets())
        return self.prepared_paragraphs(prepared, counts)

    def _buckets(self) -> bool:
        """Whether prepared paragraphs carry token buckets: the bound that drops most pairs of
        short paragraphs before they are tokenized (a document of thousands of short lines
        pairs each with every line of another), as a batch of short texts does."""
        return self.inner.config.match == "copy"

    def compared_paragraphs(self, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The compared text of every paragraph of ``texts``, in order, and how many each
        document has (the first step of :meth:`paragraphs`)."""
        per_doc = [split_paragraphs(t, unwrap=self.config.unwrap_lines) for t in texts]
        counts = np.array([len(p) for p in per_doc], np.int64)
        return self.inner.compared([p for ps in per_doc for p in ps]), counts

    def prepared_paragraphs(self, prepared: Prepared, counts: np.ndarray) -> Paragraphs:
        """:class:`Paragraphs` from prepared compared paragraphs, ``counts`` per document."""
        doc, index = paragraph_positions(counts)
        grams = np.diff(prepared.grams[1])
        chars = grams.astype(np.int64)  # distinctive characters: one per rare gram
        usable = grams >= self.config.min_paragraph_grams
        end = np.zeros(len(doc), np.int8)
        if self.config.ignore_frames:
            end = frame_ends(
                doc, index, prepared.tokens, usable, documents=len(counts), most=HEADLINE_TOKENS
            )
        return Paragraphs(
            doc,
            index,
            chars,
            usable,
            np.bincount(doc, weights=chars, minlength=len(counts)).astype(np.int64),
            end,
            prepared,
        )

    def usable_sketch(self, paras: Paragraphs) -> tuple[np.ndarray, np.ndarray]:
        """Sketch keys of the usable paragraphs (the others get none)."""
        values, offsets = paras.prepared.sketch
        sizes = np.diff(offsets) * paras.usable
        keep = np.repeat(paras.usable, np.diff(offsets))
        new = np.zeros_like(offsets)
        np.cumsum(sizes, out=new[1:])
        return values[keep], new

    def matches(
        self,
        a: Paragraphs,
        ia: np.ndarray,
        b: Paragraphs,
        ib: np.ndarray,
        *,
        copies_only: bool = False,
        contained: bool | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Which candidate paragraph pairs ``(a[ia[k]], b[ib[k]])`` match, which of them are
        *whole* matches, and the characters each covers on either side. Whole: copies (the copy
        rule), and, when the ``overlap`` option is set (and not ``copies_only``), also pairs
        that are not copies but share at least that share of the smaller one's rare grams
        (:meth:`_overlapping`). ``contained``
        (default: the ``contained_paragraphs`` option): a pair rejected as a copy only because
        the shorter covers too little of the longer matches too, not whole — it counts only in
        a document pair with a whole match (:func:`neardup.containment.document_shares`).
        Each pair of texts is judged once (:func:`per_distinct_texts`)."""
        if contained is None:
            contained = self.config.contained_paragraphs

        def judge(
            a: Paragraphs, ia: np.ndarray, b: Paragraphs, ib: np.ndarray
        ) -> tuple[np.ndarray, ...]:
            return self._matches(a, ia, b, ib, copies_only=copies_only, contained=contained)

        ok, whole, covered_a, covered_b = per_distinct_texts(judge, a, ia, b, ib)
        return ok, whole, covered_a, covered_b

    def _matches(
        self,
        a: Paragraphs,
        ia: np.ndarray,
        b: Paragraphs,
        ib: np.ndarray,
        *,
        copies_only: bool,
        contained: bool,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`matches` of every pair given."""
        verdicts, checked, _short = self.inner.judge(a.prepared, ia, b.prepared, ib)
        ok = np.zeros(len(ia), np.bool_)
        frac_a = np.zeros(len(ia))
        frac_b = np.zeros(len(ia))
        ok[checked] = verdicts.copy
        self._fractions(a, ia, b, ib, checked, verdicts, frac_a, frac_b)
        if self.config.overlap is not None and not copies_only:
            rest = np.flatnonzero(~ok)
            hit, share_a, share_b = self._overlapping(a, ia[rest], b, ib[rest])
            ok[rest[hit]] = True
            frac_a[rest[hit]] = share_a
            frac_b[rest[hit]] = share_b
        whole = ok.copy()
        if contained and not copies_only:
            rest = np.flatnonzero(~ok)
            hit, cov_a, cov_b = self._contained(a, ia[rest], b, ib[rest])
            cov_a, cov_b = cov_a[hit], cov_b[hit]
            ok[rest[hit]] = True
            frac_a[rest[hit]] = cov_a
            frac_b[rest[hit]] = cov_b
        return ok, whole, a.chars[ia] * frac_a, b.chars[ib] * frac_b

    def contained_matches(
        self, a: Paragraphs, ia: np.ndarray, b: Paragraphs, ib: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pairs that are copies by the copy rule without its coverage floor (the shorter
        contained in the longer, however little of it it covers), and the share of each side
        the match holds (:func:`_side_share`); each pair of texts judged once."""
        hit, frac_a, frac_b = per_distinct_texts(self._contained, a, ia, b, ib)
        return hit, frac_a[hit], frac_b[hit]

    def _contained(
        self, a: Paragraphs, ia: np.ndarray, b: Paragraphs, ib: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`contained_matches` of every pair given: whether it matches, and the share of
        each side it holds (0 where it does not)."""
        judge = AutoMethod(
            replace(self.inner.config, coverage=CONTAINED_COVERAGE), tables=self.inner.tables
        )
        verdicts, checked, _short = judge.judge(a.prepared, ia, b.prepared, ib)
        frac_a = np.zeros(len(ia))
        frac_b = np.zeros(len(ia))
        self._fractions(a, ia, b, ib, checked, verdicts, frac_a, frac_b)
        hit = np.zeros(len(ia), np.bool_)
        hit[checked] = verdicts.copy
        return hit, np.where(hit, frac_a, 0.0), np.where(hit, frac_b, 0.0)

    @staticmethod
    def _fractions(
        a: Paragraphs,
        ia: np.ndarray,
        b: Paragraphs,
        ib: np.ndarray,
        checked: np.ndarray,
        verdicts: Any,
        frac_a: np.ndarray,
        frac_b: np.ndarray,
    ) -> None:
        """Fill in the share of each side of the ``checked`` pairs their verdict holds."""
        ga = np.diff(a.prepared.grams[1])[ia[checked]]
        gb = np.diff(b.prepared.grams[1])[ib[checked]]
        frac_a[checked] = _side_share(ga, gb, verdicts)
        frac_b[checked] = _side_share(gb, ga, verdicts)

    def _overlapping(
        self, a: Paragraphs, ia: np.ndarray, b: Paragraphs, ib: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Paragraph pairs that share at least ``overlap`` of the smaller one's rare grams (and
        ``min_paragraph_grams``): a paragraph of a heavily edited copy, a sentence of it
        rewritten or replaced, is no copy of its source paragraph, yet the rare text they share
        is the copy's. Returns which pairs, and the share of each side's rare grams held in
        common (the part of the paragraph the match covers). A paragraph restated with other
        values is still caught by the substitution veto (:meth:`substitutions`), which looks at
        copies alone. Off by default: on natural news it also matches the paragraphs a
        follow-up quotes from a speech (docs/quality.md)."""
        from .._pairkernels import common_counts
        from ..arrays import concat_sets

        hit = np.zeros(len(ia), np.bool_)
        if not len(ia):
            return hit, np.zeros(0), np.zeros(0)
        if b is a:
            (values, offsets), jb = a.prepared.grams, ib
        else:
            (values, offsets), jb = concat_sets([a.prepared.grams, b.prepared.grams]), ib + len(a)
        sizes = np.diff(offsets)
        sa, sb = sizes[ia], sizes[jb]
        need = np.maximum(
            np.ceil(self.config.overlap * np.minimum(sa, sb) - 1e-9),
            self.config.min_paragraph_grams,
        ).astype(np.int64)
        common = common_counts(values, offsets, values[:0], offsets, ia, jb, need, 0)
        hit = common >= 0
        return hit, common[hit] / sa[hit], common[hit] / sb[hit]

    def substitutions(
        self, a: Paragraphs, da: np.ndarray, b: Paragraphs, db: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The substituted paragraph pairs of document pairs ``(da[k] in a, db[k] in b)``:
        among every pair of their usable paragraphs, those that are versions of one paragraph
        with other values (:func:`neardup.copyrule.substituted`, at ``version_coverage``),
        neither of which is a copy of any paragraph of the other document — except a
        re-written *headline* (:func:`_headlines`); and, when the paragraphs a pair holds as
        copies, or as short versions that change one value (which the copy rule allows in no
        short text), change more than they may in all (:meth:`_corrections`)
        (:func:`_changed_copies`), those that change one. Returns ``(k, paragraph index in
        da[k], in db[k])`` per such pair: :mod:`neardup.containment`'s veto, made from the two
        documents' paragraphs alone, so every surface makes it alike."""
        da, db = np.asarray(da, np.int64), np.asarray(db, np.int64)
        copied_a, copied_b, changes = [], [], []  # copies across each pair, and their changes
        rows = VetoRows(a, b, da, db)
        k, ia, ib = self._passing(a, da, b, db, rows)
        for lo, hi in chunk_ranges(len(k), VERIFY_CHUNK):
            ok, changed = per_distinct_texts(self._copies, a, ia[lo:hi], b, ib[lo:hi])
            copied_a.append(((k[lo:hi] << 32) | ia[lo:hi])[ok])
            copied_b.append(((k[lo:hi] << 32) | ib[lo:hi])[ok])
            changes.append(changed[ok])
        none = np.empty(0, np.int64)
        copies = unique_sorted(np.concatenate([none, *copied_a]))
        copies_b = unique_sorted(np.concatenate([none, *copied_b]))
        copied_rest = _all_but_first_copied(a, da, copies) & _all_but_first_copied(b, db, copies_b)
        found = []
        free = self._may_be_versions(a, da, b, db, rows, copies, copies_b)
        for lo, hi in chunk_ranges(len(free[0]), VERIFY_CHUNK):
            k, ia, ib = (x[lo:hi] for x in free)
            versions, one_value = per_distinct_texts(self._versions, a, ia, b, ib)
            versions &= ~(_headlines(a, ia, b, ib, most=HEADLINE_TOKENS) & copied_rest[k])
            found.append((k[versions], a.index[ia[versions]], b.index[ib[versions]]))
            copied_a.append(((k << 32) | ia)[one_value])
            copied_b.append(((k << 32) | ib)[one_value])
            changes.append(np.ones(int(one_value.sum()), np.int64))
        keys_a, keys_b = np.concatenate([none, *copied_a]), np.concatenate([none, *copied_b])
        most = self._corrections(a, da, b, db)
        at = _changed_copies(keys_a, keys_b, np.concatenate([none, *changes]), most=most)
        found.append(
            (keys_a[at] >> 32, a.index[keys_a[at] & ROW_MASK], b.index[keys_b[at] & ROW_MASK])
        )
        return tuple(np.concatenate([none, *(f[i] for f in found)]) for i in range(3))

    def _corrections(
        self, a: Paragraphs, da: np.ndarray, b: Paragraphs, db: np.ndarray
    ) -> np.ndarray:
        """Per document pair ``(da[k], db[k])``: the figures its copied paragraphs may change
        in all — ``max_value_changes`` (a corrected figure), none when the shorter document
        holds fewer than ``typo_tokens`` tokens. In a report that short the figure is the news:
        the Fed's repurchases of another day with another funds rate ("6-3/16" / "6-1/2 pct"),
        a metal price, a monthly dividend recur word for word but for it."""
        cfg = self.inner.config
        tokens_a = np.bincount(
            a.doc, weights=a.prepared.tokens, minlength=int(da.max(initial=-1)) + 1
        )
        tokens_b = np.bincount(
            b.doc, weights=b.prepared.tokens, minlength=int(db.max(initial=-1)) + 1
        )
        short = np.minimum(tokens_a[da], tokens_b[db]) < cfg.typo_tokens
        return np.where(short, 0, cfg.max_value_changes).astype(np.int64)

    def _passing(
        self, a: Paragraphs, da: np.ndarray, b: Paragraphs, db: np.ndarray, rows: VetoRows
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The paragraph pairs ``(k, row in a, row in b)`` of the documents ``da[k]``, ``db[k]``
        whose shape can pass the copy rule (:meth:`AutoMethod.passing`), in order: few of the
        pairs, so they are held and judged together, not a piece of the cross product at a time
        (which tokenized a paragraph again for every piece it appeared in). Only pairs holding
        what a copy holds in common are looked at (:mod:`neardup.methods.paragraphpairs`): their
        token bags :func:`neardup.copyrule.least_share` of the longer's tokens (the short-text
        rule), or their rare grams ``coverage`` of the larger set (the rule on grams)."""
        joins = [
            ("tokens", least_share(self.inner.config.rule())),
            ("grams", self.inner.config.coverage),
        ]

        def keep(k: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
            can = np.zeros(len(ia), np.bool_)  # pairs of a document pair's distinct texts
            can[self.inner.passing(a.prepared, ia, b.prepared, ib)] = True
            return can

        return rows.held(rows.sharing(joins, CROSS_CHUNK), keep)

    def _may_be_versions(
        self,
        a: Paragraphs,
        da: np.ndarray,
        b: Paragraphs,
        db: np.ndarray,
        rows: VetoRows,
        copies: np.ndarray,
        copies_b: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs of paragraphs copied on neither side (``copies``, ``copies_b``: keys
        ``k << 32 | row``) whose token bags hold ``version_coverage`` of the longer's tokens
        (what :func:`neardup.copyrule.substituted` asks first of a version), in order."""
        share = self.config.version_coverage

        def keep(k: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
            free = ~in_sorted((k << 32) | ia, copies) & ~in_sorted((k << 32) | ib, copies_b)
            if rows.joined:  # the bags are made: most pairs end here, before any alignment
                free[free] = rows.bags_hold(ia[free], ib[free], share)
            return free

        only = rows.uncopied(copies, copies_b)  # a page copied line for line: none
        return rows.held(rows.sharing([("tokens", share)], CROSS_CHUNK, only), keep)

    def _versions(
        self, a: Paragraphs, ia: np.ndarray, b: Paragraphs, ib: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Which paragraph pairs are versions of one paragraph with other values, and which
        are short versions that change one value only (no copies for the copy rule, which
        allows no changed value in a short text; counted as copies that change one)."""
        texts = [a.prepared.compared[i] for i in ia.tolist()]
        texts += [b.prepared.compared[j] for j in ib.tolist()]
        n, rule, coverage = len(ia), self.inner.config.rule(), self.config.version_coverage
        left, right = np.arange(n), np.arange(n, 2 * n)
        strict = versions_with_values(texts, left, right, rule, coverage=coverage)
        lenient = np.zeros(n, np.bool_)  # allows more: a subset of the strict versions
        hit = np.flatnonzero(strict)
        lenient[hit] = versions_with_values(
            texts, left[hit], right[hit], rule, coverage=coverage, short_strict=False
        )
        return lenient, strict & ~lenient

    def _copies(
        self, a: Paragraphs, ia: np.ndarray, b: Paragraphs, ib: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Which paragraph pairs are copies by the copy rule, and the values each changes (a
        corrected figure, at most ``max_value_changes``)."""
        verdicts, checked, _short = self.inner.judge(a.prepared, ia, b.prepared, ib)
        ok = np.zeros(len(ia), np.bool_)
        changes = np.zeros(len(ia), np.int64)
        ok[checked] = verdicts.copy
        changes[checked] = verdicts.value_changes
        return ok, changes

    def veto_substituted(
        self, shares: DocumentShares, a: Paragraphs, da: np.ndarray, b: Paragraphs, db: np.ndarray
    ) -> None:
        """Mark the substituted paragraph pairs of the pairs of ``shares`` that would be
        duplicates by their shares (their documents ``da`` in ``a`` and ``db`` in ``b``, per pair
        of ``shares``)."""
        look = np.flatnonzero(
            shares.candidate(threshold=self.config.threshold, min_shared=self.min_shared)
        )
        k, pa, pb = self.substitutions(a, np.asarray(da)[look], b, np.asarray(db)[look])
        shares.mark_substituted(look[k], pa, pb)

    def _copy_shares(self, compared: list[str], counts: np.ndarray, *, fit: bool) -> DocumentShares:
        prepared = self.inner.prepare(compared, fit=fit, buckets=self._buckets())
        paras = self.prepared_paragraphs(prepared, counts)
        left, right, _stats = candidates_from_keys(*self.usable_sketch(paras))
        cross = paras.doc[left] != paras.doc[right]
        left, right = left[cross], right[cross]
        rows: list[tuple[np.ndarray, ...]] = []
        rejected: list[tuple[np.ndarray, np.ndarray]] = []
        for lo in range(0, len(left), VERIFY_CHUNK):
            pl, pr = left[lo : lo + VERIFY_CHUNK], right[lo : lo + VERIFY_CHUNK]
            ok, _whole, ca, cb = self.matches(paras, pl, paras, pr, contained=False)
            rows.append((pl[ok], pr[ok], ca[ok], cb[ok], np.ones(int(ok.sum()), np.bool_)))
            rejected.append((pl[~ok], pr[~ok]))
        if self.config.contained_paragraphs and rejected:
            # contained paragraphs count beside a whole match of their document pair, or (with
            # excerpts) in an excerpt (document_shares decides): only such pairs' rows are judged
            whole_pairs = unique_sorted(
                np.concatenate([(paras.doc[r[0]] << 32) | paras.doc[r[1]] for r in rows])
            )
            pl = np.concatenate([r[0] for r in rejected])
            pr = np.concatenate([r[1] for r in rejected])
            pair = (paras.doc[pl] << 32) | paras.doc[pr]
            near = in_sorted(pair, whole_pairs)
            if self.config.excerpts:
                near |= _could_be_excerpts(paras, pair, pl, pr, contained=self.config.contained)
            pl, pr = pl[near], pr[near]
            for lo in range(0, len(pl), VERIFY_CHUNK):
                ql, qr = pl[lo : lo + VERIFY_CHUNK], pr[lo : lo + VERIFY_CHUNK]
                hit, fa, fb = self.contained_matches(paras, ql, paras, qr)
                ql, qr = ql[hit], qr[hit]
                rows.append(
                    (
                        ql,
                        qr,
                        paras.chars[ql] * fa,
                        paras.chars[qr] * fb,
                        np.zeros(len(ql), np.bool_),
                    )
                )
        del rejected
        pl, pr, ca, cb, whole = (
            (np.concatenate(c) for c in zip(*rows, strict=True))
            if rows
            else (
                np.empty(0, np.int64),
                np.empty(0, np.int64),
                np.empty(0),
                np.empty(0),
                np.empty(0, np.bool_),
            )
        )
        da, db = paras.doc[pl], paras.doc[pr]  # paragraphs are in document order: da < db
        self.stats = {
            "documents": len(counts),
            "paragraphs": len(paras),
            "usable_paragraphs": int(paras.usable.sum()),
            "common_grams": len(self.inner.tables.values) if self.inner.tables else 0,
            "candidate_paragraph_pairs": len(left),
            "matched_paragraph_pairs": len(pl),
            "contained_paragraph_pairs": int((~whole).sum()),
        }
        shares = document_shares(
            da,
            db,
            paras.index[pl],
            paras.index[pr],
            ca,
            cb,
            paras.total[da],
            paras.total[db],
            whole=whole,
            frame=frame_rows(paras.end[pl], paras.end[pr]),
            contained=self.config.contained,
            excerpts=self.config.excerpts,
            lines=line_rows(paras.end[pl], paras.end[pr]),
        )
        self.veto_substituted(shares, paras, shares.a, paras, shares.b)
        self.stats["substituted_document_pairs"] = int((shares.substituted > 0).sum())
        return shares

    # -- the topic evidence (reference 002) -------------------------------------------------
    def paragraph_prints(self, texts: Sequence[str]) -> Any:
        """Topic-word fingerprints of the paragraphs (:func:`neardup.drpkp.topic_prints`)."""
        from ..drpkp import topic_prints

        return topic_prints(
            texts,
            normalize=self.config.normalize,
            min_words=self.config.min_words,
            unwrap=self.config.unwrap_lines,
        )

    def _topic_shares(self, texts: Sequence[str]) -> DocumentShares:
        cfg = self.config
        pp = self.paragraph_prints(texts)
        usable = np.flatnonzero(~self._boilerplate(pp))
        pl, pr, _ = hamming_pairs(
            pp.fingerprints[usable], max_distance=cfg.max_distance, blocks=cfg.blocks
        )
        pl, pr = usable[pl], usable[pr]
        cross = pp.doc[pl] != pp.doc[pr]
        pl, pr = pl[cross], pr[cross]
        swap = pp.doc[pl] > pp.doc[pr]
        pl, pr = np.where(swap, pr, pl), np.where(swap, pl, pr)
        da, db = pp.doc[pl], pp.doc[pr]
        ones = np.ones(len(pl))
        self.stats = {
            "documents": len(texts),
            "paragraphs": len(pp.fingerprints),
            "short_paragraphs_skipped": pp.skipped_short,
            "boilerplate_paragraphs_skipped": len(pp.fingerprints) - len(usable),
        }
        return document_shares(
            da, db, pp.index[pl], pp.index[pr], ones, ones, pp.counts[da], pp.counts[db]
        )

    def _boilerplate(self, pp: Any) -> np.ndarray:
        """Paragraphs whose exact fingerprint is held by more than ``max_paragraph_docs`` documents."""
        return boilerplate(pp.fingerprints, pp.doc, self.config.max_paragraph_docs)

    # -- batch ------------------------------------------------------------------------------
    def evidence_paragraphs(self, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Every paragraph of ``texts`` as the evidence reads it, in order, and how many each
        document has: the compared paragraphs (``copy``, :meth:`compared_paragraphs`), or the
        normalised ones the topic words are read from (``topic``: a URL the compared text drops
        is a topic word there)."""
        if self.config.evidence != "topic":
            return self.compared_paragraphs(texts)
        per_doc = [split_paragraphs(t, unwrap=self.config.unwrap_lines) for t in texts]
        counts = np.array([len(p) for p in per_doc], np.int64)
        return normalize_many([p for ps in per_doc for p in ps], self.config.normalize), counts

    def document_keys(
        self, texts: Sequence[str], paragraphs: list[str], counts: np.ndarray
    ) -> list[str]:
        """What makes two documents exact copies of each other: their
        :meth:`evidence_paragraphs`, in order (documents whose compared paragraphs are one text
        may differ in their topic prints, and one member of an exact-copy group would decide for
        the others); a document whose paragraphs compare to nothing: its text as written."""
        ends = np.cumsum(counts).tolist()
        starts = [0, *ends[:-1]] if ends else []  # no document, no start
        keys = [
            "\n".join(paragraphs[lo:hi]) if any(paragraphs[lo:hi]) else ""
            for lo, hi in zip(starts, ends, strict=True)
        ]  # paragraphs that all compare to nothing ("<br>" / "<hr>"): no key of theirs
        return [k or t for k, t in zip(keys, texts, strict=True)]

    def find_pairs(self, texts: Sequence[str]) -> PairSet:
        """Exact copies (the same :meth:`document_keys`) first, each paired with the first
        document of its text, as ``auto`` does; then the paragraph evidence among one document of
        each text. A story repeated more often than ``common_min_df`` (or, for ``topic``,
        ``max_paragraph_docs``) would otherwise make its own paragraphs common and match
        nothing, and a copy too short to share ``min_shared_chars`` would never be found. The
        batch is the run whose size decides between kernels and their twins
        (:mod:`neardup.compiling`), not each chunk of paragraphs."""
        with run_of_texts(texts):
            return self._find_pairs(texts)

    def _find_pairs(self, texts: Sequence[str]) -> PairSet:
        exact, shares = self.distinct_shares(texts)
        found = self._decided(shares)
        return PairSet.concat([exact, found])

    def distinct_shares(self, texts: Sequence[str]) -> tuple[PairSet, DocumentShares]:
        """The exact copies of ``texts`` (the same :meth:`document_keys`), each paired with the
        first document of its text, and the shares of every candidate pair among those first
        documents (positions in ``texts``): what :meth:`find_pairs` decides on, and what
        ``auto``'s ``partial`` reports."""
        cfg = self.config
        compared, counts = self.evidence_paragraphs(texts)
        first, group, copies = identical_groups(self.document_keys(texts, compared, counts))
        if cfg.evidence == "topic":
            shares = self._topic_shares([texts[i] for i in first.tolist()])
        else:
            shares = self._copy_shares(*_documents(compared, counts, first), fit=True)
        del compared
        shares.a, shares.b = first[shares.a], first[shares.b]  # positions in ``texts``
        self.stats.update(documents=len(texts), exact_copies=len(copies))
        return exact_copy_pairs(first, group, copies), shares

    def _decided(self, shares: DocumentShares) -> PairSet:
        """The duplicate pairs among ``shares``; the partial ones and the near misses kept."""
        cfg = self.config
        keep = shares.duplicate(threshold=cfg.threshold, min_shared=self.min_shared)
        score = shares.score
        self.near_misses = NearMisses()
        self.near_misses.offer(
            shares.a[~keep],
            shares.b[~keep],
            score[~keep],
            threshold=cfg.threshold,
            route="paragraph share",
        )
        # partial duplicates: enough distinctive text shared, too small a share to remove
        shared = np.minimum(shares.covered_a, shares.covered_b)
        partial = ~keep & (shared >= self.min_shared)
        self.related_pairs = PairSet.build(
            shares.a[partial],
            shares.b[partial],
            method="paragraph",
            similarity=score[partial],
            evidence=shares.evidence(partial, contained=cfg.contained),
        )
        self.stats.update(
            candidate_document_pairs=len(shares),
            verified_pairs=int(keep.sum()),
            partial_pairs=int(partial.sum()),
        )
        return PairSet.build(
            shares.a[keep],
            shares.b[keep],
            method="paragraph",
            similarity=score[keep],
            evidence=shares.evidence(keep, contained=cfg.contained),
        )

    def _pair(self, a: str, b: str) -> tuple[DocumentShares, np.ndarray, bool]:
        """The shares of one pair, which of them are duplicates, and whether the two are exact
        copies (the same :meth:`document_keys`: a batch groups them before any pair is judged)."""
        compared, counts = self.evidence_paragraphs([a, b])
        key_a, key_b = self.document_keys([a, b], compared, counts)
        if self.config.evidence == "topic":
            shares = self._topic_shares([a, b])
        else:
            shares = self._copy_shares(compared, counts, fit=True)  # as dedup of the two
        keep = shares.duplicate(threshold=self.config.threshold, min_shared=self.min_shared)
        return shares, keep, key_a == key_b

    def score_pairs(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """The larger covered share of each pair (0 when too little text is shared, or when a
        share over the threshold is kept apart by a substituted paragraph or a shared tail, as
        :meth:`compare` and ``dedup`` keep it; 1 for exact copies): what ``eval`` scores."""
        if len(left) != len(right):
            raise ValueError(f"{len(left)} left texts but {len(right)} right texts")
        out = np.zeros(len(left))
        threshold = np.float32(self.config.threshold)
        for k, (a, b) in enumerate(zip(left, right, strict=True)):
            shares, keep, exact = self._pair(a, b)
            shared = np.minimum(shares.covered_a, shares.covered_b)
            if exact:
                out[k] = 1.0
            elif len(shares) and shared[0] >= self.min_shared:
                apart = shares.score[0] >= threshold and not keep[0]  # vetoed, or a tail
                out[k] = 0.0 if apart else float(shares.score[0])
        return out

    def compare(self, a: str, b: str) -> dict[str, Any]:
        cfg = self.config
        shares, keep, exact = self._pair(a, b)
        found = shares.evidence(np.ones(len(shares), bool), contained=cfg.contained)
        ev = found.get((0, 1), {})
        if exact:  # whatever the evidence: grouped as exact copies before any pair is judged
            ev = {**ev, "share_a": 1.0, "share_b": 1.0, "containment": "mutual"}
        duplicate = exact or (bool(keep[0]) if len(keep) else False)
        return {
            "method": self.name,
            "evidence": cfg.evidence,
            "exact_copy": exact,
            # header and footer lines matched and set aside: the documents share nothing else
            "frame_paragraphs": [] if ev or exact else self._frame_only(a, b),
            "share_a": ev.get("share_a", 0.0),
            "share_b": ev.get("share_b", 0.0),
            "covered_chars_a": ev.get("covered_a", 0.0),
            "covered_chars_b": ev.get("covered_b", 0.0),
            "containment": ev.get("containment"),
            "matched_paragraphs": ev.get("matched_paragraphs", []),
            # versions of one paragraph with other values: another story from one template
            "substituted_paragraphs": ev.get("substituted_paragraphs", []),
            # only the documents' last paragraphs shared, neither contained: another story
            # with the same ending (a broadcast notice), a partial duplicate at most
            "shared_tail_only": bool(ev.get("shared_tail_only", False)),
            "threshold": cfg.threshold,
            "min_shared_chars": cfg.min_shared_chars,
            "duplicate": duplicate,
            # shared text enough to report, too small a share to remove (see find_pairs)
            "partial_duplicate": not duplicate
            and min(ev.get("covered_a", 0.0), ev.get("covered_b", 0.0)) >= self.min_shared,
        }

    def _frame_only(self, a: str, b: str) -> list[list[int]]:
        """The paragraphs two documents that share nothing match as their frame alone (what
        ``ignore_frames`` set aside), for :meth:`compare` to show."""
        if self.config.evidence != "copy" or not self.config.ignore_frames:
            return []
        plain = ParagraphMethod(replace(self.config, ignore_frames=False), tables=self.given_tables)
        found = plain.compare(a, b)
        if not (found["share_a"] or found["share_b"]):
            return []
        paras = self.paragraphs([a, b])
        end = {
            (int(d), int(i)): e for d, i, e in zip(paras.doc, paras.index, paras.end, strict=True)
        }
        return [
            [i, j]
            for i, j in found["matched_paragraphs"]
            if frame_rows(np.array([end[(0, i)]]), np.array([end[(1, j)]]))[0] == FRAME_ROW
        ]


def _changed_copies(
    keys_a: np.ndarray, keys_b: np.ndarray, changes: np.ndarray, *, most: np.ndarray
) -> np.ndarray:
    """Positions of the paragraph copies (``keys_a`` / ``keys_b``: ``k << 32 | row`` on either
    side, with the values each ``changes``) that a document pair's veto lists: those that
    change a value, in the pairs ``k`` whose paragraphs change more than ``most[k]`` values in all
    on both sides — each paragraph counted once, at its copy that changes fewest (the same
    answer whichever document is ``a``). The copy rule lets a paragraph correct one figure; a
    document whose every paragraph restates one figure (a Fed operation of another day:
    "three-day" / "overnight", "6-1/4 pct" / "6-3/8 pct") is another story of a template, not
    a corrected copy."""
    if not len(keys_a):
        return np.empty(0, np.int64)
    over = np.intersect1d(_pairs_over(keys_a, changes, most), _pairs_over(keys_b, changes, most))
    return np.flatnonzero(np.isin(keys_a >> 32, over) & (changes > 0))


def _pairs_over(keys: np.ndarray, changes: np.ndarray, most: np.ndarray) -> np.ndarray:
    """The pairs ``k`` (of keys ``k << 32 | row``) whose distinct paragraphs, each at its copy
    that changes fewest values, change more than ``most[k]`` in all."""
    order = np.lexsort((changes, keys))
    first = np.flatnonzero(np.r_[True, keys[order][1:] != keys[order][:-1]])
    fewest = changes[order][first]
    pair, inv = np.unique(keys[order][first] >> 32, return_inverse=True)
    return pair[np.bincount(inv, weights=fewest, minlength=len(pair)) > most[pair]]


def _headlines(
    a: Paragraphs, ia: np.ndarray, b: Paragraphs, ib: np.ndarray, *, most: int
) -> np.ndarray:
    """Which paragraph pairs are both documents' first paragraph, each of at most ``most``
    tokens: headlines. A copy may re-write its headline ("Bank holds interest rate at 4.75%" /
    "UK interest rates held at 4.75%") over a body it keeps word for word."""
    tokens_a, tokens_b = a.prepared.tokens[ia], b.prepared.tokens[ib]
    return (a.index[ia] == 0) & (b.index[ib] == 0) & (tokens_a <= most) & (tokens_b <= most)


def _all_but_first_copied(p: Paragraphs, docs: np.ndarray, copied: np.ndarray) -> np.ndarray:
    """Per document pair ``k`` (its document ``docs[k]`` in ``p``): whether every usable
    paragraph of the document but its first has a copy on the other side (``copied``: keys
    ``k << 32 | row``), and there is at least one. Only then is a re-written first paragraph
    a headline over a copied body, not the one paragraph where two stories of a template
    differ."""
    rest = p.usable & (p.index != 0)
    need = np.bincount(p.doc[rest], minlength=int(p.doc.max(initial=-1)) + 1)
    need = need[docs] if len(need) else np.zeros(len(docs), np.int64)
    pair, row = copied >> 32, copied & ROW_MASK
    found = np.bincount(pair[rest[row]], minlength=len(docs))
    return (need > 0) & (found == need)


def _documents(
    compared: list[str], counts: np.ndarray, documents: np.ndarray
) -> tuple[list[str], np.ndarray]:
    """The compared paragraphs of ``documents`` (ascending positions) and their counts."""
    starts = np.cumsum(counts) - counts
    chosen = [
        compared[lo : lo + n]
        for lo, n in zip(starts[documents].tolist(), counts[documents].tolist(), strict=True)
    ]
    return [p for part in chosen for p in part], counts[documents]


def _side_share(mine: np.ndarray, other: np.ndarray, verdicts: Any) -> np.ndarray:
    """The share of one side a copy verdict holds: containment for the side with fewer rare
    grams, coverage for the larger; sides of one size take the lower of the two, so the order
    of a pair does not matter."""
    low = np.minimum(verdicts.containment, verdicts.coverage)
    share = np.where(
        mine < other, verdicts.containment, np.where(mine > other, verdicts.coverage, low)
    )
    return np.clip(share, 0.0, 1.0)
