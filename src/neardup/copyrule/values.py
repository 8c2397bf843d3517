"""What differs between two aligned texts: the substitutions between aligned runs and the moved,
inserted or deleted text (:func:`_segments`), read as changed values — numbers, dates, names,
days, words — or as typing errors (:func:`_value_changes`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..readings import misheard
from .align import _put_in_order, token_alignment
from .boilerplate import _Added, _added_boilerplate, _Common, _Footer
from .rule import MIN_ANCHOR, CopyRule
from .tokens import (
    _CJK_TOKEN,
    _CJK_WEEK,
    _CJK_WEEKDAYS,
    _DIGIT,
    _FUNCTION_WORDS,
    _MONTHS,
    _YEAR,
    _numbers,
    character_codes,
    token_flags,
)


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
    where such boilerplate faces text of the other's own (:func:`_inserted_block`), and a
    region that goes on through a weak anchor into the last gap as a cut (:func:`_cut_through`).
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
        at_end = k > 0 and end + 2 == last - 1 == len(runs) - 1  # no footer taken off
        if at_end and _cut_through(runs, k, end, a, b, max_value_tokens):
            end += 2  # a cut text's lost tail facing a mark the copy appended: 管理制定… / 管未完
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


# What a copy appends where it was cut short, as compared text (no punctuation, lower case, the
# tokens joined): （未完）, 阅读全文, [Read more]. A closed list of marks that are no ending of a
# sentence (更多, 详情, 全文, 待续, "more" are: 与去年相比更多 / 与去年相比少了许多 stay apart).
CUT_MARKS = frozenset(
    {
        "未完", "未完待续", "阅读全文", "展开全文", "查看全文", "阅读原文", "查看原文",
        "点击查看", "查看详情", "查看更多", "readmore", "tobecontinued",
    }
)  # fmt: skip


def _cut_through(
    runs: list[list], k: int, end: int, a: Sequence[str], b: Sequence[str], max_value_tokens: int
) -> bool:
    """Whether the region of gaps ``k..end`` goes on, through a weak anchor, into the
    alignment's last gap (at the end of both texts) as one cut: joined, one side is longer than
    ``max_value_tokens`` and more than twice the other (the lost tail), and the other is a mark
    of :data:`CUT_MARKS` and nothing else, through which the alignment threads a character of
    the lost tail (运营管未完 / 运营管理制定和完善…: the 完 of 完善). Any other ending stays text:
    a name substituted just before where the shorter text ends still counts."""
    weak, final = runs[end + 1], runs[end + 2]
    if weak[2] - weak[1] >= MIN_ANCHOR or final[0]:
        return False
    size_a, size_b = final[2] - runs[k][1], final[4] - runs[k][3]
    small, large = sorted((size_a, size_b))
    if not (large > 2 * small and large > max_value_tokens):
        return False
    short = b[runs[k][3] : final[4]] if size_b < size_a else a[runs[k][1] : final[2]]
    return "".join(short) in CUT_MARKS


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
    subject of a flash: "Union Pacific / Murphy raises crude oil postings"); a character put
    in place of one that excludes it, its opposite or another country, colour or season
    (:func:`_exclusive`: 真 / 假, 法文版 / 俄文版), anywhere; and a negation one text adds
    inside, holding more of them (:func:`_negated`: 他是第一个 / 他不是第一个). Tokens of
    boilerplate one text added (:class:`_Added`, marked by
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
            changes += interior or not _end_mark(gap_a, gap_b, before)
            hard = hard or bool(_dated(gap_a, before, after_a) | _dated(gap_b, before, after_b))
        elif _day_replaced(gap_a, gap_b, before):
            hard = True
        elif _exclusive(gap_a, gap_b):
            names += 1  # 希望是真的 / 希望是假的, 法文版 / 俄文版: another statement or name
        elif _contracted(gap_a, gap_b):
            names += 1  # it would raise / it wouldn't raise: another statement
        elif (interior or (short and after_a is not None and _alphabetic(gap_a, gap_b))) and (
            2 <= max(len(gap_a), len(gap_b)) <= rule.max_value_tokens
        ):
            names += not _typos(gap_a, gap_b)  # a name, place or title word replaced
        elif _figure_replaced(gap_a, gap_b, nums_a, nums_b, rule):
            changes += 1  # 为什么不是10000 / 为什么不是我: a figure put in place of words
        elif len(gap_a) == len(gap_b) == 1 and short:  # sun / phillips raises crude postings
            changes += _replaced_word(gap_a[0], gap_b[0])
    if any(_negated(*gap) for gap in moved) and _negations(a) != _negations(b):
        names += 1  # 他是第一个 / 他不是第一个 (看不懂 / 没看懂: one negation each, moved)
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


def _end_mark(gap_a: Sequence[str], gap_b: Sequence[str], before: str | None) -> bool:
    """Whether figures that differ in a gap at an end of the alignment (``before``: the token
    before it, None at the start) are what a copy does there rather than a changed value. A
    figure is changed in place when the two sides hold the same tokens but for their figures
    (…at 4.75% / …at 5.25%, 90岁生日快乐 / 15岁生日快乐, 增长5% / 增长5.3% — the compared text
    drops the point and the per cent sign); anything else there is a cut text (…增长5.3%，好于
    预期 / …增长 2: a repost cut short, with its counter). Nor is a counter a repost adds at the
    end, one number of at most ``COUNTER_DIGITS`` digits after text, not after another number
    (谢谢1 / 谢谢2, 路过！7 / 路过！0; not 今日猪价 05 12 / 05 09)."""
    words_a = [t for t in gap_a if not _DIGIT.search(t)]
    words_b = [t for t in gap_b if not _DIGIT.search(t)]
    if words_a != words_b:
        return True  # not replaced in place: cut, or cut and a counter added
    counter = (
        before is not None
        and len(gap_a) == len(gap_b) == 1
        and all(_is_counter(t) for t in (*gap_a, *gap_b))
        and not _DIGIT.search(before)
    )
    return counter


# digits of a counter a repost adds at the end (谢谢1 / 谢谢2, 路过7 / 路过0). One: the compared
# text drops a decimal point and a per cent sign, so 增长5.3% / 增长4.5% end in 53 / 45 (a
# one-digit figure there, 增长5% / 增长6%, still reads as a counter)
COUNTER_DIGITS = 1
# words written in digits, which a repost adds or writes where another writes them in
# characters (丧心病狂啊 / 丧心病狂2333, 我520你 / 我爱你, 886 / 拜拜): laughter (233…), praise
# (666…), love (520, 521, 1314), crying (555…), goodbye (88, 886) — a closed list, not figures
_NUMBER_WORDS = re.compile(r"23{2,}|6{3,}|5{3,}|52[01]|1314|88|886")
# the number words of at most 4 digits: those the compiled one-token test reads (5 digits and
# more make an identifier, which it leaves to the alignment)
_NUMBER_WORD_TOKENS = (
    "233",
    "2333",
    "666",
    "6666",
    "555",
    "5555",
    "520",
    "521",
    "1314",
    "88",
    "886",
)


def _is_counter(token: str) -> bool:
    """A repost's counter: a number of at most ``COUNTER_DIGITS`` (ASCII) digits."""
    return token.isascii() and token.isdigit() and len(token) <= COUNTER_DIGITS


