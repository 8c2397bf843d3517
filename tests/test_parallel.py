"""--workers / workers=: the same output for every number of threads."""

from __future__ import annotations

import json

import numpy as np
import pytest

from neardup.cli import main
from neardup.errors import ConfigError
from neardup.index import ngram as ngram_index
from neardup.methods import auto, commongrams, create
from neardup.parallel import chunk_ranges, iter_ranges, map_ranges, resolve_workers
from test_replay import SAMPLE, corpus


def run_auto(texts, workers):
    method = create("auto")
    method.workers = workers
    pairs = method.find_pairs(texts)
    return method, pairs


def test_auto_finds_the_same_pairs_on_any_number_of_threads(monkeypatch):
    """The oracle is one thread over one chunk; small chunks on 1 and 3 threads must give the
    same pairs, similarities, common-gram table, statistics and near misses."""
    texts = corpus()
    for name in (
        "DOCS_CHUNK",
        "VERIFY_CHUNK",
        "POSSIBLE_CHUNK",
        "COMPARE_CHUNK",
    ):
        monkeypatch.setattr(auto, name, 10**9)
    monkeypatch.setattr(commongrams, "PARALLEL_UNIQUE", 10**9)
    want_method, want = run_auto(texts, 1)
    assert len(want_method.near_misses.rows) == want_method.near_misses.limit
    monkeypatch.setattr(auto, "DOCS_CHUNK", 97)  # many chunks, uneven sizes
    monkeypatch.setattr(auto, "VERIFY_CHUNK", 300)
    monkeypatch.setattr(auto, "POSSIBLE_CHUNK", 200)  # verified in groups as they come
    monkeypatch.setattr(auto, "COMPARE_CHUNK", 101)
    monkeypatch.setattr(
        commongrams, "PARALLEL_UNIQUE", 50
    )  # the common-gram count split by top bits
    monkeypatch.setattr(ngram_index, "CHUNK_PAIRS", 113)
    assert want_method.stats["candidates"] > 5 * 300
    for workers in (1, 3):
        method, got = run_auto(texts, workers)
        for field in ("left", "right", "distance", "similarity", "method"):
            assert np.array_equal(getattr(got, field), getattr(want, field), equal_nan=True)
        assert np.array_equal(method.tables.values, want_method.tables.values)
        assert method.stats == want_method.stats
        assert method.near_misses.to_list() == want_method.near_misses.to_list()
        assert set(method.timings) == {"compare", "sketch", "candidates", "verify"}


def test_ngram_measures_only_what_can_pass_or_be_a_near_miss(monkeypatch):
    """The oracle measures every candidate pair exactly and offers the rejected ones chunk by
    chunk; skipping the pairs below the near misses held must change nothing, on any number of
    threads."""
    from neardup.index.ngram import candidate_pairs
    from neardup.methods import ngram
    from neardup.nearmiss import NearMisses
    from neardup.verify import similarity_pairs

    texts = corpus()
    monkeypatch.setattr(ngram, "VERIFY_CHUNK", 250)
    method = create("ngram")
    norm = method.normalized(texts)
    first = sorted({t: i for i, t in reversed(list(enumerate(norm)))}.values())
    reps = np.array(first)
    rep_texts = [norm[i] for i in first]
    left, right, _ = candidate_pairs(rep_texts, key_length=4, max_posting=2000)
    assert len(left) > 8 * 250
    sim = similarity_pairs(rep_texts, left, right)
    want = NearMisses()
    for lo, hi in chunk_ranges(len(left), 250):
        no = sim[lo:hi] < method.threshold
        want.offer(
            reps[left[lo:hi][no]],
            reps[right[lo:hi][no]],
            sim[lo:hi][no],
            threshold=0.5,
            route="jaccard",
        )
    keep = sim >= method.threshold
    for workers in (1, 3):
        method.workers = workers
        got = method.find_pairs(texts)
        tail = slice(len(got) - int(keep.sum()), None)  # after the exact copies' pairs
        assert np.array_equal(got.left[tail], reps[left[keep]])
        assert np.array_equal(got.right[tail], reps[right[keep]])
        assert np.array_equal(got.similarity[tail], sim[keep])
        assert method.near_misses.to_list() == want.to_list()
        assert want.floor() > 0.3  # the floor was raised: pairs were skipped


def test_value_counts_on_threads_equal_numpy_unique(monkeypatch):
    monkeypatch.setattr(commongrams, "PARALLEL_UNIQUE", 10)
    rng = np.random.default_rng(3)
    pool = rng.integers(0, 2**64, 500, dtype=np.uint64)
    pool[:5] = [0, 1, 2**63, 2**64 - 1, 2**62]  # the ends of the top-bit ranges
    values = rng.choice(pool, 20_000)
    want_values, want_counts = np.unique(values, return_counts=True)
    for workers in (1, 2, 3, 8):
        got_values, got_counts = commongrams._value_counts(values, workers=workers)
        assert np.array_equal(got_values, want_values) and np.array_equal(got_counts, want_counts)
    empty = commongrams._value_counts(values[:0], workers=3)
    assert len(empty[0]) == len(empty[1]) == 0


