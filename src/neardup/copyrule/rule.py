"""The copy rule's options and verdicts: :class:`CopyRule` (thresholds, validated),
:class:`CopyVerdict` and :class:`Verdicts` (one pair, many pairs), and ``RULE_VERSION``, stored
beside what the rule decided."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from ..errors import ConfigError

RULE_VERSION = "neardup-copy-26"  # 4: moved text; 5: moved paragraphs; 6: typo_tokens; 7: passages; 8: lengthened names; 9: shared numbers; 10: look-alikes, fuzzy pinyin; 11: heard alike; 12: shipped readings, every reading of a character; 13: (withdrawn before release); 14: footers after a cut; 15: boilerplate facing text of its own; 16: one word replaced by another; 17: codes of letters and digits, days and months replaced; 18: a character put in place of its opposite or of another country, colour or season, a negation added inside; 19: 未 and 没有 added inside are negations, also after an adverb of a closed list (并未, 还没有); 20: a cut text's lost tail facing a mark the copy appended (（未完）) through a weak anchor; 21: a typo that makes or unmakes a Chinese numeral (一侧 / 一次, 十一个 / 是一个) read as written in its gap; 22: a figure changed at an end of the text is a changed value unless a cut or a repost's counter explains it (…at 4.75% / 5.25%), and (paragraph method) every Unicode line break splits paragraphs; 23: English not, never, no added inside and a verb contracted with n't (would / wouldnt) are negations; 24: a dash between two words (2003—as) is a word break in the compared text; 25: (review of 22, 23) an end figure changes only in place (the gap's other tokens alike), English negations of a closed list of auxiliaries (is / isnt), not No. before a number; 26: a figure put in place of words (为什么不是10000 / 我), and one person put in place of another (说的就是我 / 你)


MIN_ANCHOR = 3  # tokens: a shorter aligned run between two gaps does not anchor them


MOVE_MIN = 8  # tokens: a shorter shared run is not recognised as a moved passage


HEARD_FLOOR = 0.5  # share of a short text's tokens that must be written alike to read it aloud


MOVE_GAIN = 0.1  # share of the shorter text that putting moved passages back must match more


BOILER_RUN = 3  # common grams in a row that make text boilerplate (see Boilerplate)


@dataclass(frozen=True, kw_only=True)
class CopyRule:
    """Thresholds of the copy rule (see :mod:`neardup.copyrule`)."""

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