def _number_word(token: str) -> bool:
    """A word written in digits (:data:`_NUMBER_WORDS`), or a counter: no figure facing a word."""
    return _is_counter(token) or (token.isascii() and _NUMBER_WORDS.fullmatch(token) is not None)


def _figure_replaced(
    gap_a: Sequence[str],
    gap_b: Sequence[str],
    nums_a: Sequence[str],
    nums_b: Sequence[str],
    rule: CopyRule,
) -> bool:
    """Whether a gap puts a figure in place of words, one for one (为什么不是10000 /
    为什么不是我, 还差200 / 还差一点): a value changed, where a gap of other words or two
    figures is read by the other tests. Only a figure that cannot be a repost's counter or
    a word written in digits (:func:`_number_word`: 丧心病狂啊 / 丧心病狂2333 stay copies), of digits only
    (0speculation / speculation: a stray digit), and not facing Chinese numerals the text
    left unread (10个 / 十个: 十 alone is read as written)."""
    if bool(nums_a) == bool(nums_b) or len(gap_a) != len(gap_b):
        return False
    if len(gap_a) > rule.max_value_tokens:
        return False
    figures, words = (nums_a, gap_b) if nums_a else (nums_b, gap_a)
    if not all(t.isdigit() for t in figures):
        return False  # letters and digits (0speculation): a stray digit, not a figure
    if all(_number_word(t) for t in figures):
        return False  # a counter or a word written in digits (2333, 520)
    return not any(t in NUMERAL_CHARACTERS for t in words)