@pytest.mark.parametrize("common", [0.01, 0.9], ids=["few common values", "mostly common"])
def test_frequent_values_equal_counting_every_value(monkeypatch, common):
    """The bucket prefilter is exact on both of its paths (a few heavy buckets, as for Chinese
    grams; most values in heavy buckets, as for English), in chunks and on threads."""
    monkeypatch.setattr(commongrams, "FREQUENT_CHUNK", 777)
    rng = np.random.default_rng(5)
    frequent = rng.integers(0, 2**64, 40, dtype=np.uint64)
    rare = rng.integers(0, 2**64, 30_000, dtype=np.uint64)
    n = 40_000
    k = int(common * n)
    values = np.concatenate([rng.choice(frequent, k), rng.choice(rare, n - k)])
    rng.shuffle(values)
    uniq, counts = np.unique(values, return_counts=True)
    for floor in (1, 20, 150, 5_000):
        want = uniq[counts > floor]
        for workers in (1, 3):
            got = commongrams.frequent_values(values, floor, workers=workers)
            assert got.dtype == np.uint64 and np.array_equal(got, want), (floor, workers)
            cuts = np.sort(rng.integers(0, n, 7))  # the same values as parts, some empty
            parts = np.split(values, np.sort(np.r_[cuts, cuts[:2]]))
            got = commongrams.frequent_values(parts, floor, workers=workers)
            assert got.dtype == np.uint64 and np.array_equal(got, want), (floor, workers)
    assert len(commongrams.frequent_values(values[:0], 100)) == 0
    assert len(commongrams.frequent_values([], 100)) == 0


def test_dedup_workers_write_identical_outputs(tmp_path):
    outs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        assert main(["dedup", str(SAMPLE), "-o", str(out), "--workers", workers, "--quiet"]) == 0
        outs.append(out)
    for name in ("clusters.csv", "kept.jsonl"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes()
    summary = json.loads((outs[1] / "summary.json").read_text())
    assert {"find_pairs.sketch", "find_pairs.verify"} <= set(summary["seconds"])


def test_dedup_compares_texts_as_it_reads_on_its_workers(tmp_path, monkeypatch):
    """The read stage of `neardup dedup` (which makes the texts comparable as it reads) runs
    on the threads --workers asks for, not on one."""
    seen: list[int] = []
    compared = auto.AutoMethod.compared

    def spy(self, texts):
        seen.append(self.workers)
        return compared(self, texts)

    monkeypatch.setattr(auto.AutoMethod, "compared", spy)
    out = tmp_path / "out"
    assert main(["dedup", str(SAMPLE), "--id-field", "id", "-o", str(out), "--workers", "2"]) == 0
    assert seen and set(seen) == {2}


def test_workers_are_checked(tmp_path, capsys):
    assert resolve_workers(None) >= 1 and resolve_workers(0) == resolve_workers(None)
    assert resolve_workers(3) == 3 and resolve_workers(np.int64(2)) == 2
    for bad in (-1, 1.5, True, False, "2"):
        with pytest.raises(ConfigError, match="number of threads"):
            resolve_workers(bad)
    with pytest.raises(ConfigError, match="at most 1024 threads"):
        resolve_workers(100_000)
    code = main(["dedup", str(SAMPLE), "-o", str(tmp_path / "o"), "--workers", "-2"])
    assert code == 2 and "workers=-2" in capsys.readouterr().err


def test_map_ranges_keeps_chunk_order():
    assert chunk_ranges(5, 2) == [(0, 2), (2, 4), (4, 5)]
    assert chunk_ranges(0, 2) == []
    got = map_ranges(lambda lo, hi: list(range(lo, hi)), 1001, size=7, workers=4)
    assert [x for part in got for x in part] == list(range(1001))


def test_iter_ranges_yields_in_chunk_order_with_few_chunks_ahead():
    """Results as they come, in order, for any number of threads; a slow first chunk does not
    let the others pile up beyond ``2 * workers`` (oracle: the chunks started so far)."""
    import threading
    import time

    started: list[int] = []
    lock = threading.Lock()

    def work(lo: int, hi: int) -> list[int]:
        with lock:
            started.append(lo)
        if lo == 0:
            time.sleep(0.05)
        return list(range(lo, hi))

    for workers in (1, 2, 3):
        started.clear()
        seen = []
        for part in iter_ranges(work, 1001, size=7, workers=workers):
            assert len(started) <= max(1, 2 * workers) + len(seen) + 1
            seen.append(part)
        assert [x for part in seen for x in part] == list(range(1001))
