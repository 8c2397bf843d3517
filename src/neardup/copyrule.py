"""Is one text a *copy* of another? Token alignment where distinctive content decides.

Two copies of one text differ by insertions, deletions, truncation, wrapping and noise; two
stories built from one template differ by **substituted values** — numbers, years, names,
places, titles. Shared text alone cannot tell them apart (the announcements of two years' New
Year speeches share 96 % of their character 3-grams), so the rule looks at *what differs*:

1. Both texts are cut into tokens: a CJK character is a token, so is a run of other letters or
   digits (an English word, a number). Alignment over words, not letters, because two unrelated
   English texts share most of their letters in order.
2. The longest common subsequence of tokens, ``matched``, gives ``containment`` (of the shorter
   text) and ``coverage`` (of the longer) and the reported ``similarity`` ``2·matched / (la + lb)``.
3. Every gap between aligned runs where *both* texts have tokens is a substitution. A
   substitution is a **value change** when both sides hold a number (Chinese numerals are read
   as digits) or the longer side is a short phrase of ``2..max_value_tokens`` tokens (a name,
   a place, a title; a one-for-one character change is a typo, and so is a run of homophones,
   合力 / 和利 or 水准 / 岁尊, what a (fuzzy) pinyin input method gets wrong, or of look-alikes,
   人士 / 入土, what a misread glyph gives — but not one beside inserted text,
   英文版 / 俄文、法文版; a longer change is a rewritten sentence). A changed year, date,
   identifier (5 or more characters with a digit) or code of letters and digits (U7T1 / U7T3,
   4G / 5G, A320), and a day of the week or month put in place of another, always mean
   another event or record (a *hard* change). Paragraphs a copy moved are first put back in
   the other text's order (:func:`_put_in_order`), so that the passages standing in their
   place are not compared.

A pair is a copy when

- the two are near-identical as a whole (``matched / lb >= short_similarity``), or the shorter
  one, of at least ``min_contained_tokens`` tokens, is contained in the longer
  (``containment``, or ``short_containment`` when it has fewer than ``short_tokens`` tokens)
  and covers at least ``coverage`` of it: truncation, excerpt, repost with commentary. A
  4-character overlap does not make "一塌糊涂" a copy of "强得一塌糊涂". A short text may
  also be near-identical *as heard*: with each CJK character read as its most common
  (fuzzy, toneless) reading, ``heard_similarity`` of the longer text matches (星期天间 /
  星期天见, 我要词反 / 我要吃饭: a learner's or an input method's typos, too many for a
  sentence of a few characters); the reported similarity stays that of the tokens;
- and no hard change, no replaced name, and at most ``max_value_changes`` changed numbers
  (none for short texts): one corrected figure is a correction (Reuters' CORRECTED re-sends),
  two are another story from the template.

A long pair rejected on its values is read once more with the corpus's common text
(:class:`Boilerplate`, from the fitted common-gram table): when the alignment's tail — after
its last strong anchor — is on one side mostly boilerplate that text added, it is a cut text
facing a footer or an advertisement (:func:`_added_tail`), not a row of substituted values;
and a region of the alignment one side of which is mostly boilerplate that text added while the
other side is mostly text of its own (not boilerplate) is a header or an advertisement inserted
where the other text has a passage the copy lost (:func:`_inserted_block`), not a substituted name.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from itertools import pairwise
from typing import Any

import numpy as np

from .compiling import few_pairs, small, small_texts
from .errors import ConfigError
from .readings import heard_codes, misheard

RULE_VERSION = "neardup-copy-17"  # 4: moved text; 5: moved paragraphs; 6: typo_tokens; 7: passages; 8: lengthened names; 9: shared numbers; 10: look-alikes, fuzzy pinyin; 11: heard alike; 12: shipped readings, every reading of a character; 13: (withdrawn before release); 14: footers after a cut; 15: boilerplate facing text of its own; 16: one word replaced by another; 17: codes of letters and digits, days and months replaced

_CJK_BLOCKS = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F))
#: Code point ranges of CJK ideographs (a regex character-class body).
CJK_RANGES = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_BLOCKS)
_TOKEN = re.compile(f"[{CJK_RANGES}]|[^\\W_{CJK_RANGES}]+")
_CJK_TOKEN = re.compile(f"[{CJK_RANGES}]")
_CN_DIGITS = str.maketrans("〇零一二两三四五六七八九", "001223456789")
_CN_NUMBER = re.compile(
    r"[〇零一二两三四五六七八九十百千万]{2,}"
    r"|(?<=第)[一二两三四五六七八九十]|[一二两三四五六七八九十](?=[次届期轮批号月日])"
)
_DIGIT = re.compile(r"\d")
_DIGITS = re.compile(r"\d+")
_YEAR = re.compile(r"^(19|20)\d\d$")
MIN_ANCHOR = 3  # tokens: a shorter aligned run between two gaps does not anchor them
MOVE_MIN = 8  # tokens: a shorter shared run is not recognised as a moved passage
HEARD_FLOOR = 0.5  # share of a short text's tokens that must be written alike to read it aloud
MOVE_GAIN = 0.1  # share of the shorter text that putting moved passages back must match more
BOILER_RUN = 3  # common grams in a row that make text boilerplate (see Boilerplate)


@dataclass(frozen=True)
class CopyRule:
    """Thresholds of the copy rule (see the module docstring)."""

    short_tokens: int = 20
    short_similarity: float = 0.8
    short_containment: float = 0.9
    min_contained_tokens: int = 10
    containment: float = 0.8
    coverage: float = 0.5
    max_value_changes: int = 1
    max_value_tokens: int = 12
    heard_similarity: float = 0.9

    def __post_init__(self) -> None:
        for name in (
            "short_similarity",
            "short_containment",
            "containment",
            "coverage",
            "heard_similarity",
        ):
            value = getattr(self, name)
            if not 0.0 < float(value) <= 1.0:
                raise ConfigError(f"{name}={value!r} must be in (0, 1]")
        for name in (
            "short_tokens",
            "min_contained_tokens",
            "max_value_changes",
            "max_value_tokens",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{name}={value!r} must be an integer >= 0")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _cn_number_apart(match: re.Match[str]) -> str:
    """A Chinese numeral as an Arabic number, a token of its own: spaces keep it apart from
    letters or digits beside it (最IQ十二星座 reads iq, 12, not one code iq12)."""
    return f" {_cn_number(match)} "


def _cn_number(match: re.Match[str]) -> str:
    run = match.group(0)
    if not any(c in run for c in "十百千万"):
        return run.translate(_CN_DIGITS)  # 二〇二三 -> 2023
    total, section, digit = 0, 0, 0
    for c in run:
        if c in "十百千":
            section += (digit or 1) * {"十": 10, "百": 100, "千": 1000}[c]
            digit = 0
        elif c == "万":
            total += (section + digit) * 10_000
            section = digit = 0
        else:
            digit = int(c.translate(_CN_DIGITS))
    return str(total + section + digit)


_WORD_NUMBERS = {
    w: str(i)
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}


def tokenize(text: str) -> list[str]:
    """Alignment tokens of a compared text: CJK characters, and runs of letters or digits, with
    Chinese numerals (runs of two or more characters, or one in 第X / X次 / X届 ...; each a token
    of its own) and English number words up to twenty read as Arabic numbers.

    >>> tokenize("二〇二三年新年贺词 Shr 1.20")
    ['2023', '年', '新', '年', '贺', '词', 'shr', '1', '20']
    """
    tokens = _TOKEN.findall(_CN_NUMBER.sub(_cn_number_apart, text).casefold())
    return [_WORD_NUMBERS.get(t, t) for t in tokens]


def _token_spans(text: str) -> list[tuple[int, int]] | None:
    """The character span in ``text`` of each of its :func:`tokenize` tokens (a Chinese numeral
    read as a number spans the characters it was written with); None where case folding
    changes the text's length (spans would not map back)."""
    if not _CN_NUMBER.search(text):  # the common case: tokens are read as written
        folded = text.casefold()
        if len(folded) != len(text):
            return None
        return [m.span() for m in _TOKEN.finditer(folded)]
    parts: list[str] = []
    origin: list[tuple[int, int]] = []  # per character of the read text: its span in ``text``
    last = 0
    for m in _CN_NUMBER.finditer(text):
        parts.append(text[last : m.start()])
        origin.extend((p, p + 1) for p in range(last, m.start()))
        number = _cn_number_apart(m)
        parts.append(number)
        origin.extend([(m.start(), m.end())] * len(number))
        last = m.end()
    parts.append(text[last:])
    origin.extend((p, p + 1) for p in range(last, len(text)))
    read = "".join(parts)
    folded = read.casefold()
    if len(folded) != len(read):
        return None
    return [(origin[m.start()][0], origin[m.end() - 1][1]) for m in _TOKEN.finditer(folded)]