# Chinese numerals a compared text may hold as written (the tokenizer reads one only in 第X,
# X次 ...: :data:`~neardup.copyrule.tokens._CN_NUMBER`): a figure facing one is the same number
# written otherwise, not a value put in place of words
NUMERAL_CHARACTERS = frozenset("〇零一二两三四五六七八九十百千万亿壹贰叁肆伍陆柒捌玖拾佰仟廿卅")


@lru_cache(maxsize=1)
def numeral_codes() -> np.ndarray:
    """The token codes of :data:`NUMERAL_CHARACTERS`, sorted: the compiled one-token test
    reads a figure facing one of them as no change, as :func:`_figure_replaced` does."""
    return character_codes(sorted(NUMERAL_CHARACTERS))


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


def _dated(gap: Sequence[str], before: str | None, after: str | None) -> set[str]:
    """The years, dates, ordinals and identifiers (5 or more characters) in a gap; a number is
    read with the tokens around it (:func:`token_flags`)."""
    from .._tokenkernels import TOKEN_BEFORE_DATE, TOKEN_DATED, TOKEN_DIGIT, TOKEN_UNIT

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


_WEEKDAY_SHORT = {
    "tue": "tuesday",
    "tues": "tuesday",
    "thu": "thursday",
    "thur": "thursday",
    "thurs": "thursday",
    "fri": "friday",
}


_FULL_MONTHS = sorted(m for m in _MONTHS if len(m) > 4 or m in ("may", "june", "july"))


_CALENDAR = {
    **{day: day for day in _WEEKDAYS},
    **_WEEKDAY_SHORT,
    **{m: next(f for f in _FULL_MONTHS if f.startswith(m)) for m in _MONTHS},
}


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


# Characters whose opposite put in their place makes another statement (希望是真的 / 希望是假的,
# 男神 / 女神, 早安 / 晚安, 可爱 / 可恨, 喜剧 / 悲剧, 左下角 / 右下角), not a typing error:
# common single-character antonyms (反义词) of everyday Chinese, written down by hand, not
# drawn from any corpus. Pairs that read or look alike (买 / 卖) are left out where they are
# used (:func:`_exclusive_pairs`): an input method swaps those.
_OPPOSITE_PAIRS = (
    "真假 真伪 男女 好坏 大小 多少 上下 左右 前后 先后 东西 南北 里外 内外 进出 开关 高低 "
    "长短 新旧 早晚 胜负 赢输 增减 涨跌 升降 快慢 冷热 轻重 远近 深浅 粗细 胖瘦 强弱 美丑 "
    "对错 爱恨 哭笑 喜悲 生死 老少 古今 正反 黑白 明暗 干湿 苦甜 贫富 穷富 成败 得失 收支 "
    "借还 问答 始终 首尾 头尾 加减 褒贬 宽窄 松紧 厚薄 软硬 动静 忙闲 饱饿 香臭 亮暗 晴阴 "
    "主客 攻守 敌友 公私 起落 存亡 去留 离合 聚散 同异 有无 买卖"
)
# Closed classes of names whose members exclude each other: one put in place of another names
# another thing — a replaced name, not a typo. Countries named by one character (中美关系,
# 法文版, 中国队, 学英语: the usual ones of Chinese news), colours (红色预警 / 橙色预警, 绿色的杯子
# / 蓝色的杯子), seasons (春季 / 秋季) and the points of the compass (东门 / 南门), written down
# by hand.
_EXCLUSIVE_CLASSES = (
    "中美英法德俄日韩朝意印澳越泰菲埃荷葡墨缅柬匈捷",
    "红橙黄绿青蓝紫黑白灰粉棕金银",
    "春夏秋冬",
    "东南西北",
    "我你他她",  # persons (说的就是我 / 说的就是你); 他 / 她 read alike: an input method's swap
)


