"""Options of the online detector shared by `neardup serve` and `neardup index`."""

from __future__ import annotations

import argparse

from ..online import DETECTOR_METHODS, DetectorConfig

DEFAULT_DB = "sqlite:///neardup.db"


def add_detector_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        default=DEFAULT_DB,
        help=f"store URL: sqlite:///file.db, postgresql://..., memory:// (default {DEFAULT_DB})",
    )
    p.add_argument(
        "--method",
        choices=DETECTOR_METHODS,
        default="simhash",
        help="simhash (long texts), ngram (short texts), auto (by length) or paragraph (DRPKP)",
    )
    p.add_argument("--max-distance", type=int, default=3, help="simhash: largest Hamming distance")
    p.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        help="ngram/auto: Jaccard needed; paragraph: share of paragraphs",
    )
    p.add_argument(
        "--store-duplicates",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="store documents found to be duplicates (default: yes)",
    )


def detector_config(args: argparse.Namespace) -> DetectorConfig:
    return DetectorConfig(
        method=args.method,
        max_distance=args.max_distance,
        threshold=args.threshold,
        store_duplicates=args.store_duplicates,
    )


def open_detector(args: argparse.Namespace):
    from ..online import Detector
    from ..store import open_store

    return Detector(store=open_store(args.db), config=detector_config(args))