@dataclass(frozen=True)
class Boilerplate:
    """Text many documents of a corpus share — headers, footers, advertisements — as the copy
    rule reads it: the characters of runs of at least ``min_run`` grams of the fitted
    common-gram table (``common``: sorted uint64 hashes of ``gram``-grams, over ``words`` words
    in alphabetic text when set, hashed as the table was). A truncated copy with a footer added faces the original's lost tail with
    the footer; that is text the corpus shares, not a substituted value."""

    common: np.ndarray
    gram: int
    words: int = 0
    min_run: int = BOILER_RUN

    def tokens(self, text: str) -> list[bool] | None:
        """Which :func:`tokenize` tokens of ``text`` lie wholly inside boilerplate (None when
        none does, or the tokens cannot be mapped to characters)."""
        from .methods.prepared import gram_hashes
        from .normalize import encode_texts

        if len(text) < self.gram + self.min_run - 1 or not len(self.common):
            return None
        cps, offsets = encode_texts([text])
        hashes, _ = gram_hashes(cps, offsets, self.gram, self.words)
        where = np.minimum(np.searchsorted(self.common, hashes), len(self.common) - 1)
        edges = np.flatnonzero(np.diff(np.concatenate([[0], self.common[where] == hashes, [0]])))
        starts, ends = edges[::2], edges[1::2]  # runs of common grams
        long = ends - starts >= self.min_run
        if not long.any():
            return None
        last = ends[long] - 1  # each long run's last gram, and where it ends
        if self.words:
            from ._tokenkernels import word_gram_ends

            after = word_gram_ends(cps, offsets, self.gram, self.words)[last]
        else:
            after = last + self.gram
        covered = np.zeros(len(text) + 1, np.int64)  # +1 where a covered stretch starts, -1 after
        np.add.at(covered, starts[long], 1)
        np.add.at(covered, after, -1)
        inside = np.concatenate([[0], np.cumsum(np.cumsum(covered)[:-1] > 0)])
        found = _token_spans(text)
        if found is None:
            return None
        spans = np.array(found, np.int64).reshape(-1, 2)
        first = cps[spans[:, 0]]
        cjk = np.zeros(len(spans), np.bool_)
        for lo, hi in _CJK_BLOCKS:
            cjk |= (first >= lo) & (first <= hi)
        digit = np.zeros(len(text), np.int64)  # a digit as _DIGIT reads one
        for m in _DIGITS.finditer(text):
            digit[m.start() : m.end()] = 1
        digits = np.concatenate([[0], np.cumsum(digit)])
        whole = inside[spans[:, 1]] - inside[spans[:, 0]] == spans[:, 1] - spans[:, 0]
        numeric = digits[spans[:, 1]] > digits[spans[:, 0]]
        mask = whole & (cjk | numeric)  # a word of other letters: most of its grams are common
        edges = np.flatnonzero(np.diff(np.concatenate([[0], mask, [0]])))
        cjk_seen = np.concatenate([[0], np.cumsum(cjk)])
        for lo, hi in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
            if cjk_seen[hi] == cjk_seen[lo]:  # nor is a run of numbers alone (a price table)
                mask[lo:hi] = False
        mask = mask.tolist()
        return mask if any(mask) else None


def token_codes(
    texts: Sequence[str], encoded: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tokens of each compared text (:func:`tokenize`) as 64-bit hashes (feature hashes of
    the token strings), with offsets and each token's :func:`token_flags`: a compiled tokenizer
    for CJK and ASCII text, this module's Python one for texts holding other characters.
    ``encoded``: the texts' code points and offsets, when the caller has them."""
    from . import _tokenkernels
    from .normalize import encode_texts, splice_documents
    from .simhash import hash_features

    few = small(len(encoded[0])) if encoded is not None else small_texts(texts)
    if few:  # every text by the Python tokenizer, the compiled one's oracle
        codes = np.zeros(0, np.uint64)
        offsets = np.zeros(len(texts) + 1, np.int64)
        flags = np.zeros(0, np.uint8)
        other = np.ones(len(texts), np.bool_)
    else:
        words, values, months = _word_tables()
        cps, cp_offsets = encoded if encoded is not None else encode_texts(texts)
        codes, offsets, flags, other = _tokenkernels.alignment_tokens(
            cps, cp_offsets, words, values, months
        )
    which = np.flatnonzero(other)
    if not len(which):
        return codes, offsets, flags
    slow = [tokenize(texts[i]) for i in which.tolist()]
    tokens = [t for found in slow for t in found]
    repl_off = np.zeros(len(slow) + 1, np.int64)
    np.cumsum([len(t) for t in slow], out=repl_off[1:])
    spliced, new_offsets = splice_documents(codes, offsets, hash_features(tokens), repl_off, which)
    repl_flags = np.array([token_flags(t) for t in tokens], np.uint8)
    return spliced, new_offsets, splice_documents(flags, offsets, repl_flags, repl_off, which)[0]


@lru_cache(maxsize=1)
def _word_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from .simhash import hash_features

    return (
        hash_features(list(_WORD_NUMBERS)),
        hash_features(list(_WORD_NUMBERS.values())),
        hash_features(sorted(_MONTHS)),
    )


@dataclass(frozen=True)
class CopyVerdict:
    similarity: float
    containment: float
    coverage: float
    value_changes: int
    year_change: bool
    copy: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_DATE_UNITS = frozenset("年月日号时次届期轮")  # dates, and ordinals of an event
# English words a copy editor swaps for one another without changing what is reported
_FUNCTION_WORD_LIST = (
    "the and but for nor yet its his her their our your this that these those which who "
    "whom whose what when where while was were are has had have will would shall should "
    "can could may might must not also said says told added stated reported noted "
    "about after before from into onto over under with within without upon than then "
    "via through per amid during "
    "there here some any all each both such very more most less least"
)
_FUNCTION_WORDS = frozenset(_FUNCTION_WORD_LIST.split())
_MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)


@lru_cache(maxsize=1 << 16)  # tokens repeat (characters, common numbers): 1.4 M calls
def token_flags(token: str) -> int:  # on a 1 M-document batch, most of them the same few tokens
    """What a token says about the numbers beside it (the ``TOKEN_*`` bits of
    :mod:`neardup._tokenkernels`, which the compiled tokenizer sets alike): it holds a digit; it is
    a year (19xx, 20xx), an identifier (a token of 5 or more characters with a digit) or a code
    (letters and digits: U7T1, A320, 5G — another lesson, aircraft or network); it is a
    date or event unit (年, 月, 次, 届: the number before it is a date or an ordinal); it is a
    month name or 第 (the number after it is a date or an ordinal); it is a word of letters
    (another word in its place may be a replaced name: :func:`_replaced_word`); it is a year."""
    from ._tokenkernels import (
        TOKEN_BEFORE_DATE,
        TOKEN_DATED,
        TOKEN_DIGIT,
        TOKEN_UNIT,
        TOKEN_WORD,
        TOKEN_YEAR,
        WORD_MIN,
    )

    flags = 0
    if _DIGIT.search(token):
        flags |= TOKEN_DIGIT
        year = _YEAR.match(token) is not None
        if len(token) >= 5 or year or not token.isdigit():  # identifier; letters and digits
            flags |= TOKEN_DATED
        if year:
            flags |= TOKEN_YEAR
    elif token in _MONTHS:
        flags |= TOKEN_BEFORE_DATE
    elif len(token) >= WORD_MIN:  # a CJK token is one character
        flags |= TOKEN_WORD
    if token in _DATE_UNITS:
        flags |= TOKEN_UNIT
    if token == "第":
        flags |= TOKEN_BEFORE_DATE
    return flags


def _numbers(tokens: Sequence[str]) -> frozenset[str]:
    """The tokens holding a digit."""
    return frozenset(t for t in tokens if not t.isalpha() and _DIGIT.search(t))


def _boilerplate_of(gap: Sequence[str]) -> set[str]:
    """The numbers of the boilerplate one text added after a cut (:class:`_Footer`)."""
    return {t for t in gap if isinstance(t, _Footer) and _DIGIT.search(t)}


def _numbers_differ(
    na: frozenset[str],
    nb: frozenset[str],
    passage_a: frozenset[str] | set[str] = frozenset(),
    passage_b: frozenset[str] | set[str] = frozenset(),
) -> bool:
    """Both texts hold numbers (``_numbers``) the other lacks, and one of them is a year or
    there are two: another event from the same template (a copy only loses numbers by
    truncation, or with a passage it inserted or deleted, whose numbers, ``passage_a`` and
    ``passage_b``, do not count). A number both texts hold is never one the other lacks, also
    when a passage of one holds it."""
    only_a, only_b = na - nb - passage_a, nb - na - passage_b
    if not only_a or not only_b:
        return False
    years = any(_YEAR.match(t) for t in (*only_a, *only_b))
    return years or min(len(only_a), len(only_b)) >= 2


