"""neardup: near-duplicate text detection at scale (SimHash, short-text m-grams, paragraph fingerprints)."""

from __future__ import annotations

__version__ = "0.1.0"
