"""Small runs take the exact twins of some kernels (nothing to compile for a few hundred texts):
the same clusters, pairs and similarities as the kernels give, on real and generated text."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup import compiling
from neardup.dedup import dedup_with
from neardup.errors import ConfigError
from neardup.methods import create

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample_zh.jsonl"


def _sample() -> list[str]:
    return [orjson.loads(line)["text"] for line in SAMPLE.read_bytes().splitlines()]


def _generated() -> list[str]:
    """Reposts with markup, escaped line breaks, numerals, weekdays, English with month names
    and codes: what each twin handles."""
    base = [
        "国务院常务会议部署稳外贸稳外资措施，会议指出今年前三季度进出口增长3.5%",
        "The board meets on Monday, Oct 5, to vote on the A320 order of twelve aircraft.",
        "仁爱版英语七年级下U7T1选择题及答案解析（共二十题）",
        "本周五下午两点在三号会议室召开第十二次全体会议，请各部门负责人准时参加",
        "Ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ１２３ and ß, İstanbul, café: the texts Python normalises",
    ]
    out = []
    for k, text in enumerate(base):
        out += [
            text,
            f"转发微博 //@用户{k}: {text} http://t.cn/A6x{k} [哈哈]",
            text.replace("三", "四").replace("Monday", "Friday").replace("U7T1", "U7T3"),
            text[: len(text) * 2 // 3] + "\\n" + "#话题# @某人",
            "回复@某人: " + text + "……",
        ]
    return out


def _run(texts: list[str], monkeypatch, bound: str):
    monkeypatch.setenv("NEARDUP_COMPILED_FROM", bound)
    return dedup_with(create("auto"), texts, workers=2)


@pytest.mark.parametrize("corpus", ["sample", "generated"])
def test_twins_decide_as_the_kernels(monkeypatch, corpus):
    texts = _sample() if corpus == "sample" else _generated()
    twins = _run(texts, monkeypatch, str(1 << 62))
    kernels = _run(texts, monkeypatch, "0")
    assert len(kernels.pairs) > 0
    assert np.array_equal(twins.clusters.representative, kernels.clusters.representative)
    assert np.array_equal(twins.pairs.left, kernels.pairs.left)
    assert np.array_equal(twins.pairs.right, kernels.pairs.right)
    assert np.array_equal(
        twins.similarity_to_representative, kernels.similarity_to_representative, equal_nan=True
    )


def test_twins_decide_as_the_kernels_on_real_posts(monkeypatch, shared_data):
    with gzip.open(shared_data / "weibo_ced_zh" / "corpus.jsonl.gz") as f:
        texts = [orjson.loads(line)["text"] for line in itertools.islice(f, 5000)]
    twins = _run(texts, monkeypatch, str(1 << 62))
    kernels = _run(texts, monkeypatch, "0")
    assert np.array_equal(twins.clusters.representative, kernels.clusters.representative)
    assert np.array_equal(twins.pairs.left, kernels.pairs.left)


def test_a_small_run_calls_no_twinned_kernel(monkeypatch):
    """Under the default bound the sample's run calls none of the kernels with a twin; from
    the bound on it does."""
    from neardup import _kernels, _markupkernels, _pairkernels, _tokenkernels

    called: list[str] = []
    for module, name in (
        (_tokenkernels, "alignment_tokens"),
        (_tokenkernels, "one_replaced"),
        (_tokenkernels, "numbers_differ"),
        (_kernels, "normalize_codepoints"),
        (_kernels, "_sort_per_doc"),
        (_kernels, "_drop_repeats"),
        (_kernels, "_kept_where_absent"),
        (_kernels, "smallest_keys"),
        (_kernels, "consistent_sample"),
        (_tokenkernels, "_token_counts"),
        (_tokenkernels, "replaced_codes"),
        (_markupkernels, "strip_markup_codepoints"),
        (_pairkernels, "posting_lists"),
        (_pairkernels, "possible_candidates"),
    ):
        kernel = getattr(module, name)
        monkeypatch.setattr(
            module, name, lambda *a, _k=kernel, _n=name: called.append(_n) or _k(*a)
        )
    monkeypatch.delenv("NEARDUP_COMPILED_FROM")
    dedup_with(create("auto"), _sample(), workers=2)  # threads see the run's size
    assert called == []
    monkeypatch.setenv("NEARDUP_COMPILED_FROM", "0")
    dedup_with(create("auto"), _sample(), workers=2)
    want = {"alignment_tokens", "normalize_codepoints", "_sort_per_doc", "_token_counts"}
    want |= {"smallest_keys", "consistent_sample"}
    assert want | {"posting_lists", "possible_candidates"} <= set(called)


def test_a_bad_bound_is_refused(monkeypatch):
    monkeypatch.setenv("NEARDUP_COMPILED_FROM", "many")
    with pytest.raises(ConfigError, match="NEARDUP_COMPILED_FROM='many'"):
        compiling.compiled_from()


documents = st.lists(
    st.lists(st.integers(0, 40), max_size=12), min_size=1, max_size=8
)  # small values: repeats within and across documents


def _flat(docs: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(docs) + 1, np.int64)
    np.cumsum([len(d) for d in docs], out=offsets[1:])
    values = np.array([v * 0x9E3779B97F4A7C15 % (1 << 64) for d in docs for v in d], np.uint64)
    return values, offsets


@settings(max_examples=200, deadline=None)
@given(documents, st.lists(st.integers(0, 40), max_size=10))
def test_numpy_twins_are_the_kernels(docs, members):
    """Each NumPy twin against its kernel on random documents (empty ones included)."""
    from neardup import _kernels, twins

    values, offsets = _flat(docs)
    ordered = _kernels._sort_per_doc(values, offsets)
    assert np.array_equal(twins.sort_per_doc(values, offsets), ordered)
    want = _kernels._drop_repeats(ordered.copy(), offsets)
    got = twins.drop_repeats(ordered.copy(), offsets)
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    common = np.unique(_flat([members])[0])
    want = _kernels._kept_where_absent(ordered, ordered, offsets, common)
    got = twins.kept_where_absent(ordered, ordered, offsets, common)
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    for most in (1, 3, 16):
        want = _kernels.smallest_keys(ordered, offsets, most)
        got = twins.smallest_keys(ordered, offsets, most)
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    for rate in (1, 2, 8):
        want = _kernels.consistent_sample(ordered, offsets, rate)
        got = twins.consistent_sample(ordered, offsets, rate)
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))


@settings(max_examples=200, deadline=None)
@given(documents)
def test_posting_lists_twin_is_the_kernel(docs):
    """The posting lists in NumPy against the kernel's hash table and counting sort."""
    from neardup import _pairkernels, twins

    values, offsets = _flat([sorted(set(d)) for d in docs])
    want = _pairkernels.posting_lists(values, offsets)
    got = twins.posting_lists(values, offsets)
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=list("ab 中文們，!\U00020000\U0002fa1f\U0002fa20\uf900\u4dbf\u4dc0"),
            max_size=12,
        ),
        max_size=8,
    )
)
def test_token_count_twin_is_the_kernel(texts):
    from neardup import _tokenkernels, twins
    from neardup.normalize import encode_texts

    cps, offsets = encode_texts(texts)
    want = _tokenkernels._token_counts(cps, offsets)
    assert np.array_equal(twins.token_counts(cps, offsets), want)