def token_alignment(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """The alignment of two token sequences: opcodes ``(tag, a_start, a_end, b_start, b_end)``,
    adjacent ones of one kind (equal, or not) merged.

    A longest common subsequence (rapidfuzz) wherever its table is small enough: it keeps a bit
    per pair of tokens, so two near-copies of 300,000 Chinese characters took 56 s and 7 GB, and
    of a million failed with ``MemoryError`` (``bench_long_pair.py``). Past ``ALIGN_CELLS`` the
    two are cut at the runs of ``MOVE_MIN`` tokens both hold once (:func:`_anchor_blocks`: the
    longest chain of them in order), and each stretch between two anchors is aligned the same
    way — a near-copy keeps its longest common subsequence; a stretch without any anchor is
    deleted and inserted whole.
    """
    ops: list[tuple[str, int, int, int, int]] = []
    _align_into(ops, a, b, 0, len(a), 0, len(b))
    merged: list[tuple[str, int, int, int, int]] = []
    for op in ops:
        if merged and (merged[-1][0] == "equal") == (op[0] == "equal"):
            tag, a0, _a1, b0, _b1 = merged[-1]
            merged[-1] = (tag if tag == op[0] else "replace", a0, op[2], b0, op[4])
        else:
            merged.append(op)
    return merged


ALIGN_CELLS = 1 << 26  # token pairs a full alignment may hold: 8 MB of rapidfuzz's bit table


def _align_into(
    ops: list[tuple[str, int, int, int, int]],
    a: Sequence[str],
    b: Sequence[str],
    a0: int,
    a1: int,
    b0: int,
    b1: int,
) -> None:
    """Append the alignment of ``a[a0:a1]`` and ``b[b0:b1]`` to ``ops`` (see :func:`token_alignment`)."""
    from rapidfuzz.distance import Indel

    if a1 - a0 == 0 or b1 - b0 == 0:
        if a1 > a0 or b1 > b0:
            ops.append(("delete" if a1 > a0 else "insert", a0, a1, b0, b1))
        return
    part_a, part_b = a[a0:a1], b[b0:b1]
    if (a1 - a0) * (b1 - b0) <= ALIGN_CELLS:
        for tag, s0, s1, d0, d1 in Indel.opcodes(part_a, part_b):
            ops.append((tag, s0 + a0, s1 + a0, d0 + b0, d1 + b0))
        return
    blocks = _anchor_blocks(part_a, part_b)
    if not blocks:
        ops.append(("replace", a0, a1, b0, b1))
        return
    at_a, at_b = a0, b0
    for p, q, n in blocks:
        _align_into(ops, a, b, at_a, a0 + p, at_b, b0 + q)
        ops.append(("equal", a0 + p, a0 + p + n, b0 + q, b0 + q + n))
        at_a, at_b = a0 + p + n, b0 + q + n
    _align_into(ops, a, b, at_a, a1, at_b, b1)


def _anchor_blocks(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int]]:
    """The longest chain (most tokens) of :func:`_shared_blocks` in order in both texts, cut so
    that no two overlap: ``(a_start, b_start, length)``."""
    from bisect import bisect_left

    blocks = _shared_blocks(a, b, MOVE_MIN)
    if not blocks:
        return []
    # longest increasing subsequence of b_start over blocks ordered by a_start (patience)
    tails: list[int] = []  # b_start of the last block of the best chain of each length
    ends: list[int] = []  # that block's index
    before = [-1] * len(blocks)
    for k, (_p, q, _n) in enumerate(blocks):
        at = bisect_left(tails, q)
        before[k] = ends[at - 1] if at else -1
        if at == len(tails):
            tails.append(q)
            ends.append(k)
        else:
            tails[at], ends[at] = q, k
    chain = []
    k = ends[-1]
    while k >= 0:
        chain.append(blocks[k])
        k = before[k]
    chain.reverse()
    out: list[tuple[int, int, int]] = []
    for p, q, n in chain:
        if out:
            lp, lq, ln = out[-1]
            shift = max(lp + ln - p, lq + ln - q, 0)
            p, q, n = p + shift, q + shift, n - shift
        if n > 0:
            out.append((p, q, n))
    return out


def _segments(
    a: Sequence[str],
    b: Sequence[str],
    max_value_tokens: int,
    opcodes: Any = None,
    *,
    marked: bool = False,
) -> tuple[list[tuple], list[tuple]]:
    """The substitutions between aligned runs, and the moved, inserted or deleted text.

    Both as ``(gap_a, gap_b, before, after_a, after_b)`` with the tokens around the gap (None
    at an end of the text, where a gap may be wrapping or truncation).

    A longest common subsequence threads single shared tokens (的, 中, 人, "the") through
    passages that were inserted, deleted or moved, and cutting a passage at them shows it as
    short substitutions (names) on both sides. So interior gaps joined by aligned runs shorter
    than ``MIN_ANCHOR`` tokens form one *region*. A lopsided region (one side more than twice
    the other) longer than ``max_value_tokens`` is moved, inserted or deleted text: it holds no
    substituted name or figure, only perhaps a date rewritten in place; the gaps of any other
    region are substitutions one by one (a name, a title, a figure, a rewritten passage), or
    inserted or deleted text where one side is empty — except a short region that replaces
    single characters one for one beside text only one side has (:func:`_grown_letter`),
    which is one substituted name as a whole. The alignment's tail after its last strong
    anchor is one moved gap when one side of it is mostly boilerplate that text added
    (:func:`_added_tail`; tokens marked by :func:`_added_boilerplate`), and so is any region
    where such boilerplate faces text of the other's own (:func:`_inserted_block`).
    """
    runs: list[list] = []  # [equal?, a_start, a_end, b_start, b_end], adjacent gaps merged
    for tag, a0, a1, b0, b1 in token_alignment(a, b) if opcodes is None else opcodes:
        equal = tag == "equal"
        if runs and not equal and not runs[-1][0]:
            runs[-1][2], runs[-1][4] = a1, b1
        else:
            runs.append([equal, a0, a1, b0, b1])

    def gap(k0: int, k1: int) -> tuple:
        """The gap from run ``k0`` to run ``k1`` (inclusive) with its surrounding tokens."""
        a0, b0, a1, b1 = runs[k0][1], runs[k0][3], runs[k1][2], runs[k1][4]
        last = k1 == len(runs) - 1
        return (
            list(a[a0:a1]),
            list(b[b0:b1]),
            a[a0 - 1] if k0 > 0 else None,
            None if last else a[a1],
            None if last else b[b1],
        )

    substituted: list[tuple] = []
    moved: list[tuple] = []
    last = len(runs)
    tail = _added_tail(runs, a, b) if marked else last  # no added boilerplate: no footer
    if tail < last:
        gap_a, gap_b, *around = gap(tail, last - 1)
        footer = [_Footer(t) if isinstance(t, _Added) else t for t in (*gap_a, *gap_b)]
        moved.append((footer[: len(gap_a)], footer[len(gap_a) :], *around))
        last = tail
    k = 0
    while k < last:
        if runs[k][0]:
            k += 1
            continue
        end = k  # the region's last gap: follow weak anchors between interior gaps
        while (
            k > 0
            and end + 2 < len(runs) - 1
            and runs[end + 1][2] - runs[end + 1][1] < MIN_ANCHOR
            and not runs[end + 2][0]
        ):
            end += 2
        whole = gap(k, end)
        small, large = sorted((len(whole[0]), len(whole[1])))
        if large > 2 * small and large > max_value_tokens:
            moved.append(whole)
        elif marked and _inserted_block(whole[0], whole[1]):
            moved.append(whole)  # a header or an advertisement facing a lost passage
        elif large - small >= 2 and large <= max_value_tokens and _grown_letter(runs, k, end, a, b):
            substituted.append(whole)  # a name replaced by a longer one: 英文版 / 俄文、法文…版
        else:
            for g in range(k, end + 1, 2):
                one = gap(g, g)
                (substituted if one[0] and one[1] else moved).append(one)  # one-sided: inserted
        k = end + 1
    return substituted, moved


def _added_tail(runs: list[list], a: Sequence[str], b: Sequence[str]) -> int:
    """Where the alignment's tail starts (the run after its last aligned run of at least
    ``MIN_ANCHOR`` tokens), when one text's tail is mostly boilerplate that it added
    (:class:`_Added`): a truncated copy with a footer or an advertisement after the cut,
    whose lost tail faces the added text; ``len(runs)`` otherwise."""
    start = len(runs)
    while start > 0 and not (
        runs[start - 1][0] and runs[start - 1][2] - runs[start - 1][1] >= MIN_ANCHOR
    ):
        start -= 1
    if start in (0, len(runs)):
        return len(runs)
    for side, (lo, hi) in ((a, (1, 2)), (b, (3, 4))):
        tokens = side[runs[start][lo] : runs[-1][hi]]
        if tokens and 2 * sum(isinstance(t, _Added) for t in tokens) > len(tokens):
            return start
    return len(runs)


def _inserted_block(gap_a: Sequence[str], gap_b: Sequence[str]) -> bool:
    """One side of a region is mostly boilerplate that its text added (:class:`_Added`) and the
    other side is text of its own: mostly not boilerplate, and none of it boilerplate that the
    first text lacks. A header, an advertisement or a "阅读全文" inserted where the other text
    has a passage of its own (a sentence the copy lost or moved), not a substituted value. Two
    stories of one template differ by values that are common text on both sides (全国政协主席 /
    全国人大常委会委员长, two lists of officials, a leader's titles / 国民经济和社会发展 in the
    title of another book) or on neither (names, places: no boilerplate on either side)."""
    if not gap_a or not gap_b:
        return False
    for added, text in ((gap_a, gap_b), (gap_b, gap_a)):
        if (
            2 * sum(isinstance(t, _Added) for t in added) > len(added)
            and not any(isinstance(t, _Added) for t in text)
            and 2 * sum(isinstance(t, _Common) for t in text) < len(text)
        ):
            return True
    return False


def _has_tail(a: Sequence[str], b: Sequence[str], opcodes: Any = None) -> bool:
    """Whether the alignment of ``a`` and ``b`` (``opcodes``, when the caller made it) goes on
    after its last aligned run of at least ``MIN_ANCHOR`` tokens (what :func:`_added_tail` can
    read as a footer after a cut): a cheap test before the texts' boilerplate is looked for."""
    ops = token_alignment(a, b) if opcodes is None else opcodes
    for k in range(len(ops) - 1, -1, -1):
        tag, a0, a1, _b0, _b1 = ops[k]
        if tag == "equal" and a1 - a0 >= MIN_ANCHOR:
            return k < len(ops) - 1
    return False


