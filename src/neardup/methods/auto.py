"""The ``auto`` method (the default): is a document a *copy* of an earlier one?

One pipeline for short and long texts, Chinese and English:

1. **Compared text**: social-media markup stripped (URLs, @mentions, ``#tags#``, ``[emoji]``,
   repost prefixes), traditional characters folded to simplified, NFKC, case folded, punctuation
   removed — so crawler residue (Markdown emphasis, escapes, list marks, line breaks) and repost
   noise do not count. Documents with the same compared text are exact copies (similarity 1).
2. **Rare grams**: each text's distinct character ``gram``-grams, minus the *common* ones — grams
   found in more than ``max(common_min_df, common_share · N)`` distinct texts of the fitting
   corpus (datelines, headers, footers, templates: text that many documents share is not
   evidence). The common grams are a frozen table (:class:`CommonGrams`): fitted on the input by
   ``neardup dedup``, written beside the outputs and loaded by the online detector, so every
   surface decides the same.
3. **Candidates**: two documents sharing one of their smallest rare-gram hashes (a bottom-k
   sample of ``clip(n / 4, 4, sketch)`` of a text's ``n`` rare grams: every rare gram of a text
   of at most 4, a consistent sample of the others — a copy shares most of its grams, so a few
   suffice). A batch or the online detector judges only candidates, and so do ``compare``
   and ``eval``: a pair whose samples share no hash ("真没出息！" / "真没出息！ID:09217": 2 and 10
   rare grams, 4 of them sampled; 画画图片 / 画画的图片: no gram in common) is no duplicate on
   any surface — ``compare`` shows the rule's own verdict (``copy_rule``) beside
   ``candidates``, false.
4. **Verification** (``match="copy"``, :mod:`neardup.copyrule`): the shorter text is contained in
   the longer (rare-gram containment ≥ ``containment``, coverage of the longer ≥ ``coverage``;
   short texts, and texts under ``typo_tokens`` tokens whose rare grams fail (a few typos destroy
   most grams of a short text): token alignment ≥ ``short_similarity`` of the longer, no value
   changed) and what differs is not a
   substituted value (a year, a date, an identifier, a second number or name). With
   ``match="text"``, shared text decides instead: rare-gram Jaccard ≥ ``text_threshold`` (what a
   training-data cleaner may want removed as well).

The reported similarity is the token alignment ``2·matched / (la + lb)``; the greedy clustering
rule joins a duplicate to the kept document with the highest one.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from .. import _kernels, _pairkernels
from ..arrays import concat, drain, join_offsets, unique_sorted
from ..compiling import run_of_texts, small, small_texts
from ..config import NormalizeConfig
from ..copyrule import (
    Boilerplate,
    CopyRule,
    CopyVerdict,
    TextMemo,
    Verdicts,
    judge_pairs,
    token_codes,
)
from ..dashes import space_dashes, space_dashes_encoded
from ..errors import ConfigError
from ..forked import can_fork, map_forked
from ..index.ngram import Postings, candidate_chunks, share_a_key
from ..markup import strip_markup_by_pattern, strip_markup_encoded
from ..memory import release_free_memory
from ..nearmiss import NearMisses
from ..normalize import (
    decode_texts,
    filter_encoded,
    normalize_encoded,
    normalize_many,
)
from ..pairs import PairSet
from ..parallel import chunk_ranges, iter_ranges, map_ranges
from ..variants import fold_traditional
from .base import exact_copy_pairs, identical_groups
from .commongrams import CommonGrams
from .prepared import (
    SAMPLE_RATE,
    Grams,
    Prepared,
    consistent_sample,
    merge_consumed,
    merge_prepared,
    smallest_keys,
    texts_only,
)

MATCH_KINDS = ("copy", "text")
VERIFY_CHUNK = 100_000  # candidate pairs per verification chunk (memory: its tokens and verdicts)
DOCS_CHUNK = 2_048  # texts per chunk when preparing them (threads share chunks), at least
CHUNK_CODE_POINTS = 1 << 19  # short texts: up to 4 x DOCS_CHUNK, about this much text a chunk
COMPARE_CHUNK = 8_192  # texts made comparable at a time (threads share chunks)
POSSIBLE_CHUNK = 4_000_000  # pairs that can pass held before they are verified (memory)
CANDIDATE_BLOCK = 250_000  # candidates (by their upper bound) per block of documents: cctv's 2.2 M
# make 9 blocks, which two threads share (at 2 million, one block: 1.1x on two workers, now 2.0x)
# two full sketches (long texts) share at least this many keys, or the pair is not judged: at the
# rule's least Jaccard (0.41: containment 0.7, coverage 0.5) a copy shares fewer with probability
# 0.26 %, at Jaccard 0.6 1e-5; it drops 90 % of cctv_xwlb_news_zh's candidates (one shared key)
SKETCH_SHARED_KEYS = 2


def docs_chunk(texts: Sequence[str]) -> int:
    """Texts per chunk of work on threads: ``DOCS_CHUNK``, or for short texts up to four times
    as many (about ``CHUNK_CODE_POINTS`` code points a chunk). A chunk's Python steps hold the
    interpreter lock; weibo_ced_zh's posts in chunks of 2,048 prepared 1.1-1.5x faster on two
    threads than on one, in chunks of 8,192 1.6-1.8x (and 10 % faster on one). Results do not
    depend on the size."""
    if not texts:
        return DOCS_CHUNK
    mean = max(sum(map(len, texts)) / len(texts), 1.0)
    return int(min(4 * DOCS_CHUNK, max(DOCS_CHUNK, CHUNK_CODE_POINTS // mean)))


@dataclass(frozen=True, kw_only=True)
class AutoConfig:
    """Options of the ``auto`` method (see the module docstring)."""

    match: str = "copy"
    gram: int = 3
    sketch: int = 16
    common_min_df: int = 100
    common_share: float = 0.001
    short_tokens: int = 20
    min_rare_grams: int = 20
    typo_tokens: int = 64
    short_similarity: float = 0.8
    heard_similarity: float = 0.9
    short_containment: float = 0.9
    min_contained_tokens: int = 10
    containment: float = 0.7
    coverage: float = 0.5
    max_value_changes: int = 1
    max_value_tokens: int = 12
    text_threshold: float = 0.5
    strip_markup: bool = True
    fold_traditional: bool = True
    heard_grams: bool = False
    word_grams: int = 0
    partial: bool = False
    normalize: NormalizeConfig = field(default_factory=NormalizeConfig)

    def __post_init__(self) -> None:
        if self.match not in MATCH_KINDS:
            raise ConfigError(
                f"match={self.match!r} is not supported; choose 'copy' (is B a copy of A, the "
                "default) or 'text' (do A and B share text)"
            )
        for name, low, high in (
            ("gram", 1, 16),
            ("sketch", 1, 10_000),
            ("common_min_df", 2, 2**31),
            ("typo_tokens", 0, 2**31),
            ("word_grams", 0, 16),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ConfigError(f"{name}={value!r} must be an integer from {low} to {high}")
        if not 0.0 < float(self.common_share) <= 1.0:
            raise ConfigError(f"common_share={self.common_share!r} must be in (0, 1]")
        if not 0.0 < float(self.text_threshold) <= 1.0:
            raise ConfigError(f"text_threshold={self.text_threshold!r} must be in (0, 1]")
        for name in ("partial", "heard_grams"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name}={getattr(self, name)!r} must be true or false")
        self.rule()  # validates the copy-rule fields

    def rule(self) -> CopyRule:
        return CopyRule(
            short_tokens=self.short_tokens,
            short_similarity=self.short_similarity,
            heard_similarity=self.heard_similarity,
            short_containment=self.short_containment,
            min_contained_tokens=self.min_contained_tokens,
            containment=self.containment,
            coverage=self.coverage,
            max_value_changes=self.max_value_changes,
            max_value_tokens=self.max_value_tokens,
        )

    @property
    def compare_normalize(self) -> NormalizeConfig:
        return replace(self.normalize, remove_punctuation=True)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _as_written(out: list[str], texts: Sequence[str], empty: list[int], base: Any) -> None:
    """Texts of nothing but markup or punctuation are compared as written: normalised, or
    where normalising leaves nothing (markup alone, invisible characters), the text itself —
    so ``<br>`` and ``<p></p>`` are two documents, not exact copies of one empty text."""
    normalized = normalize_many([texts[i] for i in empty], base)
    for i, t in zip(empty, normalized, strict=True):
        out[i] = t or texts[i]


def persisted_options(config: Any) -> dict[str, Any]:
    """``config.to_dict()`` without ``heard_grams`` and ``word_grams`` when they are off: grams
    as written, of characters, are what stores built before the options hold, and they reopen
    with them off."""
    options = config.to_dict()
    for option in ("heard_grams", "word_grams"):
        if not options.get(option):
            options.pop(option, None)
    return options


@dataclass(frozen=True)
class _Shapes:
    """The pairs of a batch whose shape can pass (positions), with their rare-gram shares and
    whether the short-text rule judges them."""

    checked: np.ndarray
    strict: np.ndarray
    contain: np.ndarray
    cover: np.ndarray

    def documents(self, ia: np.ndarray, jb: np.ndarray) -> np.ndarray:
        """The documents of those pairs, sorted."""
        return unique_sorted(np.concatenate([ia[self.checked], jb[self.checked]]))

    def rows(self, lo: int, hi: int) -> _Shapes:
        """Rows ``lo:hi`` of a batch whose every pair is checked, as a batch of their own."""
        return _Shapes(
            np.arange(hi - lo), self.strict[lo:hi], self.contain[lo:hi], self.cover[lo:hi]
        )


@dataclass(frozen=True)
class _Tokens:
    """The copy rule's tokens (hashed, and sorted per text) of some documents of a batch."""

    position: np.ndarray  # each document of the batch: its row here, or -1
    texts: list[str]
    codes: tuple[np.ndarray, np.ndarray, np.ndarray]  # hashes, offsets, flags (token_codes)
    bags: np.ndarray
    memo: TextMemo = field(default_factory=TextMemo)  # the value test's reading of each text


