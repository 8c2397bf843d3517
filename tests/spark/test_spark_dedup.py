"""The Spark job gives exactly the clusters and representatives of `neardup dedup` (local[2])."""

import glob
import json
import random
import re
import unicodedata
from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from neardup.cli import main
from neardup.errors import ConfigError, InputError
from neardup.methods import SPARK_DEFAULT_METHOD

pytestmark = pytest.mark.spark


def _words(text: str) -> str:
    """A text without case, marks and white space (exact copies may differ in those)."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text)).casefold()


def _write_jsonl(path, texts, *, extra_lines=()):
    with open(path, "wb") as f:
        for i, t in enumerate(texts):
            f.write(orjson.dumps({"id": f"d{i}", "text": t}) + b"\n")
        for line in extra_lines:
            f.write(line + b"\n")
    return str(path)


def _local(tmp_path, source, *args):
    """`neardup dedup` with spark-dedup's default method unless the test names one."""
    out = tmp_path / "local"
    if "--method" not in args:
        args = ("--method", SPARK_DEFAULT_METHOD, *args)
    assert main(["dedup", source, "-o", str(out), "--quiet", *args]) == 0
    return out


def _spark(spark, tmp_path, source, **options):
    from neardup.spark.job import spark_dedup

    out = tmp_path / "spark"
    cached = set(spark.sparkContext._jsc.getPersistentRDDs().keys())
    summary = spark_dedup(spark, source, str(out), **options)
    # nothing the job cached stays cached (a session runs many jobs)
    assert set(spark.sparkContext._jsc.getPersistentRDDs().keys()) <= cached
    return out, summary


def _clusters(path):
    files = sorted(glob.glob(str(path / "clusters" / "part-*.csv"))) or [str(path / "clusters.csv")]
    opts = pcsv.ConvertOptions(
        column_types={
            "id": pa.string(),
            "representative_id": pa.string(),
            "method": pa.string(),
            "distance": pa.int64(),
            "similarity": pa.float64(),  # a part file may have no similarity at all
        },
        strings_can_be_null=True,
    )
    rows = pa.concat_tables([pcsv.read_csv(f, convert_options=opts) for f in files]).to_pylist()
    for r in rows:
        r["method"] = r["method"] or ""
        if r["similarity"] is not None:
            r["similarity"] = round(r["similarity"], 5)
    return rows


def _kept_lines(path):
    files = sorted(glob.glob(str(path / "kept" / "part-*")))
    return b"".join(open(f, "rb").read() for f in files).splitlines()


def _assert_same(local_out, spark_out, local_kept_name="kept.jsonl"):
    local_rows, spark_rows = _clusters(local_out), _clusters(spark_out)
    assert len(local_rows) == len(spark_rows)
    mismatched = [(a, b) for a, b in zip(local_rows, spark_rows, strict=True) if a != b]
    assert not mismatched, mismatched[:5]
    local_summary = json.loads((local_out / "summary.json").read_text())
    spark_summary = json.loads((spark_out / "summary.json").read_text())
    for key in ("records_read", "documents", "skipped", "skipped_by_reason", "clusters"):
        assert local_summary["counts"][key] == spark_summary["counts"][key], key
    for key in ("duplicate_clusters", "duplicates_removed", "kept", "pairs"):
        assert local_summary["counts"][key] == spark_summary["counts"][key], key
    return local_rows


def test_same_clusters_as_local_default_auto(spark, tmp_path, corpus_texts):
    """The default method (auto): the same exact copies, common-gram table, candidates, copy
    verdicts and greedy representatives as one machine; the table written beside both."""
    from neardup.methods.commongrams import CommonGrams

    assert SPARK_DEFAULT_METHOD == "auto"
    source = _write_jsonl(tmp_path / "corpus.jsonl", corpus_texts)
    local_out = _local(tmp_path, source, "--id-field", "id")
    spark_out, summary = _spark(spark, tmp_path, source, id_field="id")
    rows = _assert_same(local_out, spark_out)
    assert sum(r["method"] == "auto" for r in rows) > 20  # verified copies, not only exact ones
    assert _kept_lines(spark_out) == (local_out / "kept.jsonl").read_bytes().splitlines()
    local_summary = json.loads((local_out / "summary.json").read_text())
    assert summary["tables"] == local_summary["tables"]  # the same fitted table (digest)
    table = CommonGrams.load(spark_out / "common_grams.npz")
    assert table.digest() == summary["tables"] and len(table.values) > 0
    assert summary["parameters"] == local_summary["parameters"]