def _grown_letter(runs: list[list], k: int, end: int, a: Sequence[str], b: Sequence[str]) -> bool:
    """The region of gaps ``k..end`` replaces single characters one for one (what alone reads
    as a typo) next to text only one side has, and holds no digit: one name replaced by a
    longer one or a list (英文版 / 俄文、法文、西班牙文版), not a typing error."""
    replaced = inserted = False
    for g in range(k, end + 1, 2):
        ga, gb = a[runs[g][1] : runs[g][2]], b[runs[g][3] : runs[g][4]]
        if any(_DIGIT.search(t) for t in (*ga, *gb)):
            return False
        if ga and gb:
            if len(ga) != len(gb) or any(len(t) != 1 for t in (*ga, *gb)):
                return False
            replaced = True
        else:
            inserted = True
    return replaced and inserted


def _shared_blocks(a: Sequence[str], b: Sequence[str], k: int) -> list[tuple[int, int, int]]:
    """Maximal runs of tokens the two texts share, ``(a_start, b_start, length)``, found through
    the runs of ``k`` tokens that occur exactly once in each text (so a repeated phrase does not
    pair up with the wrong place), in order of ``a_start``."""
    if min(len(a), len(b)) < k:
        return []
    if min(len(a), len(b)) >= LONG_BLOCKS:
        return _shared_blocks_long(a, b, k)

    def once(seq: Sequence[str]) -> dict[tuple[str, ...], int]:
        seen: dict[tuple[str, ...], int] = {}
        for p in range(len(seq) - k + 1):
            gram = tuple(seq[p : p + k])
            seen[gram] = -1 if gram in seen else p
        return seen

    in_a, in_b = once(a), once(b)
    hits = sorted((p, in_b[g]) for g, p in in_a.items() if p >= 0 and in_b.get(g, -1) >= 0)
    blocks: list[list[int]] = []
    for p, q in hits:
        last = blocks[-1] if blocks else None
        if last and p == last[0] + last[2] - k + 1 and q == last[1] + last[2] - k + 1:
            last[2] += 1  # the next gram on the same diagonal
        else:
            blocks.append([p, q, k])
    return [(p, q, n) for p, q, n in blocks]


LONG_BLOCKS = 1000  # tokens from which :func:`_shared_blocks` runs on arrays (same blocks)
_GRAM_MULT = np.uint64(0x9E3779B97F4A7C15)


def _shared_blocks_long(a: Sequence[Any], b: Sequence[Any], k: int) -> list[tuple[int, int, int]]:
    """:func:`_shared_blocks` on arrays: tokens numbered, each run of ``k`` keyed by a
    polynomial hash, the keys occurring once in each text matched (runs whose tokens differ, a
    hash collision, are dropped) and consecutive matches on one diagonal merged — a second a
    million tokens where the dictionary of token tuples took six."""
    ids: dict[Any, int] = {}
    codes = [
        np.fromiter((ids.setdefault(t, len(ids)) for t in seq), np.uint64, len(seq))
        for seq in (a, b)
    ]
    found = []
    for c in codes:
        keys = np.zeros(len(c) - k + 1, np.uint64)
        for j in range(k):
            keys = keys * _GRAM_MULT + c[j : j + len(keys)]
        values, first, counts = np.unique(keys, return_index=True, return_counts=True)
        found.append((values[counts == 1], first[counts == 1]))
    (va, fa), (vb, fb) = found
    _common, xa, xb = np.intersect1d(va, vb, assume_unique=True, return_indices=True)
    order = np.argsort(fa[xa], kind="stable")
    p, q = fa[xa][order], fb[xb][order]
    span = np.arange(k)
    same = (codes[0][p[:, None] + span] == codes[1][q[:, None] + span]).all(axis=1)
    p, q = p[same], q[same]
    if not len(p):
        return []
    starts = np.ones(len(p), np.bool_)
    starts[1:] = (p[1:] != p[:-1] + 1) | (q[1:] != q[:-1] + 1)
    at = np.flatnonzero(starts)
    lengths = np.diff(np.append(at, len(p))) + k - 1
    return list(zip(p[at].tolist(), q[at].tolist(), lengths.tolist(), strict=True))


def _put_in_order(a: Sequence[str], b: Sequence[str]) -> tuple[Sequence[str], list[int] | None]:
    """``b`` with the passages it shares with ``a`` put in ``a``'s order (:func:`_move_order`),
    and that order (None: ``b`` itself, unchanged)."""
    order = _move_order(a, b)
    return (b, None) if order is None else ([b[t] for t in order], order)


def _aligned_in_order(
    a: Sequence[str], b: Sequence[str]
) -> tuple[Sequence[str], list[int] | None, list[tuple[str, int, int, int, int]]]:
    """:func:`_put_in_order` and the alignment of ``a`` with its result (:func:`token_alignment`),
    made once: the alignment of ``a`` and ``b`` gives the distance that decides whether anything
    may have moved, and serves as the result's alignment when nothing did (the common case)."""
    opcodes = token_alignment(a, b)
    order = _move_order(a, b, opcodes)
    if order is None:
        return b, None, opcodes
    ordered = [b[t] for t in order]
    return ordered, order, token_alignment(a, ordered)


def _permuted(mask: list[bool] | None, order: list[int] | None) -> list[bool] | None:
    """A text's token ``mask`` (:class:`Boilerplate`) for its tokens put in ``order``."""
    return mask if mask is None or order is None else [mask[t] for t in order]


def _move_order(a: Sequence[str], b: Sequence[str], opcodes: Any = None) -> list[int] | None:
    """The order of ``b``'s tokens that puts the passages it shares with ``a`` in ``a``'s
    order, or None when they stay as they are.

    A copy may move paragraphs (a repost that puts the key paragraph first, a page whose blocks
    a crawler reads in another order), and a longest common subsequence cannot follow a move:
    it aligns a moved paragraph with whatever stands in its place and sees substituted names
    everywhere. So the runs of at least ``MOVE_MIN`` tokens both texts share are put in the
    order they have in ``a``, each with the tokens that precede it in ``b`` (the head of a moved
    paragraph travels with it: 银川市… before a shared passage in one text still faces 安阳市…
    before it in the other, and a template filled with other values stays apart in any order).
    Tokens after the last shared run stay at the end. Unchanged when nothing moved, or when the
    new order matches fewer than ``MOVE_GAIN`` of the shorter text more (a sentence moved inside
    a rewritten story is no reason to pair its rewritten passages differently). ``opcodes``:
    the alignment of ``a`` and ``b``, when the caller made it (its distance is theirs)."""

    short = min(len(a), len(b))
    if short < MOVE_MIN:
        return None  # no shared run
    distance = _indel_distance(a, b) if opcodes is None else _alignment_distance(a, b, opcodes)
    if distance - abs(len(a) - len(b)) < 2 * MOVE_GAIN * short:
        return None  # no order can match enough more: b's length bounds the new distance
    blocks = _shared_blocks(a, b, MOVE_MIN)
    if all(x[1] < y[1] for x, y in pairwise(blocks)):
        return None  # nothing moved: the common case
    shared = [False] * len(b)
    for _, q, n in blocks:
        shared[q : q + n] = [True] * n
    key: list[float] = [float(len(a))] * len(b)  # where each token of b goes, in a's positions
    for p, q, n in blocks:
        key[q : q + n] = range(p, p + n)
        t = q - 1
        while t >= 0 and not shared[t]:
            key[t] = p - 0.5  # the gap before a run goes with it
            t -= 1
    order = sorted(range(len(b)), key=lambda t: (key[t], t))
    gain = distance - _indel_distance(a, [b[t] for t in order])  # twice the tokens matched more
    return order if gain >= 2 * MOVE_GAIN * short else None


def _canonical(i: int, j: int, texts: Sequence[str], tokens: dict) -> tuple[int, int]:
    """The pair in one order whichever way it was given (fewer tokens first, then the smaller
    text): the alignment of two texts can break ties differently in each direction, and a
    verdict must not depend on which of the two arrived first (batch judges the earlier text
    first, the online detector the new one)."""
    if (len(tokens[j][0]), texts[j]) < (len(tokens[i][0]), texts[i]):
        return j, i
    return i, j


