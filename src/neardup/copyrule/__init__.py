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

from .align import token_alignment
from .boilerplate import Boilerplate
from .rule import RULE_VERSION, CopyRule, CopyVerdict, Verdicts
from .tokens import CJK_RANGES, number_keys, token_codes, token_flags, tokenize
from .verdicts import TextMemo, judge, judge_pairs, least_share, strict_least, substituted

__all__ = [
    "CJK_RANGES",
    "RULE_VERSION",
    "Boilerplate",
    "CopyRule",
    "CopyVerdict",
    "TextMemo",
    "Verdicts",
    "judge",
    "judge_pairs",
    "least_share",
    "number_keys",
    "strict_least",
    "substituted",
    "token_alignment",
    "token_codes",
    "token_flags",
    "tokenize",
]
