"""Clusters from verified pairs: the representative rule every surface shares.

Two rules (``CLUSTER_RULES``):

- ``greedy`` (the default; reference 000's "result set"): documents are taken in order — input
  order for ``keep="first"``, longest text first (then input order) for ``keep="longest"``. A
  document is compared only with documents already **kept**; it becomes a duplicate of the kept
  document it matches best (highest closeness, ties to the earliest), otherwise it is kept. So
  clusters do not chain: every duplicate was verified against its own representative. Inserting a
  corpus document by document through the online detector gives the same answer (``keep="first"``).
  ``keep="container"`` (batch only, ``paragraph``): every document is taken after the documents
  its evidence says contain it, so a repost with commentary, a digest or the source of an
  excerpt is kept and what it contains is removed, whatever the input order — outside the
  online rule, which keeps the earlier document.
- ``components``: connected components of the pair graph (iterative union-find); the
  representative is the first (or longest) member. A batch-only option: A~B and B~C put A and C
  together although nothing compared them.

Either way ``cluster_id`` numbers the clusters 0, 1, 2, ... in order of their first member's
position in the input (so the first document is always in cluster 0).

Methods report identical documents compactly (a *unit*: every copy linked to the first, pairs only
between the units' first members); :func:`greedy_representatives` expands that implicitly, so the
answer equals the one over every pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from .errors import ConfigError, InputError

KEEP_RULES = ("first", "longest", "container")
#: ``container`` follows containment evidence of one local run: not on Spark, not online.
DISTRIBUTED_KEEP_RULES = ("first", "longest")
CONTAINER_BATCH_ONLY = (
    "keep container is a batch choice of `neardup dedup` (--method paragraph): it orders one "
    "local run by the containment its pairs report; Spark keeps the first or the longest "
    "document, the online detector (index, serve) the first"
)
CLUSTER_RULES = ("greedy", "components")
MAX_LEVELS = 64  # containment depth considered by keep="container"


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


@numba.njit(cache=True, nogil=True)
def _greedy(order, rank, unit, adj_off, adj_nbr, adj_score, rep, rep_score, rep_pair, adj_pair):
    n = order.shape[0]
    kept = np.zeros(n, np.bool_)
    leader = np.full(n, -1, np.int64)  # per unit: its member that comes first in ``order``
    for i in range(n):
        d = order[i]
        u = unit[d]
        best = -1
        best_score = -1.0
        best_pair = -1
        if leader[u] < 0:
            leader[u] = d
        elif kept[leader[u]]:
            best = leader[u]
            best_score = 1.0
        for k in range(adj_off[u], adj_off[u + 1]):
            c = leader[adj_nbr[k]]
            if c < 0 or not kept[c]:
                continue
            s = adj_score[k]
            if s > best_score or (s == best_score and rank[c] < rank[best]):
                best = c
                best_score = s
                best_pair = adj_pair[k]
        if best < 0:
            kept[d] = True
            rep[d] = d
        else:
            rep[d] = best
            rep_score[d] = best_score
            rep_pair[d] = best_pair if best != leader[u] else -1


def greedy_representatives(
    n: int,
    left: np.ndarray,
    right: np.ndarray,
    closeness: np.ndarray,
    *,
    unit: np.ndarray | None = None,
    order: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The greedy rule: each document's representative, and the pair that links them.

    ``left``/``right`` are verified pairs with their ``closeness`` (higher is closer). ``unit``
    maps each document to the position of the first document identical to it (closeness 1.0 to
    every other member; pairs are given between such first members only). ``order`` is the
    processing order (default: input order). Returns ``representative`` (int64 positions) and
    ``pair`` (the index into ``left``/``right`` of the pair linking a duplicate to its
    representative; ``-1`` for kept documents and for copies linked through their unit).

    >>> rep, _ = greedy_representatives(3, np.array([0, 1]), np.array([1, 2]), np.array([0.9, 0.9]))
    >>> rep.tolist()   # 2 matches only 1, which is a duplicate: no chaining
    [0, 0, 2]
    """
    left, right = pair_positions(n, left, right)
    unit = np.arange(n, dtype=np.int64) if unit is None else np.asarray(unit, np.int64)
    order = np.arange(n, dtype=np.int64) if order is None else np.asarray(order, np.int64)
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    a, b = unit[left], unit[right]
    both = np.concatenate([a, b])
    nbr = np.concatenate([b, a])
    score = np.concatenate([closeness, closeness]).astype(np.float64)
    pair = np.concatenate([np.arange(len(left)), np.arange(len(left))]).astype(np.int64)
    by = np.argsort(both, kind="stable")
    adj_off = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(both, minlength=n), out=adj_off[1:])
    rep = np.arange(n, dtype=np.int64)
    rep_score = np.full(n, np.nan)
    rep_pair = np.full(n, -1, np.int64)
    _greedy(order, rank, unit, adj_off, nbr[by], score[by], rep, rep_score, rep_pair, pair[by])
    return rep, rep_pair