@lru_cache(maxsize=1)
def _exclusive_pairs() -> frozenset[tuple[str, str]]:
    """Characters that exclude each other, in both orders: the pairs of
    :data:`_OPPOSITE_PAIRS` and any two of one of :data:`_EXCLUSIVE_CLASSES`, without those
    that share a reading (fuzzy, toneless) or a shape (:func:`neardup.readings.misheard`)."""
    found: set[tuple[str, str]] = set()
    for x, y in _listed_pairs():
        if misheard(x, y):
            found |= {(x, y), (y, x)}
    return frozenset(found)


def _listed_pairs() -> list[tuple[str, str]]:
    """The pairs of :data:`_OPPOSITE_PAIRS` and of each of :data:`_EXCLUSIVE_CLASSES`, as
    listed (single characters; :func:`_exclusive_pairs` drops those that read alike)."""
    pairs = [(p[0], p[1]) for p in _OPPOSITE_PAIRS.split()]
    return pairs + [(x, y) for names in _EXCLUSIVE_CLASSES for x in names for y in names if x < y]


def _exclusive(gap_a: Sequence[str], gap_b: Sequence[str]) -> bool:
    """A character put in place of one that excludes it (:func:`_exclusive_pairs`: its
    opposite, another country, colour, season or point of the compass), one for one: another
    statement or another name, in a short text or a long one, where any other character
    replaced one for one reads as a typo (:func:`_typos`)."""
    if len(gap_a) != len(gap_b):
        return False
    # only single characters are listed: other gaps never load the readings the list needs
    replaced = [(x, y) for x, y in zip(gap_a, gap_b, strict=True) if len(x) == len(y) == 1]
    if not replaced:
        return False
    exclusive = _exclusive_pairs()
    return any(pair in exclusive for pair in replaced)


# Words of negation: one inserted or deleted inside a text, which then holds more of them than
# the other, reverses what it says (他是第一个 / 他不是第一个, 太真实了 / 太不真实了, 身残智残 /
# 身残智不残, 国务院同意了 / 国务院未同意), where any other character a copy drops or adds is an
# edit. 不, 没 and 未 (alone: 未来 and 未必 are two characters); 别, 无 and 非 are as often parts
# of other words (特别, 无论, 非常). 没有 is the one negation of two characters (今天发布了 /
# 今天没有发布); one may follow an adverb (并未, 尚未, 还没有: :data:`NEGATION_ADVERBS`), but a
# gap that starts with one (不少, 不过, 不断) is another word.
# English: not, never, no as words (n't is read from the compared word: :func:`_contracted`).
NEGATIONS = frozenset(["不", "没", "未", "not", "never", "no"])
NEGATION_WORDS = frozenset([*NEGATIONS, "没有"])
# ... unless the gap is part of another word with the token that stays beside it: 有没有 (a
# question: 有什么 / 有没有什么), 未来 (the future: 与来生 / 与未来), 未免 (rather)
NOT_NEGATIONS = frozenset([("没有", "有"), ("未", "来"), ("未", "免")])
# Adverbs a negation added with them keeps (并未, 尚未, 还没有, 从来没有): a closed class, where
# a gap that merely ends with 不 or 没 is as often another word (要不, 何不, 不得不, 出没, 沉没).
NEGATION_ADVERBS = frozenset(
    [
        "并",
        "尚",
        "从",
        "还",
        "也",
        "都",
        "仍",
        "再",
        "绝",
        "决",
        "毫",
        "永",
        "已",
        "亦",
        "就",
        "又",
        "却",
        "均",
        "全",
        "根本",
        "一直",
        "始终",
        "从来",
        "仍然",
        "依然",
        "至今",
        "迄今",
        "完全",
        "永远",
        "绝对",
        "毫不",
    ]
)


def _negations(tokens: Sequence[str]) -> int:
    """How many tokens of ``tokens`` are negations (:data:`NEGATIONS`)."""
    return sum(t in NEGATIONS for t in tokens)