class AutoMethod:
    """Copies, short and long, with template-aware verification (see the module docstring)."""

    name = "auto"
    measure = "similarity"
    higher_is_closer = True

    def __init__(self, config: AutoConfig | None = None, *, tables: CommonGrams | None = None):
        self.config = config or AutoConfig()
        if tables is not None:
            tables.check_gram(self.config.gram, self.config.word_grams)
        self.given_tables = tables  # frozen tables to use; otherwise each batch fits its own
        self.tables = tables
        self.stats: dict[str, Any] = {}
        self.near_misses = NearMisses()  # the last batch's closest rejected candidates
        self.workers = 1  # threads (results do not depend on it; see neardup.parallel)
        self.timings: dict[str, float] = {}  # the last batch's stages, in seconds

    def online_index(self) -> Any:
        from .incremental import AutoOnline

        if self.config.partial:
            raise ConfigError(
                "partial=true reports partial duplicates of a batch run (neardup dedup --pairs); "
                "the online detector (index, serve) decides duplicates only: drop --partial"
            )
        return AutoOnline(self)

    def persisted(self) -> dict[str, Any]:
        """What defines stored data: the config and the frozen table's identity."""
        from ..copyrule import RULE_VERSION
        from ..markup import MARKUP_VERSION

        table = self.tables if self.tables is not None else CommonGrams.empty()
        config = persisted_options(self.config)
        del config["partial"]  # what a batch run reports beside its decisions, not a decision
        return {
            **config,
            "rule_version": RULE_VERSION,
            "markup_version": MARKUP_VERSION,
            "common_grams": table.digest(),
        }

    @property
    def threshold(self) -> float:
        """Evaluation's decision point on :meth:`score_pairs`: any copy (score > 0)."""
        return 1e-6

    # -- documents ------------------------------------------------------------------------
    def compared(self, texts: Sequence[str]) -> list[str]:
        """The texts as they are compared: normalised, markup stripped, variants folded,
        punctuation removed, by compiled kernels that release the interpreter lock (texts
        outside the compiled normalisation go through Python), ``COMPARE_CHUNK`` texts at a
        time on ``workers`` threads."""
        if not isinstance(texts, (list, tuple)):
            texts = list(texts)  # sliced in chunks
        with run_of_texts(texts):  # the whole call, not a chunk, is the run
            parts = map_ranges(
                lambda lo, hi: self._compared(texts[lo:hi]),
                len(texts),
                size=COMPARE_CHUNK,
                workers=self.workers,
            )
        return parts[0] if len(parts) == 1 else [t for part in parts for t in part]

    def _compared(self, texts: Sequence[str]) -> list[str]:
        cfg = self.config
        base = replace(cfg.normalize, remove_punctuation=False)
        if base.cjk_only or not base.casefold or small_texts(texts):  # options, or
            return self._compared_exactly(texts)  # too few texts for the compiled path
        cps, offsets = normalize_encoded(texts, base)
        if cfg.strip_markup:
            cps, offsets = strip_markup_encoded(cps, offsets)
        cps = space_dashes_encoded(cps, offsets)  # 2003—as: two words, not 2003as
        cps, offsets = filter_encoded(cps, offsets, fold_traditional=cfg.fold_traditional)
        out = decode_texts(cps, offsets)
        empty = np.flatnonzero(np.diff(offsets) == 0).tolist()
        if empty:
            _as_written(out, texts, empty, base)
        return out

    def _compared_exactly(self, texts: Sequence[str]) -> list[str]:
        """:meth:`compared` step by step in Python (any normalisation option)."""
        cfg = self.config
        base = replace(cfg.normalize, remove_punctuation=False)
        out = normalize_many(texts, base, fast=False)
        if cfg.strip_markup:
            out = strip_markup_by_pattern(out)  # the kernel's oracle, whatever the size
        if cfg.fold_traditional:
            out = fold_traditional(out)
        out = space_dashes(out)
        out = normalize_many(out, replace(cfg.compare_normalize, strip_html=False), fast=False)
        empty = [i for i, t in enumerate(out) if not t]
        if empty:
            _as_written(out, texts, empty, base)
        return out

    def prepare(
        self, compared: Sequence[str], *, fit: bool = False, buckets: bool = False
    ) -> Prepared:
        """Rare grams and sketches of compared texts; ``fit`` fits the common-gram table first
        (when none was given); ``buckets``: also the :class:`~neardup.bagbound.TokenBuckets`
        of short texts, which let a batch drop most candidate pairs of short texts before it
        tokenizes them. Chunks of texts on ``workers`` threads (the kernels release the
        interpreter lock); the result does not depend on their number."""
        compared = list(compared)
        most = self._bucket_tokens() if buckets else 0
        chunks = map_ranges(
            lambda lo, hi: Grams.of(
                compared[lo:hi],
                self.config.gram,
                words=self.config.word_grams,
                heard=self.config.heard_grams,
                bucket_tokens=most,
            ),
            len(compared),
            size=docs_chunk(compared),
            workers=self.workers,
        )
        if fit and self.given_tables is None:
            self.tables = CommonGrams.fit(
                [c.values for c in chunks],
                [c.offsets for c in chunks],
                self.config,
                workers=self.workers,
            )
            release_free_memory()
        table = self.tables if self.tables is not None else CommonGrams.empty()
        pending: list[Grams | None] = list(chunks)  # each chunk's every gram freed once used
        del chunks

        def prepared(lo: int, _hi: int) -> Prepared:
            grams, pending[lo] = pending[lo], None
            return self._prepared(grams, table)  # type: ignore[arg-type]

        parts = map_ranges(prepared, len(pending), size=1, workers=self.workers)
        return parts[0] if len(parts) == 1 else merge_consumed(parts)

    def _prepared(self, grams: Grams, table: CommonGrams) -> Prepared:
        values, offsets = grams.rare(table.values)
        return Prepared(
            grams.texts,
            (values, offsets),
            smallest_keys(values, offsets, self.config.sketch),
            grams.tokens,
            consistent_sample(values, offsets),
            grams.buckets,
        )

    def _bucket_tokens(self) -> int:
        """Tokens (as ``Prepared.tokens`` counts them) up to which a text can be judged by the
        short-text rule against a text of enough rare grams: the shorter has fewer than
        ``max(short_tokens, typo_tokens)``, the longer at most ``1 / min(short_similarity,
        coverage)`` times as many (:func:`neardup._pairkernels.pair_shapes`). A text of few rare
        grams is judged by that rule whatever its length: its pairs with a longer text than this
        are not bounded by buckets."""
        cfg = self.config
        few = max(cfg.short_tokens, cfg.typo_tokens)
        return int(np.ceil(few / min(cfg.short_similarity, cfg.coverage)))

    def verify(
        self, a: Prepared, ia: np.ndarray, b: Prepared, ib: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Similarity and verdict of each pair ``(a[ia[k]], b[ib[k]])``."""
        verdicts, checked, _short = self.judge(a, ia, b, ib)
        sim = np.zeros(len(ia), np.float32)
        ok = np.zeros(len(ia), np.bool_)
        sim[checked] = verdicts.similarity
        ok[checked] = verdicts.copy
        return sim, ok

    def judge(
        self,
        a: Prepared,
        ia: np.ndarray,
        b: Prepared,
        ib: np.ndarray,
        *,
        prune: bool = True,
        workers: int | None = None,
    ) -> tuple[Verdicts, np.ndarray, np.ndarray]:
        """Verdicts on the pairs whose shape can pass, the positions of those pairs, and which
        of them the short-text rule judged.

        Cheap bounds first (set sizes, token counts), rare-gram containment by a compiled
        kernel, token alignment only where it can still change the answer (``prune`` off:
        on every pair that can pass, so that a rejected pair's similarity is exact).
        """
        ia = np.asarray(ia, np.int64)
        both, jb = _both(a, b, ib)
        shape = self._shapes(both, ia, jb, estimate=prune)
        tokens = self._tokens(both, shape.documents(ia, jb), workers=1)
        verdicts = self._verdicts(tokens, ia, jb, shape, prune=prune, workers=workers)
        return verdicts, shape.checked, shape.strict

    def passing(self, a: Prepared, ia: np.ndarray, b: Prepared, ib: np.ndarray) -> np.ndarray:
        """Positions of the pairs ``(a[ia[k]], b[ib[k]])`` whose shape can pass: those
        :meth:`judge` goes on to verify. A caller with millions of mostly hopeless pairs (every
        paragraph of one document against every one of another) keeps these and judges them
        together, each text tokenized once per chunk of them rather than once per piece."""
        both, jb = _both(a, b, ib)
        return self._shapes(both, np.asarray(ia, np.int64), jb).checked

    def _shapes(
        self, both: Prepared, ia: np.ndarray, jb: np.ndarray, *, estimate: bool = True
    ) -> _Shapes:
        """Which pairs can pass on their sizes and rare-gram shares (the copy rule decides):
        cheap bounds first (set sizes, token counts), then rare-gram containment by a compiled
        count, exact wherever the consistent sample cannot rule the pair out
        (:func:`neardup._pairkernels.pair_shapes`). ``estimate``: long texts whose full sketches
        share fewer than ``SKETCH_SHARED_KEYS`` keys are ruled out unmeasured (every surface
        that finds pairs; off for ``compare``, which measures any pair it is given)."""
        sets, bounds = self._shape_args(both, estimate=estimate)
        ia = np.ascontiguousarray(ia, np.int64)
        jb = np.ascontiguousarray(jb, np.int64)
        possible, strict, contain, cover = _pairkernels.pair_shapes(*sets, ia, jb, *bounds)
        checked = np.flatnonzero(possible)
        if both.buckets is not None:  # a batch: most pairs of short texts end here
            a, b, short = ia[checked], jb[checked], strict[checked]
            checked = checked[both.buckets.may_be_copies(a, b, short, self.config.rule())]
        return _Shapes(checked, strict[checked], contain[checked], cover[checked])

    def _shape_args(self, both: Prepared, *, estimate: bool) -> tuple[tuple, tuple]:
        """The arguments of the shape kernels (:func:`neardup._pairkernels.pair_shapes`,
        ``_shapes_into``) before and after the pairs: the documents' sets and token counts,
        then the bounds."""
        cfg = self.config
        bounds = np.array(
            [
                cfg.short_tokens,
                cfg.min_rare_grams,
                cfg.typo_tokens,
                min(cfg.short_similarity, cfg.coverage),
                cfg.containment,
                cfg.coverage,
                cfg.text_threshold,
                cfg.sketch,
                SKETCH_SHARED_KEYS if estimate else 0,
            ],
            np.float64,
        )
        sets = (*both.grams, *both.sample, *both.sketch, both.tokens)
        return sets, (cfg.match == "text", bounds, SAMPLE_RATE)

    def _tokens(self, both: Prepared, documents: np.ndarray, *, workers: int) -> _Tokens:
        """The copy rule's tokens of ``documents`` (positions in ``both``): made for the
        texts of pairs that can still pass, not kept per document (they would be the largest
        state of a batch)."""
        texts = [both.compared[k] for k in documents.tolist()]

        def part(lo: int, hi: int) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
            codes = token_codes(texts[lo:hi])
            return codes, _kernels.sort_per_doc(*codes[:2])

        parts = map_ranges(part, len(texts), size=docs_chunk(texts), workers=workers)
        offsets = join_offsets([c[1] for c, _ in parts])
        hashes = [c[0] for c, _ in parts]  # joined one array at a time, each freeing its parts
        flags = [c[2] for c, _ in parts]
        bags = [b for _, b in parts]
        del parts
        codes = (drain(hashes, np.uint64), offsets, drain(flags, np.uint8))
        bag_values = drain(bags, np.uint64)
        position = np.full(len(both), -1, np.int64)
        position[documents] = np.arange(len(documents))
        return _Tokens(position, texts, codes, bag_values)

    def _verdicts(
        self,
        tokens: _Tokens,
        ia: np.ndarray,
        jb: np.ndarray,
        shape: _Shapes,
        *,
        prune: bool,
        workers: int | None,
    ) -> Verdicts:
        """The copy rule on the pairs ``shape`` kept, on their documents' ``tokens``."""
        cfg = self.config
        verdicts = judge_pairs(
            tokens.texts,
            tokens.position[ia[shape.checked]],
            tokens.position[jb[shape.checked]],
            cfg.rule(),
            token_rule=shape.strict,
            gram_containment=shape.contain,
            gram_coverage=shape.cover,
            workers=self.workers if workers is None else workers,
            prune=prune,
            tokens=tokens.codes,
            bags=tokens.bags,
            boilerplate=self._boilerplate(),
            memo=tokens.memo,
        )
        if cfg.match == "text":
            verdicts = verdicts.with_copy(np.ones(len(verdicts), np.bool_))
        return verdicts

    def _boilerplate(self) -> Boilerplate | None:
        """The fitted common-gram table as the copy rule's boilerplate (None without one)."""
        if self.tables is None or not len(self.tables.values):
            return None
        return Boilerplate(self.tables.values, self.config.gram, self.config.word_grams)

    def thresholds(self) -> dict[str, float]:
        """The decision points a report marks, by the measure they apply to."""
        cfg = self.config
        if cfg.match == "text":
            return {"rare-gram Jaccard": cfg.text_threshold}
        return {
            "similarity (short texts)": cfg.short_similarity,
            "containment (long texts)": cfg.containment,
            "coverage (long texts)": cfg.coverage,
        }

    def _offer_near_misses(
        self,
        misses: NearMisses,
        left: np.ndarray,
        right: np.ndarray,
        verdicts: Verdicts,
        short: np.ndarray,
    ) -> None:
        """Offer the rejected verdicts of one chunk, per route, to ``misses``."""
        cfg = self.config
        rejected = ~verdicts.copy
        for is_short, route, threshold in (
            (True, "short texts: similarity", cfg.short_similarity),
            (False, "long texts: containment", cfg.containment),
        ):
            pick = np.flatnonzero(rejected & (short == is_short))
            chosen = verdicts.take(pick)
            misses.offer(
                left[pick],
                right[pick],
                chosen.similarity if is_short else chosen.containment,
                threshold=threshold,
                route=route,
                reason=lambda k, chosen=chosen, is_short=is_short: _why_not(
                    chosen[k], short=is_short, config=cfg
                ),
            )

    # -- batch ----------------------------------------------------------------------------
    def find_pairs(self, texts: Sequence[str], *, compared: bool = False) -> PairSet:
        """Pairs of copies among ``texts``; with ``compared``, ``texts`` are already the
        :meth:`compared` texts (a batch that compares them as it reads holds no raw text), and
        a list of them is taken over: emptied once the exact copies are grouped (memory). A
        small batch takes the twins of some kernels (:mod:`neardup.compiling`)."""
        with run_of_texts(texts):
            return self._find_pairs(texts, compared=compared)

    def _find_pairs(self, texts: Sequence[str], *, compared: bool) -> PairSet:
        if compared and self.config.partial:
            raise ConfigError("partial=true needs the texts as written, not the compared ones")
        clock = _Clock()
        compared_texts = texts if compared else self.compared(texts)
        clock.lap("compare")
        first, group, copies = identical_groups(compared_texts)
        reps = np.sort(first)
        documents = len(compared_texts)
        distinct = [compared_texts[i] for i in reps.tolist()]
        if compared and isinstance(texts, list):
            texts.clear()  # taken over: the caller's list held the exact copies' texts
        del compared_texts  # the exact copies' texts are not needed any more (memory)
        release_free_memory()
        prepared = self.prepare(distinct, fit=True, buckets=self.config.match == "copy")
        del distinct
        release_free_memory()
        clock.lap("sketch")
        held = _Held()
        misses = NearMisses()
        kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        candidates = 0
        for judged, part in self._possible_pairs(prepared, held):  # a block of documents
            candidates += judged
            held.add(*part)
            clock.lap("candidates")
            if held.size >= POSSIBLE_CHUNK:  # verified in groups: bounded memory
                kept.append(self._verify_held(prepared, *held.take(), reps, misses))
                release_free_memory()
                clock.lap("verify")
        prepared = texts_only(prepared)  # the last group needs the texts, not the grams
        release_free_memory()
        kept.append(self._verify_held(prepared, *held.take(), reps, misses))
        clock.lap("verify")
        left = concat([k[0] for k in kept], np.int64)
        right = concat([k[1] for k in kept], np.int64)
        sim = concat([k[2] for k in kept], np.float32)
        self.near_misses = misses
        self.timings = clock.laps
        self.stats = {
            "documents": documents,
            "exact_copies": len(copies),
            "common_grams": len(self.tables.values) if self.tables is not None else 0,
            "common_min_df": int(self.tables.min_df) if self.tables is not None else 0,
            "candidates": candidates,
            "verified_pairs": len(left),
        }
        verified = PairSet.build(reps[left], reps[right], method="auto", similarity=sim)
        found = PairSet.concat([exact_copy_pairs(first, group, copies), verified])
        if self.config.partial:
            self.related_pairs = self._partial_pairs(texts, found)
            clock.lap("partial")
            self.timings = clock.laps
            self.stats["partial_pairs"] = len(self.related_pairs)
        return found

    def _possible_pairs(
        self, prepared: Prepared, held: _Held
    ) -> Iterator[tuple[int, tuple[np.ndarray, ...]]]:
        """The candidate pairs of a batch (documents sharing a sketch key) that can pass, with
        their shapes, a block of ``CANDIDATE_BLOCK`` candidates at a time on ``workers``
        threads, in order: each block's number of candidates and its pairs ``(left, right,
        strict, contain, cover)``, decided as they are made
        (:func:`neardup._pairkernels.possible_candidates`: the shapes of :meth:`_shapes`, no
        array of candidates; weibo_ced_zh: 0.65 of 23.3 million candidates). A small batch
        (:mod:`neardup.compiling`) makes its candidates first and shapes them with
        :meth:`_shapes` — the same loops, in kernels that compile in half the time.

        A block that fills ``held`` to ``POSSIBLE_CHUNK`` is yielded once the threads are
        stopped (blocks computed ahead are computed again after), so that the group it closes
        is verified in a process of one thread, which may fork (:mod:`neardup.forked`)."""
        if small(len(prepared.sketch[0])):
            _stats, chunks = candidate_chunks(*prepared.sketch, workers=self.workers)
            for left, right in chunks:
                shape = self._shapes(prepared, left, right)
                pairs = (left[shape.checked], right[shape.checked], shape.strict)
                yield len(left), (*pairs, shape.contain, shape.cover)
            return
        postings = Postings.of(*prepared.sketch)
        blocks = postings.blocks(CANDIDATE_BLOCK)
        # each entry's document's sizes, in posting order: the size test reads them in turn
        post_tokens = prepared.tokens[postings.post_docs].astype(np.int32)
        post_grams = np.diff(prepared.grams[1])[postings.post_docs].astype(np.int32)
        sets, bounds = self._shape_args(prepared, estimate=True)
        bucket_args, signed = self._bucket_args(prepared, postings)

        def block(k: int, spare: queue.SimpleQueue) -> tuple[int, tuple[np.ndarray, ...]]:
            try:  # document marks, one per thread at work; a mark names the document that
                marks = spare.get_nowait()  # found it: a block run twice needs fresh marks
            except queue.Empty:
                n = len(postings)
                marks = (np.full(n, -1, np.int64), np.empty(n, np.int64))
            *pairs, judged = _pairkernels.possible_candidates(
                *postings.arrays, *blocks[k], *sets, *bounds, *bucket_args, *marks,
                post_tokens, post_grams, *signed,
            )  # fmt: skip
            spare.put(marks)
            return judged, tuple(p.copy() for p in pairs)  # not the block's room

        done = 0
        while done < len(blocks):
            start, spare = done, queue.SimpleQueue()
            found = iter_ranges(
                lambda k, _end, start=start, spare=spare: block(start + k, spare),
                len(blocks) - start,
                size=1,
                workers=self.workers,
            )
            for judged, part in found:
                done += 1
                if held.size + len(part[0]) >= POSSIBLE_CHUNK:
                    found.close()  # its threads end: the group this block closes may fork
                    yield judged, part
                    break
                yield judged, part

    def _bucket_args(
        self, prepared: Prepared, postings: Postings
    ) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, np.ndarray]]:
        """The token buckets' arguments to :func:`neardup._pairkernels.possible_candidates`:
        the bound and its signatures per document; then each posting entry's document's
        signature ``info`` (read in the order the lists are scanned) and the rare grams'
        signatures; empty arrays without buckets."""
        buckets = prepared.buckets
        if buckets is None:
            none, masks, info = (
                np.empty(0, np.int64),
                np.empty((0, 2), np.uint64),
                np.empty(0, np.int32),
            )
            bound = (np.empty((0, 1), np.uint8), none, none, np.empty((1, 1), np.int64))
            return (*bound, masks, info), (info, np.empty((0, 4), np.uint64))
        masks, info = buckets.signatures()
        bound = buckets.bound_args(self.config.rule())
        grams = _pairkernels.gram_signatures(*prepared.grams)
        return (*bound, masks, info), (info[postings.post_docs], grams)

    def _verify_held(
        self,
        prepared: Prepared,
        left: np.ndarray,
        right: np.ndarray,
        shape: _Shapes,
        reps: np.ndarray,
        misses: NearMisses,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The copies among pairs that can pass, with their similarity; the rejected ones are
        offered to ``misses`` (positions translated by ``reps``)."""
        out = []
        for (lo, hi), verdicts in self._verify_possible(prepared, left, right, shape):
            ok = verdicts.copy
            out.append((left[lo:hi][ok], right[lo:hi][ok], verdicts.similarity[ok]))
            self._offer_near_misses(
                misses, reps[left[lo:hi]], reps[right[lo:hi]], verdicts, shape.strict[lo:hi]
            )
        return (
            concat([o[0] for o in out], np.int64),
            concat([o[1] for o in out], np.int64),
            concat([o[2] for o in out], np.float32),
        )

    def _verify_possible(
        self, prepared: Prepared, left: np.ndarray, right: np.ndarray, shape: _Shapes
    ) -> Iterator[tuple[tuple[int, int], Verdicts]]:
        """The verdicts on pairs that can pass (:meth:`_possible_pairs`), a chunk of
        ``VERIFY_CHUNK`` pairs at a time on ``workers`` threads, in order, as they come (a
        chunk's verdicts are reduced before many pile up); the tokens of their documents made
        once. Where forking is safe (:mod:`neardup.forked`: no other thread runs, which
        :meth:`_possible_pairs` sees to before each group), several chunks are shared out to
        forked children instead, whose Python value test then runs on every core too (threads
        hold the interpreter lock for it), and their verdicts are all held until the last
        comes; one chunk shares out its aligned pairs
        (:func:`neardup.copyrule.verdicts.judge_pairs`)."""
        used = np.zeros(len(prepared), np.bool_)
        used[left] = True
        used[right] = True
        tokens = self._tokens(prepared, np.flatnonzero(used), workers=self.workers)
        # several chunks share the cores; one chunk alone aligns its pairs on all of them
        inner = 1 if self.workers > 1 and len(left) > VERIFY_CHUNK else None
        chunks = chunk_ranges(len(left), VERIFY_CHUNK)

        def verdicts(lo: int, hi: int) -> Verdicts:
            return self._verdicts(
                tokens, left[lo:hi], right[lo:hi], shape.rows(lo, hi), prune=True, workers=inner
            )

        if inner == 1 and can_fork():  # the chunks in forked children, all of their work
            found = map_forked(verdicts, len(left), size=VERIFY_CHUNK, workers=self.workers)
            return zip(chunks, found, strict=True)
        found = iter_ranges(verdicts, len(left), size=VERIFY_CHUNK, workers=self.workers)
        return zip(chunks, found, strict=True)

    def _paragraph(self) -> Any:
        """The ``paragraph`` method that finds partial duplicates for ``partial``."""
        from .paragraph import ParagraphConfig, ParagraphMethod

        return ParagraphMethod(ParagraphConfig(normalize=self.config.normalize))

    def _partial_pairs(self, texts: Sequence[str], found: PairSet) -> PairSet:
        """``partial``: pairs of documents that share paragraphs (the ``paragraph`` method's
        evidence and decision, both its duplicates and its partial duplicates, exact copies
        grouped first as it groups them) without being copies as whole texts — reported with
        their paragraph evidence, never removed."""
        para = self._paragraph()
        para.inner.workers = self.workers
        exact, shares = para.distinct_shares(texts)
        related = np.minimum(shares.covered_a, shares.covered_b) >= para.min_shared
        related &= ~_copies(found, len(texts), shares.a, shares.b)
        return PairSet.concat(
            [
                exact.select(~_copies(found, len(texts), exact.left, exact.right)),
                PairSet.build(
                    shares.a[related],
                    shares.b[related],
                    method="paragraph",
                    similarity=shares.score[related],
                    evidence=shares.evidence(related, contained=para.config.contained),
                ),
            ]
        )

    def score_pairs(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """The similarity of each pair the rule calls a copy, 0 for the others (so that a
        threshold sweep trades recall for precision among copies)."""
        if len(left) != len(right):
            raise ValueError(f"{len(left)} left texts but {len(right)} right texts")
        ca, cb = self.compared(left), self.compared(right)
        a, b = self.prepare(ca), self.prepare(cb)
        idx = np.arange(len(left))
        sim, ok = self.verify(a, idx, b, idx)
        ok &= self.candidates(a, idx, b, idx)  # as a corpus run decides: judged only if found
        same = np.fromiter(map(str.__eq__, ca, cb), np.bool_, len(ca))  # exact copies
        sim = np.where(same, 1.0, sim)
        sim = sim.astype(np.float64)  # 1e-6 in float32 is below the float64 decision point
        return np.where(ok | same, np.maximum(sim, 1e-6), 0.0)

    def candidates(self, a: Prepared, ia: np.ndarray, b: Prepared, ib: np.ndarray) -> np.ndarray:
        """Which pairs ``(a[ia[k]], b[ib[k]])`` a batch or the online detector judges at all:
        their sketches share a key (step 3 of the module docstring). ``compare`` and ``eval``
        count a copy only where this holds and :meth:`verify` (which tests the pair's shape as
        a batch does: two long texts with full sketches share ``SKETCH_SHARED_KEYS``) passes,
        so that they decide as a corpus run does."""
        values = np.concatenate([a.sketch[0], b.sketch[0]])
        offsets = join_offsets([a.sketch[1], b.sketch[1]])
        return share_a_key(values, offsets, ia, ib + len(a.sketch[1]) - 1)

    def compare(self, a: str, b: str) -> dict[str, Any]:
        ca, cb = self.compared([a, b])
        pa, pb = self.prepare([ca]), self.prepare([cb])
        zero = np.zeros(1, np.int64)
        verdicts, checked, _short = self.judge(pa, zero, pb, zero, prune=False)
        v = verdicts[0] if len(checked) else None
        exact = ca == cb  # exact copies: a batch groups them before any pair is judged
        candidate = bool(self.candidates(pa, zero, pb, zero)[0])
        passes = bool(self.verify(pa, zero, pb, zero)[1][0])  # as a batch verifies: shapes too
        found: dict[str, Any] = {
            "method": self.name,
            "match": self.config.match,
            "compared_a": ca,
            "compared_b": cb,
            "rare_grams": [int(np.diff(pa.grams[1])[0]), int(np.diff(pb.grams[1])[0])],
            "similarity": 1.0 if exact else v.similarity if v else 0.0,
            "containment": v.containment if v else 0.0,
            "coverage": v.coverage if v else 0.0,
            "value_changes": v.value_changes if v else 0,
            "hard_change": v.year_change if v else False,
            "exact_copy": exact,
            "copy_rule": bool(v.copy) if v else False,
            "candidates": candidate,
            "duplicate": exact or (candidate and passes),
        }
        if self.config.partial:  # the paragraph method's answer, for what is not a copy
            para = self._paragraph().compare(a, b)
            found["partial_duplicate"] = not found["duplicate"] and (
                para["duplicate"] or para["partial_duplicate"]
            )
            found["paragraphs"] = {
                k: para[k] for k in ("share_a", "share_b", "containment", "matched_paragraphs")
            }
        return found


def _copies(found: PairSet, n: int, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Which pairs ``(left[k], right[k])`` of ``n`` documents ``found`` (auto's pairs) makes
    copies: the two documents are exact copies of each other, or auto pairs their first
    copies (it links every other exact copy to its first only)."""
    unit = np.arange(n, dtype=np.int64)
    links = found.unit_links()
    unit[found.right[links]] = found.left[links]
    pairs = np.unique(_unordered(unit[found.left], unit[found.right], n))
    a, b = unit[np.asarray(left, np.int64)], unit[np.asarray(right, np.int64)]
    return (a == b) | np.isin(_unordered(a, b, n), pairs)


def _unordered(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """One key per pair of positions below ``n``, whichever comes first."""
    return np.minimum(a, b) * np.int64(n) + np.maximum(a, b)


def _why_not(verdict: CopyVerdict, *, short: bool, config: AutoConfig) -> str:
    """Why the copy rule rejected a pair, in the words of its thresholds."""
    if verdict.year_change:
        return "a year, date, ordinal or identifier differs: another event or record"
    if verdict.value_changes:
        allowed = 0 if short else config.max_value_changes
        return (
            f"{verdict.value_changes} substituted values (numbers, names, a word's opposite or "
            f"a negation); a copy changes at most {allowed} number{'s' if allowed != 1 else ''} "
            "and nothing else"
        )
    if short:
        return (
            f"coverage {verdict.coverage:.3f} < {config.short_similarity} and containment "
            f"{verdict.containment:.3f} < {config.short_containment} (short texts), and "
            f"under {config.heard_similarity} when characters that read alike count as equal"
        )
    return (
        f"containment {verdict.containment:.3f} (needs >= {config.containment}), coverage "
        f"{verdict.coverage:.3f} (needs >= {config.coverage})"
    )


class _Held:
    """Pairs that can pass, gathered from chunks of candidates until they are verified."""

    def __init__(self) -> None:
        self.parts: tuple[list[np.ndarray], ...] = ([], [], [], [], [])
        self.size = 0

    def add(self, *pairs: np.ndarray) -> None:
        """Pairs that can pass: ``left, right, strict, contain, cover``."""
        for part, array in zip(self.parts, pairs, strict=True):
            part.append(array)
        self.size += len(pairs[0])

    def take(self) -> tuple[np.ndarray, np.ndarray, _Shapes]:
        """Everything held, joined one array at a time (each freeing its parts); then empty."""
        lefts, rights, stricts, contains, covers = self.parts
        left, right = drain(lefts, np.int64), drain(rights, np.int64)
        shape = _Shapes(
            np.arange(len(left)),
            drain(stricts, np.bool_),
            drain(contains, np.float64),
            drain(covers, np.float64),
        )
        self.size = 0
        return left, right, shape


class _Clock:
    """Seconds per named stage, measured one after another."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = self.laps.get(name, 0.0) + now - self._last  # stages may alternate
        self._last = now


def _both(a: Prepared, b: Prepared, ib: np.ndarray) -> tuple[Prepared, np.ndarray]:
    """``a`` and ``b`` as one prepared batch, and the positions ``ib`` of ``b`` in it."""
    if b is a:
        return a, np.asarray(ib, np.int64)
    return merge_prepared([a, b]), np.asarray(ib, np.int64) + len(a)