def test_threads_see_the_run_size(monkeypatch):
    """The size a batch declares reaches the threads that work on it, and ends with it."""
    from neardup.parallel import map_ranges

    monkeypatch.delenv("NEARDUP_COMPILED_FROM")
    big = 1 << 40  # what a call outside a batch would be judged by: large
    with compiling.run_of(100, 1):
        seen = map_ranges(lambda lo, hi: compiling.small(big), 8, size=1, workers=2)
    assert seen == [True] * 8
    with compiling.run_of(big, 1):
        seen = map_ranges(lambda lo, hi: compiling.small(10), 8, size=1, workers=2)
    assert seen == [False] * 8
    assert compiling.small(10) and not compiling.small(big)  # outside: each call's own size


def test_many_pairs_of_a_small_run_take_the_compiled_shortcuts(monkeypatch):
    """Templated messages: few code points, but many pairs for the value test — its compiled
    shortcuts are taken (the alignment of every pair took 10.7 s against 1.9 s for 10,000)."""
    from neardup import _tokenkernels

    called: list[str] = []
    kernel = _tokenkernels.one_replaced
    monkeypatch.setattr(
        _tokenkernels, "one_replaced", lambda *a: called.append("one_replaced") or kernel(*a)
    )
    names = ["李娜", "王芳", "张伟", "刘洋", "陈静"]
    texts = [
        f"{names[k % 5]}在{k % 28 + 1}日参加了全国第{k % 30 + 1}届运动会并获得{k % 9 + 1}枚奖牌"
        for k in range(3000)
    ]
    monkeypatch.delenv("NEARDUP_COMPILED_FROM")
    assert compiling.is_small(sum(map(len, texts)), len(texts))
    dedup_with(create("auto"), texts, workers=1)
    assert called