def _value_changes(
    a: Sequence[str],
    b: Sequence[str],
    rule: CopyRule,
    numbers: tuple[frozenset[str], frozenset[str]] | None = None,
    *,
    ordered: bool = False,
    opcodes: Any = None,
    marked: bool = False,
) -> tuple[int, int, bool]:
    """Substituted values between two token sequences: ``(numbers, names, hard)``.

    Hard: a changed year, date, ordinal (第N, N次, N届), identifier (a number of 5 or more
    digits) or code of letters and digits (U7T1), a day of the week or month replaced by
    another (:func:`_day_replaced`) — another event or another record; also when each text
    holds such a value the other lacks in a short moved phrase (3月9日上午 at the start of
    one, 于3月11日下午 later in the other), which an inserted or deleted sentence is not; also
    when both texts hold numbers the other lacks outside inserted or deleted passages
    (:func:`_numbers_differ`). Numbers:
    other changed figures (a figure only split or joined by punctuation, 4,372 / 4372, is
    unchanged), and in a short text (under ``short_tokens`` tokens, where no value may change)
    one word replaced by another (:func:`_replaced_word`). Names: a short
    phrase (a name, a place, a title word) replaced — unless it is typing errors
    (:func:`_typos`); between aligned runs, or at the start of a short alphabetic text (the
    subject of a flash: "Union Pacific / Murphy raises crude oil postings"). Tokens of boilerplate one text added (:class:`_Added`, marked by
    :func:`_added_boilerplate`): when the tail of the alignment is mostly such text
    (:func:`_added_tail`), the tail is a cut text facing an added footer, not a row of
    substitutions, and the footer's numbers are those of an inserted passage (a date or year
    outside it still counts); a region where it faces text of the other's own is an inserted
    block (:func:`_inserted_block`). ``ordered``: ``b`` is already in ``a``'s order
    (:func:`_put_in_order`); ``opcodes``: the alignment of ``a`` and ``b`` (:func:`token_alignment`),
    when the caller made it; ``marked``: the tokens carry their boilerplate marks (without
    them neither a footer nor an inserted block can be found, and neither is looked for).
    """
    changes, names, hard = 0, 0, False
    short = min(len(a), len(b)) < rule.short_tokens  # a word replaced there is a value
    na, nb = numbers if numbers is not None else (_numbers(a), _numbers(b))
    if not ordered:
        b, _order = _put_in_order(a, b)
    digits = bool(na or nb)  # without any, only names can change (the common case)
    substituted, moved = _segments(a, b, rule.max_value_tokens, opcodes, marked=marked)
    for gap_a, gap_b, before, after_a, after_b in substituted:
        if "".join(gap_a) == "".join(gap_b):
            continue  # a word split or joined by a space or a mark
        interior = before is not None and after_a is not None
        nums_a = [t for t in gap_a if _DIGIT.search(t)] if digits else []
        nums_b = [t for t in gap_b if _DIGIT.search(t)] if digits else []
        if nums_a and nums_b:
            if "".join(nums_a) == "".join(nums_b):
                continue
            changes += interior
            hard = hard or bool(_dated(gap_a, before, after_a) | _dated(gap_b, before, after_b))
        elif _day_replaced(gap_a, gap_b, before):
            hard = True
        elif (interior or (short and after_a is not None and _alphabetic(gap_a, gap_b))) and (
            2 <= max(len(gap_a), len(gap_b)) <= rule.max_value_tokens
        ):
            names += not _typos(gap_a, gap_b)  # a name, place or title word replaced
        elif len(gap_a) == len(gap_b) == 1 and short:  # sun / phillips raises crude postings
            changes += _replaced_word(gap_a[0], gap_b[0])
    if not digits:
        return changes, names, hard
    moved_a: set[str] = set()
    moved_b: set[str] = set()
    passage_a: set[str] = set()  # numbers in passages one text inserted or deleted
    passage_b: set[str] = set()
    for gap_a, gap_b, before, after_a, after_b in moved:
        dated_a = _dated(gap_a, before, after_a) - _boilerplate_of(gap_a)
        dated_b = _dated(gap_b, before, after_b) - _boilerplate_of(gap_b)
        hard = hard or bool(dated_a - nb and dated_b - na)  # a date rewritten in place
        if len(gap_a) <= rule.max_value_tokens:
            moved_a |= dated_a
        else:
            passage_a |= _numbers(gap_a)
        if len(gap_b) <= rule.max_value_tokens:
            moved_b |= dated_b
        else:
            passage_b |= _numbers(gap_b)
        passage_a |= _boilerplate_of(gap_a)
        passage_b |= _boilerplate_of(gap_b)
    hard = hard or bool(moved_a - nb and moved_b - na)
    return changes, names, hard or _numbers_differ(na, nb, passage_a, passage_b)


class _Added(str):
    """A token of boilerplate that one text of a pair added (:func:`_added_boilerplate`)."""

    __slots__ = ()


class _Common(str):
    """A token of boilerplate that both texts of a pair hold (a run mostly matched): text the
    corpus shares, not text of the document's own (:func:`_inserted_block`)."""

    __slots__ = ()


class _Footer(_Added):
    """A token of boilerplate one text added in the tail of a pair's alignment
    (:func:`_added_tail`): a footer after a cut, whose numbers are not values."""

    __slots__ = ()


def _with_boilerplate(
    a: Sequence[str],
    b: Sequence[str],
    rule: CopyRule,
    numbers: tuple[frozenset[str], frozenset[str]],
    masks: tuple[list[bool] | None, list[bool] | None],
    opcodes: Any = None,
) -> tuple[int, int, bool] | None:
    """:func:`_value_changes` of ``a`` and ``b`` (``b`` in ``a``'s order; ``opcodes``: their
    alignment, when the caller made it) read with each text's boilerplate (``masks``:
    :meth:`Boilerplate.tokens`), or None when neither text added any: the reading would then be
    the one without it (only added boilerplate changes a verdict)."""
    if masks == (None, None):
        return None
    if opcodes is None:  # marking tokens keeps them equal: one alignment serves both readings
        opcodes = token_alignment(a, b)
    a, b, added = _added_boilerplate(a, b, *masks, opcodes)
    if not added:
        return None
    return _value_changes(a, b, rule, numbers, ordered=True, opcodes=opcodes, marked=True)


def _added_boilerplate(
    a: Sequence[str],
    b: Sequence[str],
    mask_a: list[bool] | None,
    mask_b: list[bool] | None,
    opcodes: Any,
) -> tuple[list[str], list[str], bool]:
    """``a`` and ``b`` with the tokens of each run of boilerplate (``mask_a``, ``mask_b``) that
    the other text mostly lacks marked :class:`_Added`: most of the run's tokens are outside a
    longest common subsequence of the two — a footer or an advertisement one text added,
    through which the alignment threads a few single characters. A run both texts hold, a typo
    aside, is marked :class:`_Common`. Also whether any run was marked added."""
    matched_a, matched_b = np.zeros(len(a), np.int64), np.zeros(len(b), np.int64)
    for tag, a0, a1, b0, b1 in opcodes:  # the alignment of a and b (:func:`token_alignment`)
        if tag == "equal":
            matched_a[a0:a1] = 1
            matched_b[b0:b1] = 1
    marked_a, added_a = _marked(a, mask_a, matched_a)
    marked_b, added_b = _marked(b, mask_b, matched_b)
    return marked_a, marked_b, added_a or added_b


def _marked(
    tokens: Sequence[str], mask: list[bool] | None, matched: np.ndarray
) -> tuple[list[str], bool]:
    """``tokens`` with the runs of ``mask`` of which most tokens are not ``matched`` marked
    :class:`_Added`, the other runs :class:`_Common`; and whether any run was added."""
    out = list(tokens)
    if mask is None:
        return out, False
    edges = np.flatnonzero(np.diff(np.concatenate([[0], np.asarray(mask, np.int8), [0]])))
    hits = np.concatenate([[0], np.cumsum(matched)])
    added = False
    for p, q in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        kind = _Added if 2 * (hits[q] - hits[p]) < q - p else _Common
        added = added or kind is _Added
        out[p:q] = [kind(t) for t in out[p:q]]
    return out, added


def _dated(gap: Sequence[str], before: str | None, after: str | None) -> set[str]:
    """The years, dates, ordinals and identifiers (5 or more characters) in a gap; a number is
    read with the tokens around it (:func:`token_flags`)."""
    from ._tokenkernels import TOKEN_BEFORE_DATE, TOKEN_DATED, TOKEN_DIGIT, TOKEN_UNIT

    found = set()
    for k, t in enumerate(gap):
        flags = token_flags(t)
        if flags & TOKEN_DIGIT:
            prev = gap[k - 1] if k else before
            nxt = gap[k + 1] if k + 1 < len(gap) else after
            if (
                flags & TOKEN_DATED
                or (nxt is not None and token_flags(nxt) & TOKEN_UNIT)
                or (prev is not None and token_flags(prev) & TOKEN_BEFORE_DATE)
            ):
                found.add(t)
    return found


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# the short forms that are no other word (mon, wed, sat and sun are)
_WEEKDAY_SHORT = {
    "tue": "tuesday",
    "tues": "tuesday",
    "thu": "thursday",
    "thur": "thursday",
    "thurs": "thursday",
    "fri": "friday",
}
_FULL_MONTHS = sorted(m for m in _MONTHS if len(m) > 4 or m in ("may", "june", "july"))
# a day of the week or a month, and which one (Oct and October are one month)
_CALENDAR = {
    **{day: day for day in _WEEKDAYS},
    **_WEEKDAY_SHORT,
    **{m: next(f for f in _FULL_MONTHS if f.startswith(m)) for m in _MONTHS},
}
_CJK_WEEK = frozenset("期拜周")  # 星期三, 礼拜三, 周三: the day after it
_CJK_WEEKDAYS = frozenset("一二三四五六日天")


