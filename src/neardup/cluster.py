"""Clusters from pairs: iterative union-find with deterministic ids and representatives.

Rules (stable across runs, platforms and surfaces):

- the root of every union is the smaller document position, so the connected components do not
  depend on the order in which pairs arrive;
- ``cluster_id`` numbers the clusters 0, 1, 2, ... in order of their first member's position in the
  input (so the first document is always in cluster 0);
- the representative (the document that is kept) is, with ``keep="first"``, the member that
  comes first in the input; with ``keep="longest"``, the member with the longest text, ties going
  to the one that comes first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from .errors import ConfigError

KEEP_RULES = ("first", "longest")


@numba.njit(cache=True, nogil=True)
def _find(parent: np.ndarray, x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving
        x = parent[x]
    return x


@numba.njit(cache=True, nogil=True)
def _union_all(parent: np.ndarray, left: np.ndarray, right: np.ndarray) -> None:
    for i in range(left.shape[0]):
        a = _find(parent, left[i])
        b = _find(parent, right[i])
        if a == b:
            continue
        if a < b:
            parent[b] = a
        else:
            parent[a] = b


@numba.njit(cache=True, nogil=True)
def _roots(parent: np.ndarray) -> np.ndarray:
    out = np.empty(parent.shape[0], np.int64)
    for i in range(parent.shape[0]):
        out[i] = _find(parent, i)
    return out


@dataclass(frozen=True)
class Clusters:
    """Cluster membership of ``n`` documents (arrays indexed by document position)."""

    cluster_id: np.ndarray  # int64, 0..n_clusters-1, numbered by first member
    representative: np.ndarray  # int64, position of the kept member of each document's cluster

    def __len__(self) -> int:
        return len(self.cluster_id)

    @property
    def n_clusters(self) -> int:
        return int(self.cluster_id.max()) + 1 if len(self.cluster_id) else 0

    @property
    def is_representative(self) -> np.ndarray:
        return self.representative == np.arange(len(self.representative))

    @property
    def n_duplicates(self) -> int:
        return int(len(self) - self.is_representative.sum())

    def groups(self) -> list[list[int]]:
        """Member positions of every cluster with more than one member, in cluster-id order."""
        order = np.argsort(self.cluster_id, kind="stable")
        ids = self.cluster_id[order]
        cuts = np.flatnonzero(np.diff(ids)) + 1
        return [g.tolist() for g in np.split(order, cuts) if len(g) > 1]


def connected_roots(n: int, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """For each of ``n`` positions, the smallest position of its connected component."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    left = np.ascontiguousarray(left, dtype=np.int64)
    right = np.ascontiguousarray(right, dtype=np.int64)
    if len(left) != len(right):
        raise ValueError("left and right must have the same length")
    if len(left) and (min(left.min(), right.min()) < 0 or max(left.max(), right.max()) >= n):
        raise ValueError(f"pair positions must lie in [0, {n})")
    parent = np.arange(n, dtype=np.int64)
    _union_all(parent, left, right)
    return _roots(parent)


def cluster_pairs(
    n: int,
    left: np.ndarray,
    right: np.ndarray,
    *,
    keep: str = "first",
    lengths: np.ndarray | None = None,
) -> Clusters:
    """Connected components of the pair graph over ``n`` documents, with representatives.

    >>> c = cluster_pairs(5, np.array([3, 1]), np.array([4, 3]))
    >>> c.cluster_id.tolist(), c.representative.tolist()
    ([0, 1, 2, 1, 1], [0, 1, 2, 1, 1])
    """
    if keep not in KEEP_RULES:
        raise ConfigError(f"keep={keep!r} is not supported; choose one of {', '.join(KEEP_RULES)}")
    roots = connected_roots(n, left, right)
    # roots are the smallest member, so sorting unique roots numbers clusters by first member
    _, cluster_id = np.unique(roots, return_inverse=True)
    if keep == "first":
        representative = roots
    else:
        if lengths is None or len(lengths) != n:
            raise ConfigError("keep='longest' needs the text length of every document")
        lengths = np.asarray(lengths, np.int64)
        # per cluster: longest first, then earliest position
        order = np.lexsort((np.arange(n), -lengths, cluster_id))
        sorted_cid = cluster_id[order]
        starts = np.flatnonzero(np.r_[True, sorted_cid[1:] != sorted_cid[:-1]])
        representative = order[starts][cluster_id]
    return Clusters(cluster_id.astype(np.int64), representative.astype(np.int64))
