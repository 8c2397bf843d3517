"""The run in the library (``neardup.pipeline``): what ``neardup dedup`` runs, callable by any
program, with the same outputs; options checked with fix-it messages."""

import json

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
    ],
)
def test_options_are_checked_with_fix_it_messages(field, value, message):
    base = {"input": ("in.jsonl",), "output": "out", "method": "auto"}
    with pytest.raises(ConfigError, match=message):
        DedupOptions(**{**base, field: value})