def test_auto_with_a_given_table_and_longest(spark, tmp_path, corpus_texts):
    """A frozen table from another corpus (not fitted on this input) and keep=longest."""
    from neardup.methods.commongrams import CommonGrams

    half = min(1500, len(corpus_texts) // 2)  # the bundled sample when ../shared/data is absent
    fit_on = _write_jsonl(tmp_path / "fit.jsonl", corpus_texts[half:])
    assert main(["dedup", fit_on, "-o", str(tmp_path / "fit"), "--quiet"]) == 0
    table_path = tmp_path / "fit" / "common_grams.npz"
    source = _write_jsonl(tmp_path / "corpus.jsonl", corpus_texts[:half])
    local_out = _local(tmp_path, source, "--tables", str(table_path), "--keep", "longest")
    table = CommonGrams.load(table_path)
    spark_out, summary = _spark(spark, tmp_path, source, tables=table, keep="longest")
    _assert_same(local_out, spark_out)
    assert summary["tables"] == table.digest()


def test_same_clusters_as_local_simhash(spark, tmp_path, corpus_texts):
    source = _write_jsonl(tmp_path / "corpus.jsonl", corpus_texts)
    local_out = _local(tmp_path, source, "--id-field", "id", "--method", "simhash")
    spark_out, summary = _spark(spark, tmp_path, source, id_field="id", method="simhash")
    rows = _assert_same(local_out, spark_out)
    assert sum(r["id"] != r["representative_id"] for r in rows) > 50  # real duplicates found
    assert _kept_lines(spark_out) == (local_out / "kept.jsonl").read_bytes().splitlines()
    assert summary["counts"]["records_read"] == len(corpus_texts)


def test_same_clusters_verified_longest_wider_distance(spark, tmp_path, corpus_texts):
    source = _write_jsonl(tmp_path / "corpus.jsonl", corpus_texts[:2000])
    args = ["--max-distance", "6", "--verify", "jaccard", "--threshold", "0.6", "--keep", "longest"]
    local_out = _local(tmp_path, source, "--method", "simhash", *args)
    options = {"max_distance": 6, "verify": "jaccard", "min_similarity": 0.6}
    spark_out, _ = _spark(
        spark, tmp_path, source, method="simhash", options=options, keep="longest"
    )
    rows = _assert_same(local_out, spark_out)
    members = [r for r in rows if r["id"] != r["representative_id"]]
    direct = [r["similarity"] for r in members if r["similarity"] is not None]
    assert direct and all(s >= 0.6 for s in direct)


def _partial_copies(texts, n, seed):
    """Reposts with a commentary paragraph, excerpts (whole paragraphs, or sentences from the
    middle of the longest one), stories with a paragraph of another appended, and stories of
    one template (the lead restated with other numbers and names), made from the
    multi-paragraph texts."""
    rng = random.Random(seed)
    long = [t for t in texts if t.strip().count("\n") >= 2]
    out = []
    for k, t in enumerate(rng.sample(long, min(n, len(long)))):
        paras = t.strip().split("\n")
        if k % 5 == 4:
            said = [s for s in re.split(r"(?<=[。！？])", max(paras, key=len)) if s]
            out.append("".join(said[len(said) // 3 : 2 * len(said) // 3]))
        elif k % 4 == 0:
            out.append(f"编者按：第{k}篇转载，转载时加了一段评论，说明为什么值得再读一遍。\n{t}")
        elif k % 4 == 1:
            out.append("\n".join(paras[: max(1, 2 * len(paras) // 3)]))
        elif k % 4 == 2:
            out.append(t + "\n" + rng.choice(long).strip().split("\n")[0])
        else:
            lead = paras[0].translate(str.maketrans("0123456789", "3456789012"))
            out.append("\n".join([lead.replace("习近平", "王沪宁") + "2026年3月5日。", *paras[1:]]))
    return out


def _edited_copies(texts, n, seed):
    """Copies of multi-paragraph texts whose every paragraph gained a long sentence of another
    text: no paragraph is a copy of its source's, most of each is shared (``overlap``)."""
    rng = random.Random(seed)
    long = [t for t in texts if t.strip().count("\n") >= 2]
    out = []
    for t in rng.sample(long, min(n, len(long))):
        other = rng.choice(long).strip().split("\n")
        out.append("\n".join(p + rng.choice(other) for p in t.strip().split("\n")))
    return out


@pytest.mark.parametrize(("keep", "overlap"), [("first", None), ("longest", None), ("first", 0.5)])
def test_same_clusters_as_local_paragraph_copy_evidence(
    spark, tmp_path, corpus_texts, keep, overlap
):
    texts = corpus_texts[:800] + _partial_copies(corpus_texts, 60, seed=11)
    texts += _edited_copies(corpus_texts, 30, seed=12)
    random.Random(3).shuffle(texts)
    source = _write_jsonl(tmp_path / "corpus.jsonl", texts)
    options = {} if overlap is None else {"overlap": overlap}
    extra = [a for k, v in options.items() for a in ("--option", f"{k}={v}")]
    local_out = _local(tmp_path, source, "--method", "paragraph", "--keep", keep, *extra)
    spark_out, summary = _spark(
        spark, tmp_path, source, method="paragraph", keep=keep, options=options
    )
    rows = _assert_same(local_out, spark_out)
    assert sum(r["method"] == "paragraph" for r in rows) > 5
    assert summary["engine"]["matched_paragraph_pairs"] > 0 and summary["outputs"]["tables"]
    assert summary["engine"]["substituted_document_pairs"] > 0  # template pairs kept apart
    local_table = np.load(local_out / "common_grams.npz")["values"]
    assert np.array_equal(np.load(spark_out / "common_grams.npz")["values"], local_table)
    if overlap is not None:  # the option reached the executors: it changes what is removed
        plain = _local(tmp_path / "plain", source, "--method", "paragraph", "--keep", keep)
        assert _clusters(plain) != _clusters(local_out)


def test_english_paragraph_copies_like_local(spark, tmp_path):
    """Alphabetic text (word grams): the common-gram table fitted over the partitions, the
    verdicts and the clusters equal the local run's; the planted repost and the copy under a
    re-written headline are removed, the report whose two paragraphs change a figure each is
    kept, and so are two stories that share only their header and footer lines."""
    from wordstories import corpus, sentence, story

    texts, source_at = corpus(size=300)
    rng = random.Random(8)
    body = story(rng)
    texts += ["Bank holds interest rate at 4.75%\n\n" + body, "UK rates held at 4.75%\n\n" + body]
    paras = story(rng).split("\n\n")
    for figures in (("12", "31"), ("14", "37")):
        report = list(paras)
        report[0] += f" It rose {figures[0]} pct to 45 mln dlrs."
        report[2] += f" Shares were {figures[1]} cents."
        texts.append("\n\n".join(report))
    n = len(texts)
    # two one-sentence stories between one header and one footer line: a frame, not a copy
    frame = ("From our correspondents in London and New York today.", "Ends. Copyright ours.")
    texts += [f"{frame[0]}\n\n{sentence(rng)}\n\n{frame[1]}" for _ in range(2)]
    source = _write_jsonl(tmp_path / "corpus.jsonl", texts)
    local_out = _local(tmp_path, source, "--method", "paragraph", "--id-field", "id")
    spark_out, _summary = _spark(spark, tmp_path, source, method="paragraph", id_field="id")
    rows = {r["id"]: r for r in _assert_same(local_out, spark_out)}
    removed = {
        i: rows[f"d{i}"]["representative_id"]
        for i in range(len(texts))
        if rows[f"d{i}"]["representative_id"] != f"d{i}"
    }
    assert removed == {300: f"d{source_at}", n - 3: f"d{n - 4}"}
    local_table = np.load(local_out / "common_grams.npz")
    assert int(local_table["words"]) == 3
    assert np.array_equal(np.load(spark_out / "common_grams.npz")["values"], local_table["values"])


def test_numeral_typos_and_templates_like_local(spark, tmp_path):
    """Copy rule 21 decides in the Spark job as locally: the learners' typos that make or
    unmake a Chinese numeral are removed, the templates whose numerals differ are kept."""
    from numeral_pairs import NUMERAL_TEMPLATES, NUMERAL_TYPOS

    texts = [t for pair in NUMERAL_TYPOS + NUMERAL_TEMPLATES for t in pair]
    source = _write_jsonl(tmp_path / "numerals.jsonl", texts)
    local_out = _local(tmp_path, source, "--id-field", "id")
    spark_out, _summary = _spark(spark, tmp_path, source, id_field="id")
    rows = _assert_same(local_out, spark_out)
    removed = {r["id"]: r["representative_id"] for r in rows if r["representative_id"] != r["id"]}
    assert removed == {"d1": "d0", "d3": "d2", "d5": "d4"}


def test_paragraph_exact_copies_grouped_first_like_local(spark, tmp_path, corpus_texts):
    """A story repeated more often than the copy evidence's commonness limit (60 > 20
    documents; tests/test_replay.py holds the topic evidence's) and a copy too short to be
    paragraph evidence are still exact copies, removed by both surfaces as the copy of a
    document with the same text."""
    base = corpus_texts[:300]
    story = max(base, key=len)
    short = min((t for t in base if len(t.strip()) >= 4), key=len)
    texts = base + [story] * 60 + [short] * 2
    random.Random(5).shuffle(texts)
    source = _write_jsonl(tmp_path / "corpus.jsonl", texts)
    local_out = _local(tmp_path, source, "--method", "paragraph", "--id-field", "id")
    spark_out, summary = _spark(spark, tmp_path, source, method="paragraph", id_field="id")
    rows = {r["id"]: r for r in _assert_same(local_out, spark_out)}
    first = {}  # the oracle: each repeat is removed, kept with a text of the same words
    for i, t in enumerate(texts):
        first.setdefault(t, i)
    repeats = [i for i, t in enumerate(texts) if t in (story, short) and first[t] != i]
    assert len(repeats) >= 61
    for i in repeats:
        row = rows[f"d{i}"]
        assert row["representative_id"] != row["id"], i
        kept = texts[int(row["representative_id"][1:])]  # the same words, maybe other marks
        assert row["method"] == "exact" and _words(kept) == _words(texts[i]), i
    assert summary["engine"]["exact_copies"] >= 61


@pytest.mark.parametrize("method", ["ngram", "paragraph"])
def test_same_clusters_as_local_other_methods(spark, tmp_path, corpus_texts, method):
    source = _write_jsonl(tmp_path / "corpus.jsonl", corpus_texts[:1000])
    options = {"evidence": "topic"} if method == "paragraph" else {}  # the reference's prints
    extra = [a for k, v in options.items() for a in ("--option", f"{k}={v}")]
    local_out = _local(tmp_path, source, "--method", method, "--keep", "longest", *extra)
    spark_out, summary = _spark(
        spark, tmp_path, source, method=method, keep="longest", options=options
    )
    rows = _assert_same(local_out, spark_out)
    assert sum(r["method"] == method for r in rows) > 5
    assert summary["method"] == method
    if method == "paragraph":  # the topic evidence's count of paragraphs too short to print
        local = json.loads((local_out / "summary.json").read_text())["method_stats"]
        skipped = summary["engine"]["short_paragraphs_skipped"]
        assert skipped == local["short_paragraphs_skipped"] and skipped > 0


def test_bad_records_skipped_and_counted_like_local(spark, tmp_path, corpus_texts):
    extra = [
        b'{"id": "bad1", "text": ',  # malformed JSON
        b"",  # blank line: ignored, still numbered
        b'{"id": "bad2", "body": "no text field"}',
        b'{"id": "bad3", "text": "   "}',
        b'{"id": "d3", "text": "an id used twice"}',
        b"[1, 2]",
    ]
    source = _write_jsonl(tmp_path / "corpus.jsonl", corpus_texts[:300], extra_lines=extra)
    local_out = _local(tmp_path, source, "--id-field", "id", "--on-error", "skip")
    spark_out, summary = _spark(spark, tmp_path, source, id_field="id", on_error="skip")
    _assert_same(local_out, spark_out)
    assert summary["counts"]["skipped_by_reason"] == {
        "duplicate_id": 1,
        "empty_text": 1,
        "malformed_json": 1,
        "missing_text": 1,
        "not_an_object": 1,
    }
    skipped = sorted(glob.glob(str(spark_out / "skipped" / "part-*")))
    records = [orjson.loads(x) for f in skipped for x in Path(f).read_bytes().splitlines()]
    local_skipped = [
        orjson.loads(x) for x in (local_out / "skipped.jsonl").read_bytes().splitlines()
    ]
    assert [r["record"] for r in records] == [r["record"] for r in local_skipped]
    assert [r["reason"] for r in records] == [r["reason"] for r in local_skipped]


def test_line_ends_and_a_byte_order_mark_are_read_as_locally(spark, tmp_path, corpus_texts):
    """Lines end at "\n" alone: a "\r" inside a line (JSON whitespace) does not cut it, and
    "\r\n" stays in the kept records, byte for byte as locally (a leading byte order mark is
    read past alike and left out of both kept files: Hadoop's line reader drops it too)."""
    lines = [orjson.dumps({"id": f"d{i}", "text": t}) for i, t in enumerate(corpus_texts[:40])]
    lines[3] = lines[3][:-1] + b',\r"source": "x"}'  # a lone CR between two members
    body = b"\xef\xbb\xbf" + b"".join(
        line + (b"\r\n" if k % 2 else b"\n") for k, line in enumerate(lines)
    )
    source = tmp_path / "crlf.jsonl"
    copy = orjson.dumps({"id": "copy", "text": corpus_texts[5]})
    source.write_bytes(body + copy + b"\n")  # and one exact copy
    local_out = _local(tmp_path, str(source), "--id-field", "id")
    spark_out, _summary = _spark(spark, tmp_path, str(source), id_field="id")
    _assert_same(local_out, spark_out)
    parts = sorted(glob.glob(str(spark_out / "kept" / "part-*")))
    spark_kept = b"".join(Path(f).read_bytes() for f in parts)
    local_kept = (local_out / "kept.jsonl").read_bytes()
    assert not local_kept.startswith(b"\xef\xbb\xbf")  # no part of the first record
    assert spark_kept == local_kept


def test_an_output_that_is_a_file_is_refused_before_the_job(tmp_path, capsys):
    target = tmp_path / "outfile"
    target.write_text("precious")
    source = _write_jsonl(tmp_path / "c.jsonl", ["一段文字"])
    assert main(["spark-dedup", source, "-o", str(target), "--quiet"]) == 2
    assert "exists and is not a directory" in capsys.readouterr().err
    assert target.read_text() == "precious"


def test_outputs_that_are_not_a_runs_are_never_deleted(spark, tmp_path, corpus_texts):
    """The job deletes its outputs before writing them: an input under kept/, a user's files in
    kept/ or clusters/, or a summary.json or common_grams.npz that is not a run's, were lost.
    Refused before the job, as locally; a run's own outputs are replaced."""
    from neardup.spark.job import spark_dedup

    out = tmp_path / "spark"
    (out / "kept").mkdir(parents=True)
    source = _write_jsonl(out / "kept" / "data.jsonl", corpus_texts[:40])
    before = Path(source).read_bytes()
    with pytest.raises(ConfigError, match="is an output of a run into"):
        spark_dedup(spark, source, str(out))
    with pytest.raises(ConfigError, match="is an output of a run into"):
        spark_dedup(spark, str(out / "kept"), str(out), fmt="jsonl")
    assert Path(source).read_bytes() == before
    source = _write_jsonl(tmp_path / "c.jsonl", corpus_texts[:40])
    with pytest.raises(InputError, match="kept is not an output of an earlier run"):
        spark_dedup(spark, source, str(out))
    assert Path(out / "kept" / "data.jsonl").read_bytes() == before
    (out / "kept" / "data.jsonl").unlink()
    for name, mine in (
        ("clusters/mine.csv", "a,b"),
        ("summary.json", "{}"),
        ("common_grams.npz", "x"),
    ):
        (out / name).parent.mkdir(exist_ok=True)
        (out / name).write_text(mine)
        with pytest.raises(InputError, match=name.split("/")[0]):
            spark_dedup(spark, source, str(out))
        assert (out / name).read_text() == mine
        (out / name).unlink()
    spark_dedup(spark, source, str(out))
    spark_dedup(spark, source, str(out))  # its own outputs: replaced
    assert (out / "summary.json").exists() and list((out / "kept").glob("part-*"))


def test_bad_record_fails_naming_it(spark, tmp_path, corpus_texts):
    source = _write_jsonl(tmp_path / "c.jsonl", corpus_texts[:50], extra_lines=[b"{oops"])
    with pytest.raises(InputError, match=r"record 51"):
        _spark(spark, tmp_path, source)


def test_parquet_input_and_output(spark, tmp_path, corpus_texts):
    texts = corpus_texts[:1500]
    table = pa.table({"doc": [f"p{i}" for i in range(len(texts))], "body": texts})
    source = str(tmp_path / "corpus.parquet")
    pq.write_table(table, source, row_group_size=200)
    local_out = _local(tmp_path, source, "--id-field", "doc", "--text-field", "body")
    spark_out, _ = _spark(spark, tmp_path, source, id_field="doc", text_field="body")
    _assert_same(local_out, spark_out)
    kept_spark = pq.read_table(str(spark_out / "kept")).to_pylist()
    kept_local = pq.read_table(str(local_out / "kept.parquet")).to_pylist()
    assert kept_spark == kept_local


def test_unsupported_options_are_clear(spark, tmp_path):
    source = _write_jsonl(tmp_path / "c.jsonl", ["a text", "another text"])
    with pytest.raises(ConfigError, match="neardup dedup --partial"):
        _spark(spark, tmp_path, source, options={"partial": True})
    with pytest.raises(ConfigError, match="idf='corpus'"):
        _spark(
            spark, tmp_path, source, method="simhash", options={"weights": "tfidf", "idf": "corpus"}
        )
    with pytest.raises(ConfigError, match="zstd"):
        _spark(spark, tmp_path, str(tmp_path / "c.jsonl.zst"))


def test_missing_input_and_unsupported_method_are_clear(tmp_path, spark, capsys):
    missing = str(tmp_path / "nothing.jsonl")
    assert main(["spark-dedup", missing, "-o", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "nothing.jsonl: no such file or directory" in err and "Traceback" not in err
    bad_table = tmp_path / "t.npz"
    bad_table.write_bytes(b"not a table")
    assert (
        main(["spark-dedup", missing, "-o", str(tmp_path / "o"), "--tables", str(bad_table)]) == 2
    )
    err = capsys.readouterr().err
    assert "t.npz: not a neardup common-gram table" in err and "Traceback" not in err


def test_cli_spark_dedup(tmp_path, corpus_texts, spark):
    source = _write_jsonl(tmp_path / "corpus.jsonl", corpus_texts[:400])
    out = tmp_path / "cli"
    code = main(["spark-dedup", source, "-o", str(out), "--master", "local[2]", "--quiet"])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    c = summary["counts"]
    assert c["records_read"] == 400 == c["kept"] + c["duplicates_removed"] + c["skipped"]


@pytest.mark.parametrize("method", ["simhash", "ngram"])
def test_texts_with_nothing_left_once_normalised_are_never_matched_as_locally(
    spark, tmp_path, corpus_texts, method
):
    """Markup alone normalises to nothing: such texts match nothing, not even each other, on
    the cluster as on one machine."""
    empty = ["<p></p>", "<br/>", "&nbsp;", "<p></p>", "<div> </div>"]
    source = _write_jsonl(tmp_path / "corpus.jsonl", corpus_texts[:300] + empty)
    local_out = _local(tmp_path, source, "--id-field", "id", "--method", method)
    spark_out, _summary = _spark(spark, tmp_path, source, id_field="id", method=method)
    rows = _assert_same(local_out, spark_out)
    for row in rows[300:]:
        assert row["representative_id"] == row["id"]
    assert sum(r["representative_id"] != r["id"] for r in rows[:300]) > 0


def test_a_spark_that_cannot_start_is_an_error_naming_the_settings(tmp_path):
    """``--master bogus`` ended in pyspark's JAVA_GATEWAY_EXITED traceback (exit 1); it is an
    error naming --master and --conf (exit 2). Run in a fresh interpreter: this one's session
    would be reused whatever the master."""
    import subprocess
    import sys

    source = _write_jsonl(tmp_path / "in.jsonl", ["今天天气很好", "明天会下雨"])
    run = subprocess.run(
        [sys.executable, "-m", "neardup", "spark-dedup", source, "-o", str(tmp_path / "o"),
         "--master", "bogus", "--quiet"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 2
    assert "neardup: error: Spark did not start (--master bogus" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    "given", [["--pairs"], ["--report"], ["--clusters", "components"], ["--partial"]]
)
def test_options_only_the_batch_command_has_are_refused_with_the_reason(tmp_path, capsys, given):
    """They were "unrecognized arguments" under the top-level usage; now the reason, before a
    session starts."""
    source = _write_jsonl(tmp_path / "in.jsonl", ["今天天气很好", "明天会下雨"])
    code = main(["spark-dedup", source, "-o", str(tmp_path / "o"), *given, "--quiet"])
    assert code == 2
    assert f"{given[0]} is an option of `neardup dedup`, not of spark-dedup" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("on_error", ["fail", "skip"])
def test_an_input_without_records_is_said_not_a_traceback(spark, tmp_path, on_error):
    """An empty file crashed the job in ``countByKey`` (``Can not reduce() empty RDD``)."""
    source = tmp_path / "empty.jsonl"
    source.write_bytes(b"")
    with pytest.raises(InputError, match="holds no records"):
        _spark(spark, tmp_path, str(source), on_error=on_error)


def test_field_names_no_record_holds_are_refused_under_skip_like_local(
    spark, tmp_path, corpus_texts, capsys
):
    """``--on-error skip`` with a misspelt ``--text-field`` "succeeded" with every record
    skipped; the local command refuses it (a setting, not bad records), and so does the job."""
    source = _write_jsonl(tmp_path / "c.jsonl", corpus_texts[:40])
    args = ["dedup", source, "-o", str(tmp_path / "local"), "--text-field", "body"]
    assert main([*args, "--on-error", "skip", "--quiet"]) == 2
    assert "no record holds the fields asked for: all 40 were skipped" in capsys.readouterr().err
    for options in ({"text_field": "body"}, {"id_field": "ident"}):
        with pytest.raises(InputError, match=r"record 1: no record holds the fields asked for"):
            _spark(spark, tmp_path, source, on_error="skip", **options)


def test_a_file_named_with_glob_characters_or_a_comma_is_read_as_named(
    spark, tmp_path, corpus_texts
):
    """Hadoop took the input path for a pattern and a list: ``x[1].jsonl`` was read as
    ``x1.jsonl`` beside it (another file, silently, under a summary naming the first), and
    ``news,2023.jsonl`` failed as two paths. A file that exists under its name is that file."""
    (tmp_path / "in").mkdir()
    named = _write_jsonl(tmp_path / "in" / "x[1].jsonl", corpus_texts[:60])
    _write_jsonl(tmp_path / "in" / "x1.jsonl", corpus_texts[100:130])  # what the pattern matches
    local = _local(tmp_path, named)
    out, summary = _spark(spark, tmp_path, named)
    assert summary["counts"]["records_read"] == 60
    _assert_same(local, out)
    comma = _write_jsonl(tmp_path / "in" / "news,2023.jsonl", corpus_texts[:60])
    again = tmp_path / "again"
    again.mkdir()
    out, summary = _spark(spark, again, comma)
    assert summary["counts"]["records_read"] == 60
    _assert_same(local, out)


def test_help_offers_only_what_the_spark_job_does(capsys):
    """--partial and --idf corpus were in spark-dedup --help, and the job refused both."""
    with pytest.raises(SystemExit):
        main(["spark-dedup", "--help"])
    spark_help = " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):
        main(["dedup", "--help"])
    dedup_help = " ".join(capsys.readouterr().out.split())
    assert "--partial" in dedup_help and "corpus (fitted on the input)" in dedup_help
    assert "--partial" not in spark_help and "corpus" not in spark_help.split("--idf IDF")[-1]


def test_the_spark_submit_entry_runs_as_a_script():
    """docs/spark.md hands spark-submit the file neardup/spark/submit.py, which Python runs as
    a script: its relative import failed (ImportError) before any argument was read."""
    import subprocess
    import sys

    import neardup.spark.submit as entry

    run = subprocess.run(
        [sys.executable, entry.__file__, "--help"], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert "usage: neardup spark-dedup" in run.stdout


def test_keep_container_is_refused_as_a_batch_choice(tmp_path, capsys):
    """``--keep container`` was "invalid choice" (and the library's message listed the rules
    without the reason): it orders one local run by its containment evidence."""
    source = _write_jsonl(tmp_path / "in.jsonl", ["今天天气很好", "明天会下雨"])
    with pytest.raises(SystemExit):
        main(
            [
                "spark-dedup",
                source,
                "-o",
                str(tmp_path / "o"),
                "--method",
                "paragraph",
                "--keep",
                "container",
                "--quiet",
            ]
        )
    err = capsys.readouterr().err
    assert "batch choice of `neardup dedup`" in err and "invalid choice" not in err, err
    from neardup.spark.job import _checked_config

    with pytest.raises(ConfigError, match="batch choice of `neardup dedup`"):
        _checked_config("paragraph", {}, keep="container", on_error="fail")
