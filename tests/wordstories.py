"""English-like stories whose letter grams are common and word runs rare (test fixtures)."""

from __future__ import annotations

import random

# forty words: every letter 5-gram of text made of them is held by many paragraphs (as in a
# newswire corpus), while runs of three of them are rare
_WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when"
)
VOCABULARY = _WORDS.split()


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(10, 18))).capitalize() + "."


def story(rng: random.Random, paragraphs: int = 4) -> str:
    return "\n\n".join(" ".join(sentence(rng) for _ in range(3)) for _ in range(paragraphs))


def corpus(seed: int = 5, size: int = 400) -> tuple[list[str], int]:
    """``size`` stories and, last, a repost of story 7 with a commentary paragraph before it;
    returns the texts and the reposted story's position."""
    rng = random.Random(seed)
    docs = [story(rng) for _ in range(size)]
    repost = "Commentary: " + sentence(rng) + " " + sentence(rng) + "\n\n" + docs[7]
    return [*docs, repost], 7
