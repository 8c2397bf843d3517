"""A dedup run in the library: read, decide, write the outputs and the summary (what
``neardup dedup`` runs)."""

from .run import DedupOptions, run_dedup

__all__ = ["DedupOptions", "run_dedup"]
