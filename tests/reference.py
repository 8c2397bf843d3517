"""Deliberately simple pure-Python re-implementations: the oracles the fast code is tested against."""

from __future__ import annotations

import re

MASK = (1 << 64) - 1
_WORDCHAR = re.compile(r"[^\W_]")


def feature_hash(feature: str) -> int:
    h = 0xCBF29CE484222325
    for ch in feature:
        h = ((h ^ ord(ch)) * 0x100000001B3) & MASK
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & MASK
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & MASK
    h ^= h >> 33
    return h


def simhash(features: list[str], weights: list[float] | None = None) -> int:
    acc = [0.0] * 64
    for i, f in enumerate(features):
        h = feature_hash(f)
        w = 1.0 if weights is None else weights[i]
        for b in range(64):
            acc[b] += w if (h >> b) & 1 else -w
    return sum(1 << b for b in range(64) if acc[b] > 0)


def char_grams(text: str, n: int) -> list[str]:
    if not text:
        return []
    if len(text) < n:
        return [text]
    return [text[i : i + n] for i in range(len(text) - n + 1)]


def hamming(a: int, b: int) -> int:
    return bin(a ^ b).count("1")


def brute_pairs(fps: list[int], k: int) -> list[tuple[int, int, int]]:
    out = []
    for i in range(len(fps)):
        for j in range(i + 1, len(fps)):
            d = hamming(fps[i], fps[j])
            if d <= k:
                out.append((i, j, d))
    return out


def components(n: int, edges: list[tuple[int, int]]) -> list[int]:
    """Smallest member of each node's component, by breadth-first search."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    root = [-1] * n
    for s in range(n):
        if root[s] != -1:
            continue
        stack, comp = [s], [s]
        root[s] = s
        while stack:
            x = stack.pop()
            for y in adj[x]:
                if root[y] == -1:
                    root[y] = s
                    stack.append(y)
                    comp.append(y)
    return root


def greedy(n: int, scores: dict[tuple[int, int], float], order: list[int]) -> list[int]:
    """Reference 000's result set, literally: take documents in ``order``; compare each with every
    document kept so far; it joins the one it matches best (ties: the earliest in ``order``)."""
    rank = {d: i for i, d in enumerate(order)}
    kept: list[int] = []
    rep = list(range(n))
    for d in order:
        best, best_score = None, None
        for k in kept:
            s = scores.get((min(d, k), max(d, k)))
            if s is None:
                continue
            if best is None or s > best_score or (s == best_score and rank[k] < rank[best]):
                best, best_score = k, s
        if best is None:
            kept.append(d)
        else:
            rep[d] = best
    return rep
