"""neardup: near-duplicate text detection at scale, Chinese first and English too.

>>> import neardup
>>> result = neardup.dedup_texts(["新闻联播：今天天气晴。", "新闻联播:今天天气晴。", "完全不同"])
>>> result.clusters.representative.tolist()
[0, 0, 2]
"""

from __future__ import annotations

__version__ = "0.1.0"

from .cluster import Clusters, cluster_pairs
from .config import FINGERPRINT_VERSION, FingerprintConfig, HammingConfig, NormalizeConfig
from .dedup import DedupResult, dedup_texts
from .errors import (
    ConfigError,
    IncompatibleIndexError,
    InputError,
    MissingDependencyError,
    NeardupError,
    StoreError,
)
from .index.brute import BruteForceIndex, brute_force_pairs
from .index.permuted import PermutedIndex, hamming_edges, hamming_pairs
from .methods import create as create_method
from .normalize import normalize, normalize_many
from .pairs import PairSet
from .simhash import Fingerprinter, feature_hash, hamming_distance, hamming_distances


def __getattr__(name: str) -> object:
    """``dedup_frame`` on first use: it imports pyarrow, which a run over files never needs
    (25 ms of every command's start)."""
    if name == "dedup_frame":
        from .frames import dedup_frame

        return dedup_frame
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FINGERPRINT_VERSION",
    "BruteForceIndex",
    "Clusters",
    "ConfigError",
    "DedupResult",
    "FingerprintConfig",
    "Fingerprinter",
    "HammingConfig",
    "IncompatibleIndexError",
    "InputError",
    "MissingDependencyError",
    "NeardupError",
    "NormalizeConfig",
    "PairSet",
    "PermutedIndex",
    "StoreError",
    "__version__",
    "brute_force_pairs",
    "cluster_pairs",
    "create_method",
    "dedup_frame",
    "dedup_texts",
    "feature_hash",
    "hamming_distance",
    "hamming_distances",
    "hamming_edges",
    "hamming_pairs",
    "normalize",
    "normalize_many",
]