def _day_replaced(gap_a: Sequence[str], gap_b: Sequence[str], before: str | None) -> bool:
    """One day of the week or month put in place of another (Monday / Sunday, Tues / Fri,
    May / June; Oct and October are one month): another date, however alike the two are
    spelled. In Chinese, one of 一…六, 日, 天 after 期, 拜 or 周 (星期一 / 星期三, 周五 / 周日;
    日 and 天 are both Sunday) — read without the character before 期, so a count after it
    (为期一天 / 为期三天) counts too: another event as well, not a copy's edit."""
    if len(gap_a) != 1 or len(gap_b) != 1:
        return False
    x, y = _CALENDAR.get(gap_a[0]), _CALENDAR.get(gap_b[0])
    if x is not None and y is not None:
        return x != y
    days = {gap_a[0], gap_b[0]}
    return before in _CJK_WEEK and days <= _CJK_WEEKDAYS and days != {"日", "天"}  # both Sunday


def _replaced_word(x: str, y: str) -> bool:
    """One word put in place of another: two words of letters (``TOKEN_WORD``), neither a
    function word, neither the start of the other and spelled unalike (normalised Levenshtein
    similarity under one half), the shorter not its abbreviation (its letters in order, from the
    same first one: pct / percent, mln / million, ltd / limited) — not a misspelling, an
    inflection, an abbreviation or a swapped function word. In a short text it is a changed
    value (the company of another flash: "Sun raises crude postings" / "Phillips raises crude
    postings"); in a long one an edit (a headline's "breakneck" / "rapid"), not looked at. A
    one-for-one CJK character is another matter: a typo unless it is part of a longer change
    (:func:`_typos`)."""
    from rapidfuzz.distance import Levenshtein

    from ._tokenkernels import TOKEN_WORD

    if not token_flags(x) & token_flags(y) & TOKEN_WORD:
        return False
    if x in _FUNCTION_WORDS or y in _FUNCTION_WORDS or x.startswith(y) or y.startswith(x):
        return False
    short, long = sorted((x, y), key=len)
    if short[0] == long[0] and _in_order(short, long):
        return False
    return Levenshtein.normalized_similarity(x, y) < 0.5


def _alphabetic(*gaps: Sequence[str]) -> bool:
    """Whether the tokens of ``gaps`` are all words of letters (no CJK character, no digit)."""
    return all(t.isalpha() and not _CJK_TOKEN.fullmatch(t) for gap in gaps for t in gap)


def _in_order(short: str, long: str) -> bool:
    """Whether the letters of ``short`` occur in ``long`` in order (an abbreviation of it)."""
    rest = iter(long)
    return all(c in rest for c in short)


