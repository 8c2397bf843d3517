"""The run in the library (``neardup.pipeline``): what ``neardup dedup`` runs, callable by any
program, with the same outputs; options checked with fix-it messages."""

import json
import os

import pytest

from neardup import dedup_texts
from neardup.cli import main
from neardup.errors import ConfigError
from neardup.pipeline import DedupOptions, run_dedup
from test_cli_dedup import corpus, read_clusters, write_jsonl


def test_library_run_equals_the_command_and_dedup_texts(tmp_path):
    texts = corpus()
    path = tmp_path / "in.jsonl"
    write_jsonl(path, texts)
    summary, out = run_dedup(
        DedupOptions(
            input=(str(path),),
            output=str(tmp_path / "lib"),
            method="auto",
            text_field="body",
            id_field="doc",
            pairs=True,
        )
    )
    assert out == tmp_path / "lib"
    args = ["--text-field", "body", "--id-field", "doc", "--pairs", "--quiet"]
    assert main(["dedup", str(path), "-o", str(tmp_path / "cli"), *args]) == 0
    published = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert json.loads((out / "summary.json").read_text())["counts"] == summary["counts"]
    assert summary["counts"] == published["counts"]
    assert read_clusters(out) == read_clusters(tmp_path / "cli")
    rep = dedup_texts(texts, method="auto").clusters.representative  # the oracle: the core
    removed = sum(int(r != i) for i, r in enumerate(rep.tolist()))
    assert summary["counts"]["duplicates_removed"] == removed


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("keep", "oldest", "keep='oldest' is not supported; choose one of first"),
        ("clusters", "chains", "choose one of greedy"),
        ("kept", "both", "choose one of per-input"),
        ("on_error", "ignore", "choose one of fail"),
        ("format", "xml", "choose one of"),
        ("input", (), "no input given"),
        ("input", 42, "input=42: give a file, directory or pattern"),
        # None (or a list) was an AttributeError in __post_init__ (options) or a TypeError
        # when the run began (output); required fields refuse None, as input and keep do
        ("output", None, "output=None: name the directory for the run's outputs"),
        ("options", None, r"options=None: give the method's options as a dict \(\{\} for none"),
        ("options", ["partial"], r"options=\['partial'\]: give the method's options as a dict"),
    ],
)
def test_options_are_checked_with_fix_it_messages(field, value, message):
    base = {"input": ("in.jsonl",), "output": "out", "method": "auto"}
    with pytest.raises(ConfigError, match=message):
        DedupOptions(**{**base, field: value})


def test_one_input_given_alone_is_one_input(tmp_path):
    """``input="news.jsonl"`` was read as its characters ("the file 's' is given twice");
    a str or a path is one input, and the method defaults to the command's."""
    path = tmp_path / "in.jsonl"
    write_jsonl(path, corpus())
    for given in (str(path), path, [os.fsencode(path)], os.fsencode(path)):
        options = DedupOptions(input=given, output=str(tmp_path / "o"))
        assert options.input == (str(path),) and options.method == "auto"
    assert DedupOptions(input=path, output=tmp_path / "o").output == str(tmp_path / "o")
    summary, _out = run_dedup(
        DedupOptions(input=path, output=str(tmp_path / "o"), text_field="body", id_field="doc")
    )
    assert summary["input"] == str(path)


def test_a_batch_keeps_what_the_method_needs_not_the_texts(tmp_path, monkeypatch):
    """Read for ``auto``, a batch holds the compared texts (made a chunk at a time, equal to
    comparing all texts at once), for ``simhash`` fingerprints; with ``partial`` (measured on
    the texts as written) or ``keep_texts``, the texts themselves."""
    from neardup.inputs import Inputs
    from neardup.methods import create
    from neardup.pipeline import reading

    monkeypatch.setattr(reading, "CHUNK", 4)  # several chunks
    texts = corpus()
    path = tmp_path / "in.jsonl"
    write_jsonl(path, texts)

    def read(method, **kw):
        inputs = Inputs([str(path)], text_field="body", id_field="doc")
        return reading.read_all(inputs, method, quiet=True, **kw)

    auto = create("auto")
    batch = read(auto)
    assert batch.compared and batch.texts == auto.compared(texts) != texts
    assert batch.lengths.tolist() == [len(t) for t in texts]
    assert [batch.ids[k] for k in range(len(texts))] == [f"id{i}" for i in range(len(texts))]
    assert not read(auto, keep_texts=True).compared
    assert read(create("auto", partial=True)).texts == texts
    simhash = read(create("simhash"))
    assert simhash.texts == [] and len(simhash.fps) == len(texts)


def test_dedup_with_compared_texts_equals_dedup_with_the_texts():
    """``dedup_with(..., compared=True)`` on the compared texts gives the clusters of the texts
    as written and takes the list over (emptied); ``keep='longest'`` needs the lengths."""
    import numpy as np

    from neardup.dedup import dedup_with
    from neardup.methods import create

    texts = corpus()
    want = dedup_with(create("auto"), texts)
    given = create("auto").compared(texts)
    lengths = np.array([len(t) for t in texts])
    got = dedup_with(create("auto"), given, compared=True, lengths=lengths)
    assert given == []
    assert got.clusters.representative.tolist() == want.clusters.representative.tolist()
    assert got.pairs.similarity.tolist() == want.pairs.similarity.tolist()
    assert (got.clusters.representative != np.arange(len(texts))).sum() >= 4
    with pytest.raises(ConfigError, match="lengths"):
        dedup_with(create("auto"), create("auto").compared(texts), compared=True, keep="longest")


@pytest.mark.parametrize(
    "blocks",
    [
        [["a", "bb", "12345"], ["ccc"]],  # ASCII: encoded as one string
        [["a", "新闻-1", "é"], ["x\udcffy", "z"], []],  # UTF-8, and a lone surrogate kept
    ],
)
def test_ids_give_back_what_was_appended(blocks):
    """The ids' buffers (one per block) give every id back as it came, by position and whole
    (the column the outputs write); ASCII blocks are encoded as one string."""
    from neardup.pipeline.ids import Ids

    ids = Ids()
    for block in blocks:
        ids.extend(block)
    flat = [i for block in blocks for i in block]
    assert len(ids) == len(flat) and [ids[k] for k in range(len(flat))] == flat
    if all("\udcff" not in i for i in flat):
        assert ids.arrow().to_pylist() == flat
