"""`neardup eval` end to end: numbers against an independent count, errors, the page in Chromium."""

import gzip
import itertools
import json
import time

import orjson
import pytest

import reference
from browser import chromium_or_skip, console_errors, distinct_grey_levels, load_page
from neardup.cli import main
from neardup.normalize import normalize

BASE = [
    "今天天气很好我们一起去公园散步吧",
    "国务院召开常务会议部署稳外贸稳外资措施",
    "北京市发布暴雨蓝色预警提醒市民注意出行安全",
    "全国规模以上工业增加值同比增长百分之五",
    "教育部发布通知要求做好高校毕业生就业工作",
    "央行宣布下调金融机构存款准备金率零点五个百分点",
]


def jaccard(a, b):
    ga, gb = set(reference.char_grams(normalize(a), 3)), set(reference.char_grams(normalize(b), 3))
    return 1.0 if not ga and not gb else len(ga & gb) / len(ga | gb)


def pairs_rows():
    rows = []
    for i, t in enumerate(BASE):
        rows.append({"text1": t, "text2": t.replace("的", "地") + "！", "label": 1})
        rows.append({"text1": t, "text2": t[: len(t) // 2] + "完全不同的结尾内容", "label": i % 2})
        rows.append({"text1": t, "text2": BASE[(i + 1) % len(BASE)], "label": 0})
    return rows


def write_jsonl(path, rows):
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return str(path)


def test_pairs_report_numbers_equal_a_direct_count(tmp_path):
    rows = pairs_rows()
    data = write_jsonl(tmp_path / "pairs.jsonl", rows)
    out = tmp_path / "report"
    assert (
        main(["eval", data, "--methods", "ngram,simhash", "--sweep", "-o", str(out), "--quiet"])
        == 0
    )
    report = json.loads((out / "report.json").read_text())
    assert report["kind"] == "pairs" and report["records"] == len(rows)
    assert len(report["sha256"]) == 64 and report["neardup_version"]
    ngram = report["results"]["ngram"]
    sims = [jaccard(r["text1"], r["text2"]) for r in rows]
    pred = [s >= 0.5 for s in sims]
    gold = [r["label"] == 1 for r in rows]
    tp = sum(p and g for p, g in zip(pred, gold, strict=True))
    fp = sum(p and not g for p, g in zip(pred, gold, strict=True))
    fn = sum(g and not p for p, g in zip(pred, gold, strict=True))
    d = ngram["at_default_threshold"]
    assert (d["true_positives"], d["false_positives"], d["false_negatives"]) == (tp, fp, fn)
    assert ngram["scores"]["all"] == pytest.approx(sims, abs=1e-6)
    best = ngram["best_f1"]
    assert best["f1"] >= d["f1"] - 1e-9
    assert (
        set(report["results"]) == {"ngram", "simhash"} and "sweep" in report["results"]["simhash"]
    )


def test_clusters_report_equals_pair_enumeration(tmp_path):
    rows, cluster = [], 0
    for t in BASE:
        rows.append({"id": f"a{cluster}", "text": t, "cluster": cluster})
        rows.append({"id": f"b{cluster}", "text": t + "。", "cluster": cluster})
        cluster += 1
    rows.append({"id": "x", "text": BASE[0][:8] + "另一件事情的报道内容", "cluster": cluster})
    data = write_jsonl(tmp_path / "corpus.jsonl", rows)
    out = tmp_path / "report"
    assert main(["eval", data, "--method", "ngram", "-o", str(out), "--quiet"]) == 0
    report = json.loads((out / "report.json").read_text())
    s = report["results"]["ngram"]["scores"]
    gold_pairs = sum(
        1
        for i, j in itertools.combinations(range(len(rows)), 2)
        if rows[i]["cluster"] == rows[j]["cluster"]
    )
    assert s["gold_pairs"] == gold_pairs == len(BASE)
    assert 0.0 <= s["precision"] <= 1.0 and s["recall"] == pytest.approx(
        s["correct_pairs"] / gold_pairs
    )
    assert report["results"]["ngram"]["documents_per_second"] > 0
    assert report["records"] == len(rows)  # was 2 whatever the size (the ids were overwritten)


def test_a_bad_last_record_of_a_clustered_corpus_is_skipped_not_the_corpus(tmp_path):
    """With ``--on-error skip``, a clustered corpus whose last record has no id was refused as
    holding no usable documents: the list of ids was replaced by each record's own."""
    rows = [{"id": f"d{i}", "text": t, "cluster": i // 2} for i, t in enumerate(BASE)]
    rows.append({"id": None, "text": "一条没有编号的记录", "cluster": 99})
    data = write_jsonl(tmp_path / "corpus.jsonl", rows)
    out = tmp_path / "report"
    args = ["eval", data, "--method", "ngram", "-o", str(out), "--quiet", "--on-error", "skip"]
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["records"] == len(BASE) and sum(report["skipped"].values()) == 1
    gold_pairs = sum(1 for i, j in itertools.combinations(range(len(BASE)), 2) if i // 2 == j // 2)
    assert report["results"]["ngram"]["scores"]["gold_pairs"] == gold_pairs


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"text1": "a", "label": 1}\n', "cannot tell the kind"),
        (b'{"text1": "ab", "text2": "cd", "score": 1}\n', "no field 'label'"),
        (b'{"text1": "ab", "text2": "cd", "label": 2}\n', "label 2 is not 0 or 1"),
        (b'{"text1": "ab", "text2": "", "label": 1}\n', "text2 is not a non-empty string"),
        (b'{"text1": "ab", "text2": "cd", "label": 1}\n{oops\n', "record 2"),
        (b"", "holds no records"),
        (
            b'{"id": 1, "text": "a", "cluster": 1}\n{"id": 1, "text": "b", "cluster": 2}\n',
            "already used by record 1",
        ),
    ],
)
def test_malformed_data_is_named(tmp_path, capsys, content, message):
    path = tmp_path / "data.jsonl"
    path.write_bytes(content)
    assert main(["eval", str(path), "-o", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert message in err and "data.jsonl" in err and "Traceback" not in err


def test_unknown_ids_and_skips(tmp_path, capsys):
    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [{"id": "a", "text": "今天天气很好"}, {"id": "b", "text": "今天天气真好"}],
    )
    pairs = write_jsonl(
        tmp_path / "pairs.jsonl",
        [{"id1": "a", "id2": "b", "label": 1}, {"id1": "a", "id2": "zz", "label": 0}],
    )
    out = str(tmp_path / "r")
    assert main(["eval", pairs, "--corpus", corpus, "-o", out]) == 2
    assert "id 'zz' is not in the corpus" in capsys.readouterr().err
    assert (
        main(["eval", pairs, "--corpus", corpus, "-o", out, "--on-error", "skip", "--quiet"]) == 0
    )
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["records"] == 1 and report["skipped"] == {"unknown_id": 1}


def test_malformed_lines_are_skipped_and_counted_with_on_error_skip(tmp_path, capsys):
    path = tmp_path / "pairs.jsonl"
    rows = [{"text1": "今天天气很好", "text2": "今天天气很好啊", "label": 1}]
    path.write_bytes(b"not json\n" + "".join(json.dumps(r) + "\n" for r in rows).encode())
    out = str(tmp_path / "r")
    assert main(["eval", str(path), "-o", out, "--quiet"]) == 2
    assert "record 1: not valid JSON" in capsys.readouterr().err
    assert main(["eval", str(path), "-o", out, "--on-error", "skip", "--quiet"]) == 0
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["records"] == 1 and report["skipped"] == {"malformed_json": 1}


@pytest.mark.browser
def test_report_page_in_headless_chromium(tmp_path):
    chromium_or_skip()
    data = write_jsonl(tmp_path / "pairs.jsonl", pairs_rows())
    out = tmp_path / "report"
    assert (
        main(["eval", data, "--methods", "simhash,ngram", "--sweep", "-o", str(out), "--quiet"])
        == 0
    )
    page = load_page(out / "report.html", tmp_path)
    # the page's own script ran and counted the plots the browser parsed: 2 methods x 2 plots
    assert "plots: 4" in page.dom
    assert console_errors(page.log) == []
    assert distinct_grey_levels(page.screenshot) > 20  # text and plots, not a blank page


def test_simhash_verification_decides_as_dedup_and_compare(tmp_path):
    from neardup.methods import create

    base = "国务院召开常务会议部署稳外贸稳外资措施要求各地区各部门认真落实"
    near = "的" + base[1:]  # within max_distance, verified Jaccard 0.93
    options = {"verify": "jaccard", "min_similarity": 0.99}
    verdict = create("simhash", **options).compare(base, near)
    assert verdict["hamming_distance"] <= 3 and not verdict["duplicate"]
    data = write_jsonl(tmp_path / "pairs.jsonl", [{"text1": base, "text2": near, "label": 0}])
    out = tmp_path / "r"
    args = ["eval", data, "--method", "simhash", "--sweep", "-o", str(out), "--quiet"]
    args += [f"--option=simhash.{k}={v}" for k, v in options.items()]
    assert main(args) == 0
    entry = json.loads((out / "report.json").read_text())["results"]["simhash"]
    assert entry["at_default_threshold"]["false_positives"] == 0
    assert entry["at_default_threshold"]["true_negatives"] == 1
    assert entry["verification"]["similarity"] == [pytest.approx(verdict["verified_similarity"])]
    assert entry["sweep"]["thresholds"] == []  # no threshold on the distance makes it one


def test_corpus_repeated_id_and_empty_text(tmp_path, capsys):
    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [
            {"id": "a", "text": "今天天气很好"},
            {"id": "b", "text": "今天天气真好"},
            {"id": "a", "text": "别的内容"},
            {"id": "c", "text": "  "},
        ],
    )
    pairs = write_jsonl(tmp_path / "pairs.jsonl", [{"id1": "a", "id2": "b", "label": 1}])
    out = str(tmp_path / "r")
    assert main(["eval", pairs, "--corpus", corpus, "-o", out, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "corpus.jsonl, record 3: id 'a' already used by record 1" in err
    assert (
        main(["eval", pairs, "--corpus", corpus, "-o", out, "--on-error", "skip", "--quiet"]) == 0
    )
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["skipped"] == {"corpus_duplicate_id": 1, "corpus_bad_text": 1}
    assert report["results"]["auto"]["at_default_threshold"]["true_positives"] == 1  # kept: first


def error_then_skip(path, out, capsys, message: str, *, told: bool = False) -> dict:
    """``eval`` on ``path``: exit 2 naming the file and ``message``, no traceback; with
    ``--on-error skip`` a run (``told``: the skip said on stderr even with --quiet); its report."""
    assert main(["eval", str(path), "-o", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{path.name}, record" in err and message in err and "Traceback" not in err, err
    assert main(["eval", str(path), "-o", str(out), "--quiet", "--on-error", "skip"]) == 0
    err = capsys.readouterr().err
    if told:
        assert message in err
    return json.loads((out / "report.json").read_text())


def test_unreadable_files_are_errors_or_counted_skips(tmp_path, capsys):
    import gzip

    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_bytes(b"text1,text2,label\n\xff\xfebad,abc,1\n\xe4\xbb\x8a\xe5\xa4\xa9,abc,0\n")
    report = error_then_skip(bad_csv, tmp_path / "r1", capsys, "record 1: field 'text1' is not")
    assert report["records"] == 1 and report["skipped"] == {"invalid_utf8": 1}

    rows = pairs_rows() * 20
    whole = gzip.compress(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[:400])
    report = error_then_skip(cut, tmp_path / "r2", capsys, "truncated", told=True)
    assert 0 < report["records"] < len(rows) and report["skipped"] == {"truncated": 1}

    plain = write_jsonl(tmp_path / "plain.jsonl.gz", pairs_rows())
    for on_error in ("fail", "skip"):
        args = ["eval", plain, "-o", str(tmp_path / "r3"), "--on-error", on_error]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert "plain.jsonl.gz: not a readable .gz file" in err and "Traceback" not in err
    corpus = tmp_path / "corpus.csv"
    corpus.write_bytes(b"id,text\na,\xff\xfe\n")
    ids = write_jsonl(tmp_path / "ids.jsonl", [{"id1": "a", "id2": "a", "label": 1}])
    assert main(["eval", ids, "--corpus", str(corpus), "-o", str(tmp_path / "r4")]) == 2
    assert "corpus.csv, record 1: field 'text' is not valid UTF-8" in capsys.readouterr().err


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"text1": "a\xff", "text2": "b", "label": 1}\n', "record 1: not valid UTF-8"),
        (b'{"id1": "a", "id2": "b", "label": 1}\n', "give the corpus they refer to (--corpus"),
    ],
)
def test_the_real_reason_is_given(tmp_path, capsys, content, message):
    path = tmp_path / "data.jsonl"
    path.write_bytes(content)
    for on_error in ("fail", "skip"):
        assert main(["eval", str(path), "-o", str(tmp_path / "r"), "--on-error", on_error]) == 2
        err = capsys.readouterr().err
        assert message in err and "holds no records" not in err, err


def test_unclosed_csv_quote_is_named(tmp_path, capsys):
    path = tmp_path / "pairs.csv"
    path.write_text('text1,text2,label\n今天天气很好,今天天气真好,1\nabc,"def,1\nxyz,uvw,0\n')
    report = error_then_skip(path, tmp_path / "r", capsys, "record 2: a quoted field is never")
    assert report["records"] == 1 and report["skipped"] == {"unclosed_quote": 1}


def test_small_thresholds_are_not_shown_as_zero(tmp_path):
    from neardup.evaluate.report import _score, _threshold

    assert (_threshold(1e-06), _threshold(0.0), _score(0.5)) == ("1e-06", "0", "0.500")


def test_cluster_labels_are_read_like_ids(tmp_path):
    rows = [
        {"id": "a", "text": BASE[0], "cluster": 1},
        {"id": "b", "text": BASE[0] + "。", "cluster": "1"},
        {"id": "c", "text": BASE[0] + "！", "cluster": 1.0},
        {"id": "d", "text": BASE[1], "cluster": 2},
    ]
    data = write_jsonl(tmp_path / "corpus.jsonl", rows)
    out = tmp_path / "r"
    assert main(["eval", data, "--method", "ngram", "-o", str(out), "--quiet"]) == 0
    entry = json.loads((out / "report.json").read_text())["results"]["ngram"]
    assert entry["gold_clusters"] == 2 and entry["scores"]["gold_pairs"] == 3


def test_labels_in_csv_cells_read_as_their_json_values(tmp_path, capsys):
    """A CSV cluster cell "1.0" was another cluster than "1", and empty cells made one cluster
    of every unlabelled document; pair labels "1.0" and "true" were refused."""
    rows = [("a", BASE[0], "1"), ("b", BASE[0] + "。", "1.0"), ("c", BASE[1], " 2 ")]
    data = tmp_path / "corpus.csv"
    data.write_text("id,text,cluster\n" + "".join(f"{i},{t},{c}\n" for i, t, c in rows))
    out = tmp_path / "r"
    assert main(["eval", str(data), "--method", "ngram", "-o", str(out), "--quiet"]) == 0
    entry = json.loads((out / "report.json").read_text())["results"]["ngram"]
    assert entry["gold_clusters"] == 2 and entry["scores"]["gold_pairs"] == 1
    big = [f"{BASE[k]},179000000000000000{k}" for k in range(3)]  # not merged through float()
    data.write_text("id,text,cluster\n" + "".join(f"{k},{b}\n" for k, b in enumerate(big)))
    assert main(["eval", str(data), "--method", "ngram", "-o", str(tmp_path / "b"), "--quiet"]) == 0
    assert (
        json.loads((tmp_path / "b" / "report.json").read_text())["results"]["ngram"][
            "gold_clusters"
        ]
        == 3
    )
    data.write_text("id,text,cluster\na,x,1\nb,y,\nc,z,\n")
    assert main(["eval", str(data), "--method", "ngram", "-o", str(tmp_path / "e")]) == 2
    assert "record 2: cluster '' is not a label" in capsys.readouterr().err
    pairs = tmp_path / "pairs.csv"
    cells = ["1.0", "true", "True", "0.0", "false", "1", "0"]
    pairs.write_text("text1,text2,label\n" + "".join(f"{BASE[0]},{BASE[0]}。,{c}\n" for c in cells))
    out = tmp_path / "p"
    assert main(["eval", str(pairs), "--method", "ngram", "-o", str(out), "--quiet"]) == 0
    assert json.loads((out / "report.json").read_text())["positives"] == 4


def test_options_that_would_do_nothing_are_said(tmp_path, capsys):
    """An empty --methods ran the default silently; --sweep on a clustered corpus was ignored
    silently; an unknown --option was named as a flag the user never gave."""
    pairs = write_jsonl(tmp_path / "pairs.jsonl", pairs_rows())
    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [{"id": str(i), "text": t, "cluster": i} for i, t in enumerate(BASE)],
    )
    assert main(["eval", pairs, "--methods", "", "-o", str(tmp_path / "a")]) == 2
    assert "unknown method ''" in capsys.readouterr().err
    assert main(["eval", pairs, "--option", "auto.nope=4", "-o", str(tmp_path / "b")]) == 2
    assert "does not take --option nope" in capsys.readouterr().err
    assert main(["eval", corpus, "--sweep", "-o", str(tmp_path / "c"), "--quiet"]) == 0
    assert "--sweep scores labelled pairs" in capsys.readouterr().err
    # an option for a method the run does not evaluate was said to have the wrong form
    assert main(["eval", pairs, "--option", "simhash.max_distance=4", "-o", str(tmp_path)]) == 2
    assert "is for method 'simhash', which this run does not evaluate" in capsys.readouterr().err
    assert main(["eval", pairs, "--methods", "simhash,simhash", "-o", str(tmp_path / "d")]) == 2
    assert "names a method twice" in capsys.readouterr().err


def test_integer_ids_and_labels_beyond_64_bits_are_read_as_written(tmp_path):
    """orjson rounds an integer of more than 64 bits to a float: two ids (or cluster labels)
    that differ in their last digits became one — a "repeated id" error, or one cluster."""
    from neardup.evaluate.datasets import load_corpus

    big = 2**64 + 1
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        f'{{"id": {big}, "text": "第一条文本内容"}}\n{{"id": {big + 2}, "text": "第二条文本"}}\n',
        encoding="utf-8",
    )
    assert list(load_corpus(path).texts) == [str(big), str(big + 2)]


def test_the_kind_is_told_by_the_field_names_given(tmp_path, capsys):
    """--cluster-field was not used to tell the kind: records {id, text, group} with
    --cluster-field group were 'cannot tell the kind of data' unless --kind clusters."""
    rows = [
        {"id": "a", "text": BASE[0], "group": 1},
        {"id": "b", "text": BASE[0] + "。", "group": 1},
        {"id": "c", "text": BASE[1], "group": 2},
    ]
    data = write_jsonl(tmp_path / "corpus.jsonl", rows)
    out = tmp_path / "r"
    args = ["eval", data, "--method", "ngram", "-o", str(out), "--quiet"]
    assert main([*args, "--cluster-field", "group"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["kind"] == "clusters" and report["label_field"] == "group"
    entry = report["results"]["ngram"]
    assert entry["gold_clusters"] == 2 and entry["scores"]["gold_pairs"] == 1
    assert main([*args, "--cluster-field", "topic"]) == 2  # a name the records lack: named
    err = capsys.readouterr().err
    assert "a clustered corpus needs id, text and topic" in err and "fields: group, id, text" in err


@pytest.mark.parametrize(
    "kind, option, belongs",
    [
        ("clusters", ["--corpus", "/nonexistent.jsonl"], "labelled pairs"),
        ("clusters", ["--label-field", "near_copy"], "labelled pairs"),
        ("pairs", ["--cluster-field", "group"], "a clustered corpus"),
    ],
)
def test_an_option_of_the_other_kind_of_data_is_refused(tmp_path, capsys, kind, option, belongs):
    """Each ran to exit 0 without a word: the --corpus file was not even opened."""
    rows = (
        pairs_rows()
        if kind == "pairs"
        else [{"id": str(i), "text": t, "cluster": i} for i, t in enumerate(BASE)]
    )
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    out = tmp_path / "r"
    for forced in ([], ["--kind", kind]):
        assert main(["eval", data, *option, *forced, "-o", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"{option[0]} is an option of {belongs}" in err and "data.jsonl" in err, err
        assert "no such file" not in err and not out.exists()


@pytest.mark.parametrize("bad_id", [None, [1, 2], True, 1.0])
def test_ids_are_read_as_dedup_reads_them(tmp_path, capsys, bad_id):
    """Null, list, boolean and float ids became text ("None", "[1, 2]", "True", "1.0") and were
    taken; two null ids were 'id 'None' already used by record 1'. The oracle is neardup dedup
    --id-field on the same file: its message for the record, its reader's skips by reason."""
    from collections import Counter

    from neardup.readers import RecordReader, Skipped

    rows = [
        {"id": bad_id, "text": BASE[0], "cluster": 1},
        {"id": "a", "text": BASE[1], "cluster": 2},
        {"id": bad_id, "text": BASE[2], "cluster": 3},
        {"id": 7, "text": BASE[3], "cluster": 3},
    ]
    data = write_jsonl(tmp_path / "corpus.jsonl", rows)
    assert main(["dedup", data, "--id-field", "id", "-o", str(tmp_path / "d")]) == 2
    want = capsys.readouterr().err
    assert "corpus.jsonl, record 1: " in want
    out = tmp_path / "r"
    assert main(["eval", data, "--method", "ngram", "-o", str(out), "--quiet"]) == 2
    assert capsys.readouterr().err == want
    reader = RecordReader(data, id_field="id", on_error="skip")
    reasons = Counter(item.reason for item in reader if isinstance(item, Skipped))
    assert sum(reasons.values()) == 2
    args = ["eval", data, "--method", "ngram", "-o", str(out), "--quiet", "--on-error", "skip"]
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["skipped"] == dict(reasons) and report["records"] == 2


def test_corpus_and_pair_ids_are_read_as_dedup_reads_them(tmp_path, capsys):
    """A pair's "id1": "None" resolved to the corpus record whose id is null."""
    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [{"id": None, "text": BASE[0]}, {"id": "b", "text": BASE[1]}, {"id": 3, "text": BASE[2]}],
    )
    pairs = write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {"id1": "None", "id2": "b", "label": 0},
            {"id1": "b", "id2": 3, "label": 1},
            {"id1": "b", "id2": 3.0, "label": 1},
        ],
    )
    out = tmp_path / "r"
    args = ["eval", pairs, "--corpus", corpus, "--method", "ngram", "-o", str(out), "--quiet"]
    assert main(args) == 2
    assert "corpus.jsonl, record 1: id field 'id' is null" in capsys.readouterr().err
    assert main([*args, "--on-error", "skip"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["records"] == 1  # "b" and the integer 3, read as "3"
    assert report["skipped"] == {"corpus_missing_id": 1, "unknown_id": 1, "bad_id": 1}
    one = write_jsonl(tmp_path / "one.jsonl", [{"id1": "b", "id2": 3.0, "label": 1}])
    assert main(["eval", one, "--corpus", corpus, "-o", str(out), "--on-error", "skip"]) == 2
    err = capsys.readouterr().err
    assert "record 1: id field 'id2' is float, not a string or integer" in err


def test_a_pairs_own_id_is_not_read(tmp_path):
    """docs/evaluation.md: a repeated id is an error for documents (a clustered corpus, the
    --corpus file); a pair's own id, which eval does not use, is not checked (pinned here)."""
    rows = [{**r, "id": "p1" if i % 2 else None} for i, r in enumerate(pairs_rows())]
    data = write_jsonl(tmp_path / "pairs.jsonl", rows)
    out = tmp_path / "r"
    assert main(["eval", data, "--method", "ngram", "-o", str(out), "--quiet"]) == 0
    assert json.loads((out / "report.json").read_text())["records"] == len(rows)


def test_files_eval_did_not_write_are_not_replaced(tmp_path, capsys):
    """eval -o DIR overwrote the report.html `neardup dedup --report` wrote there (then `neardup
    report DIR` failed: 'not a report neardup wrote'), and any report.json of the user's."""
    docs = write_jsonl(tmp_path / "docs.jsonl", [{"id": i, "text": t} for i, t in enumerate(BASE)])
    pairs = write_jsonl(tmp_path / "pairs.jsonl", pairs_rows())
    out = tmp_path / "out"
    assert main(["dedup", docs, "-o", str(out), "--report", "--quiet"]) == 0
    page = (out / "report.html").read_bytes()
    args = ["eval", pairs, "--method", "ngram", "--quiet", "-o"]
    assert main([*args, str(out)]) == 2
    err = capsys.readouterr().err
    assert "report.html was not written by neardup eval" in err and "move it" in err
    assert (out / "report.html").read_bytes() == page and not (out / "report.json").exists()
    assert main(["report", str(out)]) == 0  # dedup's report is still dedup's
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "report.json").write_text('{"my": "numbers"}\n')
    assert main([*args, str(mine)]) == 2
    assert "report.json was not written by neardup eval" in capsys.readouterr().err
    assert (mine / "report.json").read_text() == '{"my": "numbers"}\n'
    again = tmp_path / "again"  # an earlier eval's report is replaced
    assert main([*args, str(again)]) == 0 and main([*args, str(again)]) == 0


COMPILE = 0.4  # seconds a method's first call stands in for compiling its kernels


def slow_first_call(monkeypatch, cls, name):
    """``cls.name`` as on a fresh install: its first call in the process takes ``COMPILE``
    seconds more (numba compiling), the later ones are as fast as ever."""
    original, calls = getattr(cls, name), []

    def call(self, *args, **kwargs):
        if not calls:
            time.sleep(COMPILE)
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, call)
    return calls


def test_speed_is_timed_after_a_warm_up(tmp_path, monkeypatch):
    """pairs/s and docs/s counted numba's first-call compile time: a fresh checkout's auto
    scored 155 pairs/s cold where it scores 5,662 warm."""
    from neardup.methods.ngram import NgramMethod

    calls = slow_first_call(monkeypatch, NgramMethod, "score_pairs")
    data = write_jsonl(tmp_path / "pairs.jsonl", pairs_rows())
    out = tmp_path / "r"
    assert main(["eval", data, "--method", "ngram", "-o", str(out), "--quiet"]) == 0
    report = json.loads((out / "report.json").read_text())
    seconds = report["results"]["ngram"]["seconds"]
    assert len(calls) == 2 and seconds["warm_up"] >= COMPILE > seconds["score"]
    assert report["results"]["ngram"]["pairs_per_second"] > len(pairs_rows()) / COMPILE
    assert "after a warm-up" in report["timing"]
    assert "What the time covers" in (out / "report.html").read_text()

    calls = slow_first_call(monkeypatch, NgramMethod, "find_pairs")
    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [{"id": str(i), "text": t, "cluster": i} for i, t in enumerate(BASE)],
    )
    assert main(["eval", corpus, "--method", "ngram", "-o", str(out), "--quiet"]) == 0
    entry = json.loads((out / "report.json").read_text())["results"]["ngram"]
    assert len(calls) == 2 and entry["seconds"]["warm_up"] >= COMPILE > entry["seconds"]["total"]


def test_auto_is_scored_as_the_docs_say(tmp_path):
    """docs/evaluation.md said auto is scored by character-3-gram Jaccard; it is scored by its
    copy verdict: the copy rule's similarity for a copy, 0 for any other pair (compare is the
    oracle), as its table note said."""
    from pathlib import Path

    from neardup.methods import create

    year = "年全国规模以上工业增加值同比增长百分之五点六，高于市场预期"
    rows = [*pairs_rows(), {"text1": "2023" + year, "text2": "2024" + year, "label": 0}]
    data = write_jsonl(tmp_path / "pairs.jsonl", rows)
    out = tmp_path / "r"
    assert main(["eval", data, "--method", "auto", "-o", str(out), "--quiet"]) == 0
    scores = json.loads((out / "report.json").read_text())["results"]["auto"]["scores"]["all"]
    auto = create("auto")
    verdicts = [auto.compare(r["text1"], r["text2"]) for r in rows]
    want = [v["similarity"] if v["duplicate"] else 0.0 for v in verdicts]
    assert scores == pytest.approx(want, abs=1e-6)
    shared = [jaccard(r["text1"], r["text2"]) for r in rows]
    assert scores[-1] == 0.0 and shared[-1] > 0.8  # another year: no copy, however much shared
    page = (Path(__file__).parents[2] / "docs" / "evaluation.md").read_text(encoding="utf-8")
    measured = page[page.index("## What is measured") : page.index("## The report")]
    assert "Jaccard for `ngram` and `auto`" not in measured
    assert "for `auto` its copy verdict" in measured and "0 for any other pair" in measured


def test_a_missing_matplotlib_is_said_before_the_work(tmp_path, capsys, monkeypatch):
    """Without matplotlib eval scored every method, wrote report.json, then failed."""
    import sys

    import neardup.evaluate.run

    def never(*args, **kwargs):
        raise AssertionError("a method was built: the evaluation started")

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails
    monkeypatch.setattr(neardup.evaluate.run, "create", never)
    data = write_jsonl(tmp_path / "pairs.jsonl", pairs_rows())
    out = tmp_path / "r"
    assert main(["eval", data, "--method", "ngram", "-o", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "needs the optional package 'matplotlib'" in err and "neardup[eval]" in err
    assert "Traceback" not in err and not out.exists()


def test_a_file_of_unknown_format_is_named_without_an_option_eval_lacks(tmp_path, capsys):
    """The reader's message offered ``--format``, which ``eval`` does not take."""
    pairs = write_jsonl(tmp_path / "pairs", pairs_rows())
    corpus = write_jsonl(tmp_path / "corpus.data", [{"id": "1", "text": BASE[0]}])
    named = write_jsonl(tmp_path / "pairs.jsonl", [{"id1": "1", "id2": "1", "label": 1}])
    for args in ([pairs], [named, "--corpus", corpus]):
        assert main(["eval", *args, "-o", str(tmp_path / "r"), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert "cannot tell the format" in err and "--format" not in err
        for fmt, suffixes in (
            ("jsonl", ".jsonl, .json, .ndjson"),
            ("csv", ".csv"),
            ("tsv", ".tsv"),
        ):
            assert f"{fmt} ({suffixes})" in err
        assert "optionally .gz or .zst" in err
    row = orjson.dumps({"text1": BASE[0], "text2": BASE[0] + "！", "label": 1}) + b"\n"
    for name, content in (("p.json", row), ("p.ndjson.gz", gzip.compress(row)), ("P.JSONL", row)):
        (tmp_path / name).write_bytes(content)  # each name the message offers is read
        assert main(["eval", str(tmp_path / name), "-o", str(tmp_path / "r2"), "--quiet"]) == 0


def test_a_data_file_whose_name_is_not_utf8_is_read_and_named_escaped(tmp_path):
    import os

    data = write_jsonl(tmp_path / os.fsdecode(b"p\xff.jsonl"), pairs_rows())
    out = tmp_path / os.fsdecode(b"report\xff")
    assert main(["eval", data, "--methods", "ngram", "-o", str(out), "--quiet"]) == 0
    report = json.loads((out / "report.json").read_bytes().decode("utf-8"))
    assert report["input"] == str(tmp_path.resolve() / "p\\xff.jsonl")
    assert report["records"] == len(pairs_rows())