def _negated(
    gap_a: Sequence[str], gap_b: Sequence[str], before: str | None, after_a: str | None, *_: Any
) -> bool:
    """A gap that one text has and the other lacks, inside both texts (a 不 at the end is a
    question's particle, 好不, or a cut): a negation (:data:`NEGATION_WORDS`), alone or after
    an adverb of :data:`NEGATION_ADVERBS` (并不, 尚未, 从未, 还没有, 从来没有) — unless it makes
    another word with the token beside it (:data:`NOT_NEGATIONS`), or the alignment could as
    well have put the gap one token earlier."""
    if (gap_a and gap_b) or before is None or after_a is None:
        return False
    gap = list(gap_a or gap_b)
    word = _ending_negation(gap)
    if len(gap) > 4 or word is None:
        return False
    if before == gap[-1] and _ending_negation([before, *gap[:-1]]) is None:
        return False  # as well aligned before ``before``: 不 + 可能不 + 对 is 不可能 + 不对
    rest = gap[: len(gap) - len(word)]
    if rest and "".join(rest) not in NEGATION_ADVERBS:
        return False  # another word ending in one: 要不, 何不, 不得不, 出没, 沉没
    ahead = rest[-1] if rest else before  # the token before the negation word
    # after_a is the token after the gap in both texts (one of them has no gap)
    if word == "no" and _DIGIT.search(after_a):
        return False  # No. 10 Downing Street, Resolution No. 2334: a number sign
    return (word, ahead if word == "没有" else after_a) not in NOT_NEGATIONS


def _contracted(gap_a: Sequence[str], gap_b: Sequence[str]) -> bool:
    """One English auxiliary replaced by its negation contracted, as the compared text writes
    it without the apostrophe (:data:`CONTRACTED`): would / wouldnt, is / isnt, can / cant."""
    if len(gap_a) != 1 or len(gap_b) != 1:
        return False
    return frozenset((gap_a[0], gap_b[0])) in _CONTRACTED_PAIRS


# English auxiliaries and their negations contracted with n't (apostrophe dropped): a closed
# list, since any word with "nt" added is not one (parent / pare, event / eve, agent / age)
CONTRACTED = {
    **{
        w: w + "nt"
        for w in [
            "is",
            "are",
            "was",
            "were",
            "do",
            "does",
            "did",
            "has",
            "have",
            "had",
            "could",
            "would",
            "should",
            "must",
            "need",
            "might",
        ]
    },
    "can": "cant",
    "will": "wont",
    "shall": "shant",
}
_CONTRACTED_PAIRS = frozenset(
    [frozenset(p) for p in CONTRACTED.items()] + [frozenset(("can", "cannot"))]
)


def _ending_negation(gap: Sequence[str]) -> str | None:
    """The negation word (:data:`NEGATION_WORDS`) a gap ends with, if any."""
    word = "没有" if list(gap[-2:]) == ["没", "有"] else gap[-1]
    return word if word in NEGATION_WORDS else None


@lru_cache(maxsize=1)
def negation_codes() -> np.ndarray:
    """The token codes of :data:`NEGATIONS`, sorted: a batch aligns a pair whose shorter text is
    a subsequence of the longer only when the two hold these in different numbers."""
    return character_codes(sorted(NEGATIONS))


@lru_cache(maxsize=1)
def counter_codes() -> np.ndarray:
    """The token codes of the numbers of at most ``COUNTER_DIGITS`` digits, sorted: the
    compiled one-token test reads two of them at the end after text as a repost's counter, as
    :func:`_end_mark` does, and one facing a word as no figure (:func:`_figure_replaced`)."""
    return character_codes([str(n) for n in range(10**COUNTER_DIGITS)])


@lru_cache(maxsize=1)
def number_word_codes() -> np.ndarray:
    """The token codes of :data:`_NUMBER_WORD_TOKENS`, sorted: the compiled one-token test
    reads one facing a word as no figure, as :func:`_figure_replaced` does."""
    return character_codes(list(_NUMBER_WORD_TOKENS))


@lru_cache(maxsize=1)
def exclusive_codes() -> np.ndarray:
    """The token codes of the characters of :func:`_listed_pairs` and of the words of
    :data:`CONTRACTED`, sorted: the compiled test of a pair that differs in one token
    (:func:`neardup._tokenkernels.one_replaced`) leaves a pair of two of them to
    :func:`_value_changes`, which reads the pair exactly (:func:`_exclusive`,
    :func:`_contracted`). Listed, not :func:`_exclusive_pairs`: those four more characters
    (买卖, 宽窄 read alike) cost less than loading the readings in every batch (0.06 s)."""
    listed = {c for pair in _listed_pairs() for c in pair}
    contracted = {w for pair in _CONTRACTED_PAIRS for w in pair}  # would / wouldnt: read too
    return character_codes(sorted(listed | contracted))


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

    from .._tokenkernels import TOKEN_WORD

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