def test_markup_outside_a_batch_is_judged_by_the_call(monkeypatch):
    """Two texts' markup (the ngram method's option, ``strip_markup``) by the pattern; the
    kernel for a call from the bound on."""
    from neardup import _markupkernels, markup

    called: list[int] = []
    kernel = _markupkernels.strip_markup_codepoints
    monkeypatch.setattr(
        _markupkernels,
        "strip_markup_codepoints",
        lambda *a: called.append(1) or kernel(*a),
    )
    texts = ["转发微博 正文 http://t.cn/A6 @某人", "plain"]
    monkeypatch.delenv("NEARDUP_COMPILED_FROM")
    small = markup.strip_markup(texts)
    assert called == []
    monkeypatch.setenv("NEARDUP_COMPILED_FROM", "0")
    assert markup.strip_markup(texts) == small and called == [1]


def test_a_run_warms_a_large_runs_kernels_by_the_size_of_its_files(tmp_path):
    """The sample is small; a directory or pattern whose files hold a MiB is large (not the size
    of the directory entry); standard input is taken as large; a bad spec is left to the
    reading."""
    from types import SimpleNamespace

    from neardup.pipeline.run import LARGE_INPUT_BYTES, _large_input

    def large(*specs: str) -> bool:
        return _large_input(SimpleNamespace(input=list(specs), against=None))

    folder = tmp_path / "in"
    folder.mkdir()
    for k in range(3):
        (folder / f"part{k}.jsonl").write_bytes(b"x" * (LARGE_INPUT_BYTES // 2))
    assert not large(str(SAMPLE))
    assert large(str(folder))
    assert large(str(folder / "*.jsonl"))
    assert not large(str(folder / "part0.jsonl"))
    assert large("-")
    assert not large(str(tmp_path / "missing.jsonl"))


def test_a_batch_of_many_texts_is_large_without_reading_them(monkeypatch):
    """``TEXTS_FROM`` texts or more are large whatever their length: their lengths are not
    summed (a pass over every text of a batch, several times per run); fewer are measured."""
    monkeypatch.delenv("NEARDUP_COMPILED_FROM")

    class Unread(list):
        def __iter__(self):
            raise AssertionError("read")

    assert not compiling.texts_are_small(Unread(["今天"] * compiling.TEXTS_FROM))
    with pytest.raises(AssertionError, match="read"):
        compiling.texts_are_small(Unread(["今天"] * 10))
    assert compiling.texts_are_small(["今天"] * 10)
    assert not compiling.texts_are_small(["今" * compiling.COMPILED_FROM])


def test_kernels_preferred_holds_for_every_thread_and_ends_with_the_block(monkeypatch):
    """``index add`` of a large input decides each group on the detector's own thread, where a
    declared run (a context variable) is not seen: the preference is process-wide, for the
    block only."""
    import threading

    monkeypatch.setenv("NEARDUP_COMPILED_FROM", str(1 << 20))
    assert compiling.small(10)
    seen = []
    with compiling.kernels_preferred():
        worker = threading.Thread(target=lambda: seen.append(compiling.small(10)))
        worker.start()
        worker.join()
        assert not compiling.small(10) and compiling.compiled_from() == 0
        with compiling.kernels_preferred(False):  # nested: does not undo the outer one
            assert not compiling.small(10)
    assert seen == [False]
    assert compiling.small(10) and compiling.compiled_from() == 1 << 20
    # two threads' blocks interleaved (A in, B in, A out, B out) leave nothing behind
    a, b = compiling.kernels_preferred(), compiling.kernels_preferred()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    assert not compiling.small(10)  # B's block is still open
    b.__exit__(None, None, None)
    assert compiling.small(10)