def _typos(gap_a: Sequence[str], gap_b: Sequence[str]) -> bool:
    """Characters replaced one for one, where each run of adjacent replaced characters is a
    single character or homophones throughout (合力 / 和利, 地制 / 得治: what a pinyin input
    method gets wrong); 安阳 / 银川 is a replaced name."""
    if len(gap_a) != len(gap_b) or not all(len(t) == 1 for t in (*gap_a, *gap_b)):
        return False
    runs: list[tuple[str, str]] = []
    run_a, run_b = "", ""
    for x, y in zip(gap_a, gap_b, strict=True):
        if x != y:
            run_a, run_b = run_a + x, run_b + y
        elif run_a:
            runs.append((run_a, run_b))
            run_a, run_b = "", ""
    if run_a:
        runs.append((run_a, run_b))
    return all(len(x) == 1 or misheard(x, y) <= len(x) // 2 for x, y in runs)


@dataclass(frozen=True)
class Verdicts:
    """Verdicts on many pairs as arrays (one row per pair): what :func:`judge_pairs` returns."""

    similarity: np.ndarray
    containment: np.ndarray
    coverage: np.ndarray
    value_changes: np.ndarray
    year_change: np.ndarray
    copy: np.ndarray

    def __len__(self) -> int:
        return len(self.similarity)

    def __getitem__(self, k: int) -> CopyVerdict:
        return CopyVerdict(
            float(self.similarity[k]),
            float(self.containment[k]),
            float(self.coverage[k]),
            int(self.value_changes[k]),
            bool(self.year_change[k]),
            bool(self.copy[k]),
        )

    def take(self, rows: np.ndarray) -> Verdicts:
        """The verdicts at ``rows`` (positions or a mask)."""
        return Verdicts(*(getattr(self, f)[rows] for f in _VERDICT_FIELDS))

    def with_copy(self, copy: np.ndarray) -> Verdicts:
        return replace(self, copy=np.asarray(copy, np.bool_))

    @classmethod
    def empty(cls) -> Verdicts:
        return cls(*(np.empty(0, t) for t in (np.float64,) * 3 + (np.int64, np.bool_, np.bool_)))


_VERDICT_FIELDS = ("similarity", "containment", "coverage", "value_changes", "year_change", "copy")


def judge(a: str, b: str, rule: CopyRule) -> CopyVerdict:
    """The verdict on two compared texts, measured on their tokens alone."""
    return judge_pairs([a, b], np.array([0]), np.array([1]), rule, prune=False)[0]


def judge_pairs(
    texts: Sequence[str],
    left: np.ndarray,
    right: np.ndarray,
    rule: CopyRule,
    *,
    token_rule: np.ndarray | None = None,
    gram_containment: np.ndarray | None = None,
    gram_coverage: np.ndarray | None = None,
    workers: int = 1,
    prune: bool = True,
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    bags: np.ndarray | None = None,
    boilerplate: Boilerplate | None = None,
) -> Verdicts:
    """The verdict on each pair of compared texts ``(texts[left[k]], texts[right[k]])``.

    Pairs under ``token_rule`` (default: the shorter text has fewer than ``short_tokens``
    tokens) must be near-identical as token sequences and may change no value; the others are
    measured by ``gram_containment``/``gram_coverage`` (rare-gram sets, given by the caller) or,
    when those are not given, by token alignment. Tokens are hashed by a compiled tokenizer;
    alignment lengths come from one vectorised rapidfuzz call (on ``workers`` threads) for the
    pairs whose bags of tokens overlap enough (a compiled bound; with ``prune`` off every pair
    is aligned, so that the similarity of a rejected pair is exact too); only pairs whose shape
    passes are tested for value changes (:func:`_value_verdicts`). A pair under the token rule
    whose shape fails is aligned again on readings (:func:`_heard_tokens`). ``tokens``: the
    :func:`token_codes` of ``texts``, and ``bags`` their hashes sorted per text, when the
    caller keeps them. ``boilerplate``: the corpus's common text, which the value test of
    pairs not under the token rule leaves out (:class:`Boilerplate`).
    """
    left = np.asarray(left, np.int64)
    right = np.asarray(right, np.int64)
    n = len(left)
    if not n:
        return Verdicts.empty()
    from ._kernels import sort_per_doc

    tokens = token_codes(texts) if tokens is None else tokens
    codes, offsets, _flags = tokens
    bags = sort_per_doc(codes, offsets) if bags is None else bags
    sizes = np.diff(offsets)
    la, lb = sizes[left].astype(np.float64), sizes[right].astype(np.float64)
    short_len, long_len = np.minimum(la, lb), np.maximum(la, lb)
    strict = short_len < rule.short_tokens if token_rule is None else np.asarray(token_rule, bool)
    bound_ok = _bag_bound(bags, offsets, left, right, short_len, long_len, rule)
    aligned = ~strict | bound_ok | (not prune)
    matched = np.zeros(n)
    align = np.flatnonzero(aligned)
    matched[align] = _matched_tokens(codes, offsets, left[align], right[align], workers)
    containment, coverage = _shares(
        matched, short_len, long_len, strict, gram_containment, gram_coverage
    )
    shape = _shape(containment, coverage, short_len, strict, rule)
    need = _heard_need(long_len, rule)
    retry = np.flatnonzero(strict & ~shape & (short_len >= need))
    if len(retry):  # typos in a short text: characters that read alike count as matched
        heard = _heard_tokens(
            tokens, bags, left[retry], right[retry], long_len[retry], need[retry], prune=prune
        )
        shape[retry] = heard >= need[retry]
        late = retry[shape[retry] & ~aligned[retry]]  # a copy's similarity is always measured
        if len(late):
            matched[late] = _matched_tokens(codes, offsets, left[late], right[late], workers)
            containment, coverage = _shares(
                matched, short_len, long_len, strict, gram_containment, gram_coverage
            )
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.nan_to_num(2 * matched / (la + lb))
    changes, hard, ok = _value_verdicts(
        texts,
        left,
        right,
        np.flatnonzero(shape),
        strict,
        rule,
        matched >= short_len,
        tokens,
        boilerplate,
        unmatched=long_len - matched if prune else None,
    )
    return Verdicts(
        np.round(sim, 6), np.round(containment, 6), np.round(coverage, 6), changes, hard, ok
    )


def _shares(
    matched: np.ndarray,
    short_len: np.ndarray,
    long_len: np.ndarray,
    strict: np.ndarray,
    gram_containment: np.ndarray | None,
    gram_coverage: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Containment (of the shorter) and coverage (of the longer) of each pair: of the aligned
    tokens, or of the rare grams where the caller gives them and the pair is not strict."""
    with np.errstate(invalid="ignore", divide="ignore"):
        containment = np.nan_to_num(matched / short_len)
        coverage = np.nan_to_num(matched / long_len)
    if gram_containment is not None and gram_coverage is not None:
        containment = np.where(strict, containment, gram_containment)
        coverage = np.where(strict, coverage, gram_coverage)
    return containment, coverage


def _shape(
    containment: np.ndarray,
    coverage: np.ndarray,
    short_len: np.ndarray,
    strict: np.ndarray | bool,
    rule: CopyRule,
) -> np.ndarray:
    """Whether each pair has the shape of a copy: near-identical as a whole, or the shorter
    text (of at least ``min_contained_tokens``) contained in the longer, covering enough of it."""
    contained = (short_len >= rule.min_contained_tokens) & (coverage >= rule.coverage)
    return (
        (coverage >= rule.short_similarity)
        | (contained & (containment >= np.where(strict, rule.short_containment, rule.containment)))
    ) & (short_len > 0)


def _heard_tokens(
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray],
    bags: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    long_len: np.ndarray,
    need: np.ndarray,
    *,
    prune: bool = True,
) -> np.ndarray:
    """Tokens each pair's longest common subsequence matches when every CJK character stands for
    its (fuzzy, toneless) reading: 星期天间 / 星期天见, 我门 / 我们 — a learner's or a pinyin
    input method's typos in a sentence too short to hide them. A pair gets 0 unless at least
    ``HEARD_FLOOR`` of the longer text's tokens are in both as written (typos that read alike
    are a minority; 伟大的诠释 / 伟大的公司 is another phrase); with ``prune``, also unless
    their bags of readings share at least ``need`` tokens (a bound of the alignment)."""
    from ._kernels import sort_per_doc
    from ._pairkernels import common_counts
    from .arrays import gather

    codes, offsets, _flags = tokens
    floor = _heard_floor(long_len)
    out = np.zeros(len(left))
    written = np.flatnonzero(
        common_counts(bags, offsets, bags[:0], offsets, left, right, floor, 0) >= 0
    )
    if not len(written):
        return out
    left, right, need = left[written], right[written], need[written]
    docs, local = np.unique(np.concatenate([left, right]), return_inverse=True)
    sub_codes, sub_off = gather(codes, offsets[docs], np.diff(offsets)[docs])
    heard = heard_codes(sub_codes)
    sub_left, sub_right = local[: len(left)], local[len(left) :]
    least = need.astype(np.int64) if prune else np.zeros(len(left), np.int64)
    bags = sort_per_doc(heard, sub_off)
    rows = np.flatnonzero(
        common_counts(bags, sub_off, bags[:0], sub_off, sub_left, sub_right, least, 0) >= 0
    )
    if len(rows):
        out[written[rows]] = _matched_tokens(heard, sub_off, sub_left[rows], sub_right[rows], 1)
    return out


def substituted(
    texts: Sequence[str],
    left: np.ndarray,
    right: np.ndarray,
    rule: CopyRule,
    *,
    coverage: float,
    short_strict: bool = True,
) -> np.ndarray:
    """Which pairs ``(texts[left[k]], texts[right[k]])`` are *versions of one passage with other
    values*: their token alignment covers at least ``coverage`` of the longer text, and it
    changes a year, date, ordinal or identifier, a name, or more than ``max_value_changes``
    values (:func:`_value_changes`) — with ``short_strict``, any value when the shorter has
    fewer than ``short_tokens`` tokens, as the copy rule allows none there (a short paragraph
    with another figure is then no copy and no version: the paragraph method counts such a
    version as a copy that changes one value). Two stories built from one template hold such paragraphs
    (the same ceremony paragraph with other leaders, the same meeting paragraph of another
    year); a copy does not. A compiled bag bound drops most pairs before any alignment."""
    left = np.asarray(left, np.int64)
    right = np.asarray(right, np.int64)
    out = np.zeros(len(left), np.bool_)
    if not len(left):
        return out
    from ._kernels import sort_per_doc
    from ._pairkernels import common_counts

    tokens = token_codes(texts)
    codes, offsets, _flags = tokens
    bags = sort_per_doc(codes, offsets)
    sizes = np.diff(offsets)
    long_len = np.maximum(sizes[left], sizes[right]).astype(np.float64)
    need = np.maximum(np.ceil(coverage * long_len - 1e-9), 1).astype(np.int64)
    maybe = common_counts(bags, offsets, bags[:0], offsets, left, right, need, 0) >= 0
    rows = np.flatnonzero(maybe & (np.minimum(sizes[left], sizes[right]) > 0))
    if not len(rows):
        return out
    matched = np.zeros(len(left))
    matched[rows] = _matched_tokens(codes, offsets, left[rows], right[rows], 1)
    rows = rows[matched[rows] >= coverage * long_len[rows] - 1e-9]
    # max_value_changes values allowed, as for copies; none in a short passage, as for copies
    strict = (np.minimum(sizes[left], sizes[right]) < rule.short_tokens) & short_strict
    within = matched >= np.minimum(sizes[left], sizes[right])
    _changes, _hard, ok = _value_verdicts(texts, left, right, rows, strict, rule, within, tokens)
    out[rows] = ~ok[rows]
    return out


def _bag_bound(
    bags: np.ndarray,
    offsets: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    short_len: np.ndarray,
    long_len: np.ndarray,
    rule: CopyRule,
) -> np.ndarray:
    """Which pairs may pass: the tokens both texts hold (as bags) bound the alignment, and most
    pairs fail on that alone (a compiled count that stops once the need is met)."""
    from ._pairkernels import common_counts

    least = _aligned_need(short_len, long_len, rule)
    return common_counts(bags, offsets, bags[:0], offsets, left, right, least, 0) >= 0


def _aligned_need(short_len: np.ndarray, long_len: np.ndarray, rule: CopyRule) -> np.ndarray:
    """Tokens a pair under the short-text rule must match to have the shape of a copy
    (:func:`_shape` on aligned tokens): near-identical, or contained and covering enough."""
    need = np.minimum(
        np.ceil(rule.short_similarity * long_len - 1e-9),
        np.where(
            short_len >= rule.min_contained_tokens,
            np.ceil(
                np.maximum(rule.coverage * long_len, rule.short_containment * short_len) - 1e-9
            ),
            np.inf,
        ),
    )
    return np.maximum(need, 1).astype(np.int64)


def _heard_need(long_len: np.ndarray, rule: CopyRule) -> np.ndarray:
    """Tokens a pair must match on readings (:func:`_heard_tokens`) to be a copy."""
    return np.maximum(np.ceil(rule.heard_similarity * long_len - 1e-9), 1)


def _heard_floor(long_len: np.ndarray) -> np.ndarray:
    """Tokens a pair must hold alike as written before it is aligned on readings."""
    return np.maximum(np.ceil(HEARD_FLOOR * long_len - 1e-9), 1).astype(np.int64)


def strict_least(short_len: np.ndarray, long_len: np.ndarray, rule: CopyRule) -> np.ndarray:
    """The fewest tokens two texts judged by the short-text rule must hold in common (as bags
    of token hashes, repeats counted) for :func:`judge_pairs` to find a copy with ``prune``:
    what the alignment needs (:func:`_bag_bound`) or, where the lengths allow the retry on
    readings, the floor of that retry. A batch drops pairs below it before it tokenizes them."""
    short_len = np.asarray(short_len, np.float64)
    long_len = np.asarray(long_len, np.float64)
    least = _aligned_need(short_len, long_len, rule)
    heard = short_len >= _heard_need(long_len, rule)
    return np.where(heard, np.minimum(least, _heard_floor(long_len)), least)


def _matched_tokens(
    codes: np.ndarray, offsets: np.ndarray, left: np.ndarray, right: np.ndarray, workers: int
) -> np.ndarray:
    """Tokens each pair's longest common subsequence matches (one vectorised rapidfuzz call
    on ``workers`` threads). Each text goes to rapidfuzz as an ``array.array`` of its token
    hashes, which rapidfuzz reads as fast as a list: a list of Python integers cost 4 times the
    memory, and its objects were the verification stage's largest allocation."""
    from rapidfuzz.distance import Indel
    from rapidfuzz.process import cpdist

    docs, local = np.unique(np.concatenate([left, right]), return_inverse=True)
    sequences = _token_arrays(codes, offsets, docs)
    sizes = np.diff(offsets)
    # pairs past ALIGN_CELLS: the distance of their alignment in stretches (token_alignment)
    huge = sizes[left] * sizes[right] > ALIGN_CELLS
    dist = np.zeros(len(left), np.float64)
    small = np.flatnonzero(~huge)
    dist[small] = cpdist(
        [sequences[k] for k in local[small].tolist()],
        [sequences[k] for k in local[len(left) + small].tolist()],
        scorer=Indel.distance,
        dtype=np.int64,
        workers=workers,
    )
    for k in np.flatnonzero(huge).tolist():
        dist[k] = _indel_distance(sequences[local[k]], sequences[local[len(left) + k]])
    return (sizes[left] + sizes[right] - dist) / 2