def processing_order(
    n: int,
    *,
    keep: str,
    lengths: np.ndarray | None,
    containers: tuple[np.ndarray, np.ndarray] | None = None,
    unit: np.ndarray | None = None,
) -> np.ndarray:
    """Input order for ``keep="first"``; longest first, then input order, for ``"longest"``;
    for ``"container"``, every document after the documents that contain it (``containers``:
    ``(container, contained)`` position arrays), then input order. ``unit`` (as for
    :func:`greedy_representatives`) maps identical documents to their first, the only one the
    containment pairs name: every copy sits at its first's level (a second copy of an excerpt
    is as contained as the first)."""
    if keep not in KEEP_RULES:
        raise ConfigError(f"keep={keep!r} is not supported; choose one of {', '.join(KEEP_RULES)}")
    if keep == "first":
        return np.arange(n, dtype=np.int64)
    if keep == "container":
        if containers is None:
            raise ConfigError(
                "keep='container' needs which document contains which: only the paragraph "
                "method reports it (--method paragraph); use --keep first or longest otherwise"
            )
        level = containment_levels(n, *containers)
        if unit is not None:
            level = level[np.asarray(unit, np.int64)]
        return np.lexsort((np.arange(n), level)).astype(np.int64)
    return np.lexsort((np.arange(n), -text_lengths(lengths, n))).astype(np.int64)


def text_lengths(lengths: Any, n: int) -> np.ndarray:
    """``lengths`` (what ``keep="longest"`` orders by) as one integer per document, or a
    ``ConfigError`` saying what is wrong with them."""
    if lengths is None or isinstance(lengths, str) or len(lengths) != n:
        raise ConfigError("keep='longest' needs the text length of every document")
    try:
        raw = np.asarray(lengths)
    except (TypeError, ValueError):
        raw = np.empty(0, object)
    whole = raw.dtype.kind in "iu" or (
        raw.dtype.kind == "f" and bool(np.isfinite(raw).all()) and bool((raw == raw.round()).all())
    )
    if (
        raw.shape != (n,)
        or not whole
        or (n and (raw.max() > np.iinfo(np.int64).max or raw.min() < 0))
    ):
        raise ConfigError(
            f"keep='longest' needs one non-negative integer length per document, not "
            f"{type(lengths).__name__}"
            f" {str(lengths)[:40]!r}"
        )
    return raw.astype(np.int64)


def containment_levels(n: int, container: np.ndarray, contained: np.ndarray) -> np.ndarray:
    """How deep each document sits under documents that contain it (0: contained in none; a
    digest's story 1, an excerpt of that story 2). Relations that loop (possible only between
    near-equal shares) stop deepening after ``MAX_LEVELS`` rounds."""
    container = np.asarray(container, np.int64)
    contained = np.asarray(contained, np.int64)
    level = np.zeros(n, np.int64)
    for _ in range(MAX_LEVELS):
        before = level.copy()
        np.maximum.at(level, contained, level[container] + 1)
        if np.array_equal(before, level):
            break
    return level


def clusters_from_representatives(representative: np.ndarray) -> Clusters:
    """Cluster ids numbered by each cluster's first member in the input."""
    rep = np.asarray(representative, np.int64)
    n = len(rep)
    first = np.full(n, n, np.int64)
    np.minimum.at(first, rep, np.arange(n))
    _, cluster_id = np.unique(first[rep], return_inverse=True)
    return Clusters(cluster_id.astype(np.int64).reshape(-1), rep)


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


def pair_positions(n: int, left: Any, right: Any) -> tuple[np.ndarray, np.ndarray]:
    """``left``/``right`` as int64 arrays of positions in ``[0, n)``, one pair per element; an
    :class:`InputError` otherwise (0.5 was read as 0, "a" gave NumPy's message)."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise InputError(f"n is the number of documents, an integer >= 0, not {n!r}"[:120])
    out = []
    for name, values in (("left", left), ("right", right)):
        array = np.asarray(values)
        if array.ndim != 1 or not (
            array.dtype.kind in "iu" or (not len(array) and array.dtype.kind == "f")
        ):
            raise InputError(
                f"{name} must be a 1-D sequence of integer positions, not {array.ndim}-D {array.dtype}"
            )
        out.append(np.ascontiguousarray(array, np.int64))
    left, right = out
    if len(left) != len(right):
        raise InputError(
            f"left and right must have the same length, not {len(left)} and {len(right)}"
        )
    if len(left) and (min(left.min(), right.min()) < 0 or max(left.max(), right.max()) >= n):
        raise InputError(f"pair positions must lie in [0, {n})")
    return left, right


def connected_roots(n: int, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """For each of ``n`` positions, the smallest position of its connected component."""
    left, right = pair_positions(n, left, right)
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
        lengths = text_lengths(lengths, n)
        if not n:
            return Clusters(np.empty(0, np.int64), np.empty(0, np.int64))
        # per cluster: longest first, then earliest position
        order = np.lexsort((np.arange(n), -lengths, cluster_id))
        sorted_cid = cluster_id[order]
        starts = np.flatnonzero(np.r_[True, sorted_cid[1:] != sorted_cid[:-1]])
        representative = order[starts][cluster_id]
    return Clusters(cluster_id.astype(np.int64), representative.astype(np.int64))