def _indel_distance(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Tokens inserted and deleted between ``a`` and ``b``: rapidfuzz's exact count (a longest
    common subsequence, in time ``len(a) * len(b) / 64``) up to ``ALIGN_CELLS``, past it that of
    :func:`token_alignment`' alignment in stretches (a near-copy's own)."""
    from rapidfuzz.distance import Indel

    if len(a) * len(b) <= ALIGN_CELLS:
        return Indel.distance(a, b)
    matched = sum(a1 - a0 for tag, a0, a1, _b0, _b1 in token_alignment(a, b) if tag == "equal")
    return len(a) + len(b) - 2 * matched


def _alignment_distance(a: Sequence[Any], b: Sequence[Any], opcodes: Any) -> int:
    """Tokens inserted and deleted between ``a`` and ``b`` by their alignment ``opcodes``
    (:func:`token_alignment`): :func:`_indel_distance`, read off the alignment it comes from."""
    matched = sum(a1 - a0 for tag, a0, a1, _b0, _b1 in opcodes if tag == "equal")
    return len(a) + len(b) - 2 * matched


def _token_arrays(codes: np.ndarray, offsets: np.ndarray, docs: np.ndarray) -> list[array]:
    """The token hashes of ``docs``, each text's as an ``array.array`` of unsigned 64-bit
    integers (copied from one buffer, no object per token)."""
    flat = np.ascontiguousarray(codes, np.uint64)
    raw = memoryview(flat).cast("B")
    bounds = np.stack([offsets[docs], offsets[docs + 1]], axis=1) * flat.itemsize
    out = []
    for a, b in bounds.tolist():
        sequence = array("Q")
        sequence.frombytes(raw[a:b])
        out.append(sequence)
    return out


def _value_verdicts(
    texts: Sequence[str],
    left: np.ndarray,
    right: np.ndarray,
    shaped: np.ndarray,
    strict: np.ndarray,
    rule: CopyRule,
    within: np.ndarray,
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    boilerplate: Boilerplate | None = None,
    *,
    unmatched: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Value changes, hard changes and the verdict of the pairs ``shaped`` (whose shape passed):
    each aligned in full, in canonical order, to look for substituted values, unless it is one
    of two kinds whose outcome is known without the alignment.

    Two kinds of pair need no alignment in Python:

    - ``within``: the shorter token sequence is a subsequence of the longer (its alignment
      matched every token of it). Such a pair differs only by inserted text: no gap has tokens
      on both sides, and neither text holds a number the other lacks, so no value can have
      changed.
    - given the texts' :func:`token_codes` as ``tokens``, pairs that differ in one replaced
      token (a counter at the end of a repost, a typo): decided by a compiled test
      (:func:`neardup._tokenkernels.one_replaced`) that gives the outcome of the alignment.

    Property tests check both against the full alignment. With ``boilerplate``, the pairs
    aligned in Python that are not ``strict`` leave the texts' boilerplate out of it.

    Given ``unmatched`` (per pair, the tokens of the longer text outside its longest common
    subsequence with the shorter), a pair whose numbers differ as a whole
    (:func:`_numbers_differ`) is rejected without its alignment when no passage can be long
    enough to hold numbers that do not count (:func:`_without_passages`) and no second reading
    with boilerplate can follow: a hard change, as the alignment would find, decided by a
    compiled test (:func:`_numbers_differ_unaligned`) — 112 thousand of the 177 thousand pairs
    of 20,000 templated messages ("李娜在8日参加了…第8届运动会并获得6枚奖牌") that reached
    Python. Their value-change count is left at 0 (only ``compare``, which passes no
    ``unmatched``, reports it)."""
    n = len(left)
    changes = np.zeros(n, np.int64)
    hard = np.zeros(n, np.bool_)
    ok = np.zeros(n, np.bool_)
    ok[shaped[within[shaped]]] = True
    rest = shaped[~within[shaped]]
    compiled = tokens is not None and not few_pairs(len(rest))  # else the alignment decides
    if compiled and len(rest):
        from ._tokenkernels import one_replaced

        handled, changed, dated = one_replaced(
            *tokens, left[rest], right[rest], *_MAY_MOVE, *_week_codes()
        )
        done = rest[handled]
        changes[done] = changed[handled]
        hard[done] = dated[handled]
        allowed = np.where(strict[done], 0, rule.max_value_changes)
        ok[done] = ~hard[done] & (changes[done] <= allowed)
        rest = rest[~handled]
    if compiled and unmatched is not None and len(rest):
        final = strict if boilerplate is not None else np.ones(n, np.bool_)  # no second reading
        differ = _numbers_differ_unaligned(tokens, left, right, rest, final, unmatched, rule)
        hard[rest[differ]] = True  # what the alignment would find: ok stays False
        rest = rest[~differ]
    found: dict[int, tuple[list[str], frozenset[str]]] = {}
    common: dict[int, list[bool] | None] = {}
    for k in rest.tolist():
        for i in (left[k], right[k]):
            if i not in found:
                words = tokenize(texts[i])
                found[i] = words, _numbers(words)
        i, j = _canonical(left[k], right[k], texts, found)
        (ta, na), (tb, nb) = found[i], found[j]
        tb, order, ops = _aligned_in_order(ta, tb)
        allowed = 0 if strict[k] else rule.max_value_changes
        numbers, names, hard[k] = _value_changes(ta, tb, rule, (na, nb), ordered=True, opcodes=ops)
        ok[k] = not hard[k] and names == 0 and numbers <= allowed
        reread = boilerplate is not None and not strict[k]
        if not ok[k] and reread and (names or _has_tail(ta, tb, ops)):
            for d in (i, j):  # a footer, header or advertisement? (boilerplate read when needed)
                if d not in common:
                    common[d] = boilerplate.tokens(texts[d])
            again = _with_boilerplate(
                ta, tb, rule, (na, nb), (common[i], _permuted(common[j], order)), ops
            )
            if again is not None and not again[2] and again[1] == 0 and again[0] <= allowed:
                numbers, names, hard[k], ok[k] = *again, True
        changes[k] = numbers + names
    return changes, hard, ok


def _numbers_differ_unaligned(
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray],
    left: np.ndarray,
    right: np.ndarray,
    rows: np.ndarray,
    final: np.ndarray,
    unmatched: np.ndarray,
    rule: CopyRule,
) -> np.ndarray:
    """Which pairs ``rows`` are hard changes without their alignment: ``final`` ones (no reading
    with boilerplate can follow their verdict) where no passage can hold numbers that do not
    count (:func:`_without_passages`) and the numbers differ as a whole (:func:`_numbers_differ`,
    compiled over :func:`number_keys`)."""
    from ._tokenkernels import numbers_differ

    out = np.zeros(len(rows), np.bool_)
    eligible = np.flatnonzero(final[rows] & _without_passages(unmatched[rows], rule))
    if not len(eligible):
        return out
    pairs = rows[eligible]
    docs = np.unique(np.concatenate([left[pairs], right[pairs]]))
    keys, offsets = number_keys(tokens, docs)
    out[eligible] = numbers_differ(
        keys, offsets, np.searchsorted(docs, left[pairs]), np.searchsorted(docs, right[pairs])
    )
    return out


def number_keys(
    tokens: tuple[np.ndarray, np.ndarray, np.ndarray], docs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct number tokens (:func:`_numbers`: tokens holding a digit) of each of ``docs``,
    sorted, as keys for :func:`neardup._tokenkernels.numbers_differ`: the token's hash with its
    lowest bit replaced by whether the token is a year (``TOKEN_YEAR``)."""
    from ._kernels import unique_per_doc
    from ._tokenkernels import TOKEN_DIGIT, TOKEN_YEAR

    codes, offsets, flags = tokens
    starts, lengths = offsets[docs], offsets[docs + 1] - offsets[docs]
    local = np.zeros(len(docs) + 1, np.int64)
    np.cumsum(lengths, out=local[1:])
    at = np.repeat(starts - local[:-1], lengths) + np.arange(local[-1])
    number = (flags[at] & TOKEN_DIGIT) != 0
    at = at[number]
    year = ((flags[at] & TOKEN_YEAR) != 0).astype(np.uint64)
    keys = (codes[at] & ~np.uint64(1)) | year
    return unique_per_doc(keys, _run_offsets(number, local))


def _run_offsets(mask: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Offsets of the ``True`` entries of ``mask`` per run ``offsets`` (empty runs allowed)."""
    ends = np.zeros(len(mask) + 1, np.int64)
    np.cumsum(mask, out=ends[1:])
    return ends[offsets]


def _without_passages(unmatched: np.ndarray, rule: CopyRule) -> np.ndarray:
    """Whether an alignment that leaves at most ``unmatched`` tokens of each text outside it can
    hold no moved, inserted or deleted passage longer than ``max_value_tokens`` — the passages
    whose numbers :func:`_numbers_differ` does not count. A one-sided gap holds unmatched tokens
    only; a lopsided region (:func:`_segments`) with ``w`` tokens of weak anchors and ``u`` and
    ``v`` unmatched ones on its sides is longer than twice its other side only if ``u > 2v +
    w``, so its length ``u + w`` stays under ``2u``. Putting moved passages back in order
    (:func:`_put_in_order`) only ever matches more."""
    return 2 * unmatched <= rule.max_value_tokens


def _may_move() -> tuple[int, int]:
    """The token counts ``[lo, hi)`` at which :func:`_put_in_order` may move passages of a pair that
    differs in one replaced token: from ``MOVE_MIN`` until its Indel distance, 2, falls below
    ``2 * MOVE_GAIN`` of the text."""
    n = MOVE_MIN
    while 2 * MOVE_GAIN * n <= 2:
        n += 1
    return MOVE_MIN, n


_MAY_MOVE = _may_move()


@lru_cache(maxsize=1)
def _week_codes() -> tuple[np.ndarray, np.ndarray]:
    """The token codes of 期, 拜, 周 and of the days after them (:func:`_day_replaced`), for
    :func:`neardup._tokenkernels.one_replaced`."""
    week = token_codes(sorted(_CJK_WEEK))[0]
    days = token_codes(sorted(_CJK_WEEKDAYS))[0]
    return week, days
