import csv
import gzip
import json

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import reference
from neardup.cli import main
from neardup.normalize import normalize

BASE = [
    "国务院总理主持召开国务院常务会议，部署进一步稳外贸稳外资的措施，要求各地区各部门抓好落实，"
    "确保经济运行在合理区间，为全年经济社会发展目标任务的完成提供有力支撑。",
    "The central bank left interest rates unchanged on Thursday, saying inflation was easing but "
    "remained above target, and that it would keep watching the labour market closely.",
    "暴雨导致多地出现内涝，气象部门发布橙色预警，提醒市民减少外出，注意防范城市积涝和山洪地质灾害。",
]


def corpus():
    """Texts with planted near-duplicates (case, width, punctuation edits) and unrelated texts."""
    texts = []
    for b in BASE:
        texts += [b, b.upper(), "  " + b.replace("，", ",") + "  "]
    # the last: a prefix of under half of a story, a partial duplicate that is kept
    texts += ["完全无关的一条短消息", "Another unrelated sentence entirely.", BASE[0][:30]]
    return texts


def expected_clusters(texts, k=3):
    fps = [reference.simhash(reference.char_grams(normalize(t), 3)) for t in texts]
    pairs = [(a, b) for a, b, _ in reference.brute_pairs(fps, k)]
    return reference.components(len(texts), pairs)


def write_jsonl(path, texts, **extra):
    with gzip.open(path, "wb") if str(path).endswith(".gz") else open(path, "wb") as f:
        for i, t in enumerate(texts):
            f.write(orjson.dumps({"doc": f"id{i}", "body": t, **extra}) + b"\n")


def read_clusters(out):
    with open(out / "clusters.csv", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(
    "name", ["in.jsonl", "in.jsonl.gz", "in.jsonl.zst", "in.csv", "in.tsv", "in.parquet", "in.txt"]
)
def test_dedup_formats_against_oracle(tmp_path, name):
    texts = corpus()
    path = tmp_path / name
    if "jsonl" in name and name.endswith(".zst"):
        import zstandard

        raw = b"".join(
            orjson.dumps({"doc": f"id{i}", "body": t}) + b"\n" for i, t in enumerate(texts)
        )
        path.write_bytes(zstandard.ZstdCompressor().compress(raw))
    elif "jsonl" in name:
        write_jsonl(path, texts)
    elif name.endswith((".csv", ".tsv")):
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, delimiter="\t" if name.endswith("tsv") else ",")
            w.writerow(["doc", "body", "extra"])
            for i, t in enumerate(texts):
                w.writerow([f"id{i}", t, "x,y"])
    elif name.endswith(".parquet"):
        pq.write_table(
            pa.table(
                {
                    "doc": [f"id{i}" for i in range(len(texts))],
                    "body": texts,
                    "n": list(range(len(texts))),
                }
            ),
            path,
        )
    else:
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    args = ["dedup", str(path), "-o", str(out), "--quiet"]
    if not name.endswith(".txt"):
        args += ["--text-field", "body", "--id-field", "doc"]
    assert main(args) == 0
    rows = read_clusters(out)
    assert len(rows) == len(texts)
    roots = expected_clusters(texts)
    ids = [r["id"] for r in rows]
    rep_of = {r["id"]: r["representative_id"] for r in rows}
    for i, root in enumerate(roots):
        assert rep_of[ids[i]] == ids[root]  # keep=first: the earliest member represents
    summary = json.loads((out / "summary.json").read_text())
    c = summary["counts"]
    kept = len(set(roots))
    assert c["records_read"] == len(texts) and c["kept"] == kept
    assert c["kept"] + c["duplicates_removed"] + c["skipped"] == c["records_read"]
    kept_file = next(out.glob("kept.*"))
    assert kept_file.name.endswith(name.split("in", 1)[1])
    if name.endswith(".parquet"):
        table = pq.read_table(kept_file)
        assert table.num_rows == kept and table.column_names == ["doc", "body", "n"]
    elif name.endswith(".txt"):
        assert len(kept_file.read_text(encoding="utf-8").splitlines()) == kept


def test_keep_longest_and_pairs(tmp_path):
    texts = corpus()
    path = tmp_path / "in.jsonl"
    write_jsonl(path, texts)
    out = tmp_path / "out"
    assert (
        main(
            [
                "dedup",
                str(path),
                "-o",
                str(out),
                "--text-field",
                "body",
                "--keep",
                "longest",
                "--method",
                "simhash",
                "--pairs",
                "--quiet",
            ]
        )
        == 0
    )
    rows = read_clusters(out)
    reps = {r["representative_id"] for r in rows}
    assert {"3", "6", "9"} <= reps  # the copies padded with spaces are the longest raw texts
    with open(out / "pairs.csv", encoding="utf-8") as f:
        pairs = list(csv.DictReader(f))
    assert pairs and all(int(p["distance"]) <= 3 for p in pairs)


def test_clusters_csv_written_in_pieces_equals_one_table(tmp_path, monkeypatch):
    """clusters.csv is built a slice of rows at a time: the file is the same for any slice
    size (oracle: one slice holding every row)."""
    from neardup.pipeline import outputs

    path = tmp_path / "in.jsonl"
    write_jsonl(path, corpus())
    files = []
    for rows in (1 << 20, 4, 1):
        monkeypatch.setattr(outputs, "CLUSTER_ROWS", rows)
        out = tmp_path / f"out{rows}"
        args = ["dedup", str(path), "-o", str(out), "--text-field", "body", "--quiet", "--pairs"]
        assert main(args) == 0
        files.append(((out / "clusters.csv").read_bytes(), (out / "pairs.csv").read_bytes()))
    assert files[0] == files[1] == files[2]
    rows = read_clusters(tmp_path / "out1")
    assert len(rows) == len(corpus()) and any(r["id"] != r["representative_id"] for r in rows)


def test_bad_records_fail_with_record_number(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"text": "ok one"}\n{"text": broken\n{"text": "ok two"}\n')
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl, record 2: not valid JSON" in err and "Traceback" not in err


def test_bad_records_skipped_and_counted(tmp_path):
    path = tmp_path / "bad.jsonl"
    lines = [
        b'{"text": "first good text here"}',
        b'{"text": broken',
        b"[1, 2]",
        b'{"other": "no text"}',
        b'{"text": 42}',
        b'{"text": "   "}',
        b'{"text": "bad utf8 \xff\xfe"}',
        b'{"text": "first good text here"}',
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "o"
    assert main(["dedup", str(path), "-o", str(out), "--on-error", "skip", "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    c = summary["counts"]
    assert c["records_read"] == 8 and c["documents"] == 2 and c["skipped"] == 6
    assert c["skipped_by_reason"] == {
        "empty_text": 1,
        "invalid_utf8": 1,
        "malformed_json": 1,
        "missing_text": 1,
        "not_an_object": 1,
        "text_not_string": 1,
    }
    skipped = [orjson.loads(x) for x in (out / "skipped.jsonl").read_bytes().splitlines()]
    assert [s["record"] for s in skipped] == [2, 3, 4, 5, 6, 7]
    assert c["kept"] == 1 and c["duplicates_removed"] == 1


@pytest.mark.parametrize(
    "content,message",
    [
        (b"", "the file holds no records"),
        (b'{"text": 1}\n', "record 1: text field 'text' is int, not a string"),
        (b'{"body": "x"}\n', "no text field 'text' (fields: body); use --text-field"),
    ],
)
def test_clear_errors(tmp_path, capsys, content, message):
    path = tmp_path / "in.jsonl"
    path.write_bytes(content)
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--quiet"]) == 2
    assert message in capsys.readouterr().err


def test_csv_ragged_row_and_missing_paths(tmp_path, capsys):
    path = tmp_path / "in.csv"
    path.write_text("id,text\n1,hello there\n2,a,b\n", encoding="utf-8")
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--quiet"]) == 2
    assert "in.csv, record 2: 3 fields, the header has 2" in capsys.readouterr().err
    assert main(["dedup", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "o")]) == 2
    assert "missing.jsonl: no such file" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    path.write_text("id,text\n1,hello there\n", encoding="utf-8")
    assert main(["dedup", str(path), "-o", str(blocker)]) == 2
    assert "exists and is not a directory" in capsys.readouterr().err
    assert main(["dedup", str(path), "-o", str(tmp_path / "o2"), "--key-length", "3"]) == 2
    assert "does not take --key-length" in capsys.readouterr().err


def test_duplicate_ids(tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"id": "a", "text": "x y"}\n{"id": "a", "text": "z w"}\n')
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--id-field", "id"]) == 2
    assert "record 2: duplicate id 'a' (first at record 1)" in capsys.readouterr().err


def test_compare_leaves_out_the_edit_similarity_of_long_texts(capsys, tmp_path, monkeypatch):
    """The whole-text edit similarity is quadratic (two texts of a million characters took
    minutes): past EDIT_CELLS character pairs it is null and the verdict still comes."""
    from neardup.cli import compare_cmd

    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("\n".join(BASE), encoding="utf-8")
    second.write_text("\n".join(BASE[:-1]), encoding="utf-8")
    monkeypatch.setattr(compare_cmd, "EDIT_CELLS", 100)
    assert main(["compare", f"@{first}", f"@{second}"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["edit_similarity"] is None and isinstance(report["duplicate"], bool)
    monkeypatch.setattr(compare_cmd, "EDIT_CELLS", 1 << 32)
    assert main(["compare", f"@{first}", f"@{second}"]) == 0
    assert 0 < json.loads(capsys.readouterr().out)["edit_similarity"] <= 1


def test_compare_explains(capsys, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text(BASE[0], encoding="utf-8")
    assert main(["compare", f"@{f}", BASE[0].replace("，", ",")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["hamming_distance"] <= 3 and report["duplicate"] is True
    assert report["char3_jaccard"] > 0.8 and 0.9 < report["edit_similarity"] <= 1
    assert main(["compare", "abc", "@" + str(tmp_path / "nope.txt")]) == 2
    edited = BASE[0][:-8] + "另外补充一句话"
    args = ["compare", "--method", "simhash", "--features", "word", BASE[0], edited]
    assert main(args) == 0  # the plain measures use the method's own fingerprints
    report = json.loads(capsys.readouterr().out)
    assert report["hamming_distance"] == report["verdict"]["hamming_distance"]
    assert report["simhash_a"] == report["verdict"]["fingerprint_a"]


def test_compare_takes_a_text_starting_with_at_and_refuses_blank_ones(capsys):
    post = "@人民日报 国务院召开常务会议部署稳就业工作"
    assert main(["compare", "@" + post, "@" + post + "！"]) == 0  # @@: the text itself
    report = json.loads(capsys.readouterr().out)
    assert report["length_a"] == len(post) and report["duplicate"] is True
    for blank in ("", "   "):
        assert main(["compare", blank, "正文"]) == 2
        assert "empty or blank" in capsys.readouterr().err
    assert main(["compare", "@", "正文"]) == 2
    assert "names no file" in capsys.readouterr().err
    # markup alone normalises to nothing: ngram scores it 0 and calls it no copy, as eval does
    assert main(["compare", "--method", "ngram", "<p></p>", "<p></p>"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"]["similarity"] == 0.0 and report["duplicate"] is False


def test_compare_refuses_partial_which_only_a_batch_reports(capsys):
    """``compare --partial`` was accepted and did nothing (its help: batch runs only); it is
    refused with the command that shows one pair's shared paragraphs."""
    assert main(["compare", "--partial", "第一段文字", "第二段文字"]) == 2
    assert "compare with --method paragraph" in capsys.readouterr().err
    assert main(["compare", "第一段文字", "第二段文字", "--option", "partial=true"]) == 2
    assert "compare with --method paragraph" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # and its help no longer offers it
        main(["compare", "--help"])
    assert "--partial" not in capsys.readouterr().out


def test_real_sample(shared_data, tmp_path):
    """A slice of real Weibo posts: exact reposts must cluster together; accounting must add up."""
    src = shared_data / "weibo_ced_zh" / "corpus.jsonl.gz"
    rows = []
    with gzip.open(src) as f:
        for line in f:
            rows.append(line)
            if len(rows) == 3000:
                break
    path = tmp_path / "weibo.jsonl"
    path.write_bytes(b"".join(rows))
    out = tmp_path / "o"
    assert main(["dedup", str(path), "-o", str(out), "--quiet"]) == 0
    texts = [orjson.loads(r)["text"] for r in rows]
    clusters = read_clusters(out)
    by_norm = {}
    for i, t in enumerate(texts):
        by_norm.setdefault(normalize(t), []).append(i)
    for members in by_norm.values():  # of identical normalised texts only the first is kept
        assert all(clusters[m]["representative_id"] != clusters[m]["id"] for m in members[1:])
    c = json.loads((out / "summary.json").read_text())["counts"]
    assert c["kept"] + c["duplicates_removed"] == 3000
    assert np.sum([r["representative_id"] == r["id"] for r in clusters]) == c["kept"]


@pytest.mark.parametrize("method", ["ngram", "paragraph", "auto"])
def test_every_method_through_the_cli(tmp_path, capsys, method):
    texts = [
        "今天天气很好我们去公园散步",
        "今天天气很好，我们去公园散步！",
        "完全无关的一条消息内容",
    ]
    long = "\n".join(BASE)
    texts += [long, "转载：\n" + long]
    path = tmp_path / "in.jsonl"
    write_jsonl(path, texts)
    out = tmp_path / "o"
    assert (
        main(
            [
                "dedup",
                str(path),
                "-o",
                str(out),
                "--text-field",
                "body",
                "--method",
                method,
                "--pairs",
                "--quiet",
            ]
        )
        == 0
    )
    rows = read_clusters(out)
    c = json.loads((out / "summary.json").read_text())["counts"]
    assert c["kept"] + c["duplicates_removed"] == len(texts)
    assert rows[4]["representative_id"] == "4"  # the repost of the long text
    assert rows[4]["method"] in {"simhash", "ngram", "paragraph", "exact", "auto"}
    if method != "paragraph":  # paragraph needs three topic words per paragraph
        assert rows[1]["representative_id"] == "1"
    with open(out / "pairs.csv", encoding="utf-8") as f:
        pairs = list(csv.DictReader(f))
    assert pairs
    assert main(["compare", texts[3], texts[4], "--method", method]) == 0
    assert json.loads(capsys.readouterr().out)["duplicate"] is True


def test_ngram_reports_pruned_keys(tmp_path):
    """Keys held by more than max_posting distinct texts are pruned and counted (oracle: Python)."""
    footer = "本文来源于某某网站"
    texts = [
        f"第{i}号通知：{'甲乙丙丁戊己庚辛'[i % 8]}{i * 7919 % 1000}事项{footer}" for i in range(12)
    ]
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"".join(orjson.dumps({"text": t}) + b"\n" for t in texts))
    out = tmp_path / "out"
    args = ["dedup", str(src), "-o", str(out), "--method", "ngram", "--quiet"]
    assert main([*args, "--option", "max_posting=3"]) == 0
    stats = json.loads((out / "summary.json").read_text())["method_stats"]
    distinct = list(dict.fromkeys(normalize(t) for t in texts))
    postings = {}
    for i, t in enumerate(distinct):
        for key in {t[j : j + 4] for j in range(len(t) - 3)}:
            postings.setdefault(key, set()).add(i)
    pruned = [k for k, docs in postings.items() if len(docs) > 3]
    assert stats["keys"] == len(postings)
    assert stats["pruned_keys"] == len(pruned) > 0
    assert stats["pruned_postings"] == sum(len(postings[k]) for k in pruned)


def test_clusters_do_not_chain_unless_asked(tmp_path):
    from neardup.dedup import dedup_texts

    a = "今天北京天气晴朗，我们一起去公园散步吧，然后吃饭"
    b = a[:16] + "，然后回家看书，明天见"
    c = b[8:] + "，大家早点休息，晚安了各位朋友"
    texts = [a, b, c]
    pairs = dedup_texts(texts, method="ngram", threshold=0.3).pairs
    found = set(zip(pairs.left.tolist(), pairs.right.tolist(), strict=True))
    assert found == {(0, 1), (1, 2)}  # a chain: a~b, b~c, a!~c
    greedy = dedup_texts(texts, method="ngram", threshold=0.3)
    assert greedy.clusters.representative.tolist() == [0, 0, 2]
    components = dedup_texts(texts, method="ngram", threshold=0.3, clusters="components")
    assert components.clusters.representative.tolist() == [0, 0, 0]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts))
    for rule, removed in (("greedy", 1), ("components", 2)):
        out = tmp_path / rule
        args = ["dedup", str(src), "-o", str(out), "--method", "ngram", "--option", "threshold=0.3"]
        assert main([*args, "--clusters", rule, "--quiet"]) == 0
        summary = json.loads((out / "summary.json").read_text())
        assert summary["counts"]["duplicates_removed"] == removed


def test_paragraph_pairs_report_partial_duplicates_without_removing_them(tmp_path):
    """A digest holding one paragraph of each of two stories shares text with both: pairs.csv
    lists those relations (duplicate=false, relation partial), and nothing is removed for them;
    a story contained whole in a longer one is a duplicate (duplicate=true)."""
    from test_methods import PARA

    other = [
        "体育新闻：足球联赛今晚继续进行，主队在主场迎战客队，比赛吸引了大量球迷到场观看助威。",
        "赛后主教练表示，球队在防守端还有提升空间，下一轮将客场挑战积分榜领头的强队。",
        "据悉，本赛季联赛观众人数创下新高，俱乐部的门票收入与转播收入都有明显增长。",
    ]
    texts = [
        "\n".join(PARA),  # 0
        "\n".join(other),  # 1
        # 2: a digest of 0, 1 and a third story
        "\n".join(
            [PARA[0], other[0], "气象台预计，明后两天北方地区将迎来大风降温天气，请注意防寒保暖。"]
        ),
        "\n".join(PARA[:2]),  # 3: contained in 0
    ]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"text": t}) + b"\n" for t in texts))
    out = tmp_path / "out"
    args = ["dedup", str(path), "-o", str(out), "--method", "paragraph", "--pairs", "--quiet"]
    assert main([*args, "--option", "min_shared_chars=20"]) == 0
    with open(out / "pairs.csv", encoding="utf-8") as f:
        pairs = {(p["id_a"], p["id_b"]): p for p in csv.DictReader(f)}
    assert pairs[("1", "4")]["duplicate"] == "true"
    assert json.loads(pairs[("1", "4")]["evidence"])["containment"] == "b_in_a"
    for key in (("1", "3"), ("2", "3")):
        assert pairs[key]["duplicate"] == "false"
        assert json.loads(pairs[key]["evidence"])["containment"] == "partial"
    removed = {r["id"] for r in read_clusters(out) if r["representative_id"] != r["id"]}
    assert removed == {"4"}


def test_keep_container_on_the_command_line(tmp_path, capsys):
    """``--keep container`` keeps the full story over an earlier excerpt of it; a method
    without containment evidence is refused with a fix-it message, not a traceback."""
    from test_methods import PARA

    path = tmp_path / "in.jsonl"
    texts = ["\n".join(PARA[:2]), "\n".join(PARA)]
    path.write_bytes(b"".join(orjson.dumps({"text": t}) + b"\n" for t in texts))
    out = tmp_path / "out"
    args = ["dedup", str(path), "-o", str(out), "--quiet", "--keep", "container"]
    assert main([*args, "--method", "paragraph"]) == 0
    removed = {r["id"] for r in read_clusters(out) if r["representative_id"] != r["id"]}
    assert removed == {"1"}
    capsys.readouterr()
    assert main([*args, "--method", "auto"]) == 2
    err = capsys.readouterr().err
    assert "--method paragraph" in err and "Traceback" not in err


def test_partial_on_the_command_line(tmp_path, capsys):
    """``--partial`` (auto): pairs.csv gains the paragraphs two documents share
    (duplicate=false, with the paragraph evidence); nothing more is removed. A method without
    the option refuses it by name."""
    from test_methods import PARA

    story = "\n".join(PARA + [p[::-1] for p in PARA])
    digest = "\n".join(
        [PARA[0], PARA[1], "气象台预计，明后两天北方地区将迎来大风降温天气，请注意防寒保暖。"]
    )
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"text": t}) + b"\n" for t in [story, digest]))
    args = ["dedup", str(path), "--pairs", "--quiet"]
    assert main([*args, "-o", str(tmp_path / "plain")]) == 0
    assert main([*args, "-o", str(tmp_path / "partial"), "--partial"]) == 0
    with open(tmp_path / "partial" / "pairs.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["id_a"], r["id_b"], r["duplicate"]) for r in rows] == [("1", "2", "false")]
    assert json.loads(rows[0]["evidence"])["matched_paragraphs"] == [[0, 0], [1, 1]]
    assert read_clusters(tmp_path / "partial") == read_clusters(tmp_path / "plain")
    # without --pairs the run found them and wrote them nowhere: --partial implies --pairs
    bare = ["dedup", str(path), "--quiet", "-o", str(tmp_path / "bare"), "--partial"]
    assert main(bare) == 0
    assert (tmp_path / "bare" / "pairs.csv").read_bytes() == (
        tmp_path / "partial" / "pairs.csv"
    ).read_bytes()
    assert json.loads((tmp_path / "bare" / "summary.json").read_text())["outputs"]["pairs"]
    capsys.readouterr()
    assert main([*args, "-o", str(tmp_path / "s"), "--method", "simhash", "--partial"]) == 2
    assert "does not take --partial" in capsys.readouterr().err


def _boilerplate_corpus(rng):
    """300 stories under one header paragraph, and pairs of stories that share only it (tails
    of 5-40 characters): copies by their text alone, two stories once the header's grams are
    common."""
    alphabet = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 800))

    def words(n):
        return "".join(rng.choice(alphabet) for _ in range(n))

    header = words(60) + "。"
    corpus = [f"{header}\n\n{words(80)}。\n\n{words(80)}。" for _ in range(300)]
    pairs = [(f"{header}\n\n{words(n)}。", f"{header}\n\n{words(n)}。") for n in (5, 10, 20, 40)]
    return corpus, pairs


@pytest.mark.parametrize("method", ["auto", "paragraph"])
def test_compare_and_eval_with_tables_decide_as_a_run_with_them(method, tmp_path, capsys):
    """``compare --tables`` and ``eval --tables`` judge a pair with a corpus's frozen table as
    ``dedup --tables`` of the two texts does: pairs sharing only boilerplate are copies to
    ``compare`` without the table and not with it; ``eval``'s report names the table; a table
    for a method that takes none is refused."""
    import random

    corpus, pairs = _boilerplate_corpus(random.Random(1))
    write_jsonl(tmp_path / "corpus.jsonl", corpus)
    fitted = tmp_path / "fitted"
    assert main(["dedup", str(tmp_path / "corpus.jsonl"), "--text-field", "body", "-o",
                 str(fitted), "--method", method, "--quiet"]) == 0  # fmt: skip
    table = str(fitted / "common_grams.npz")
    capsys.readouterr()
    flipped, called = 0, [0, 0]  # compare's duplicates without and with the table
    for k, (a, b) in enumerate(pairs):
        verdicts = []
        for extra in ([], ["--tables", table]):
            assert main(["compare", "--method", method, *extra, a, b]) == 0
            verdicts.append(json.loads(capsys.readouterr().out)["duplicate"])
        write_jsonl(tmp_path / f"pair{k}.jsonl", [a, b])
        out = tmp_path / f"run{k}"
        assert main(["dedup", str(tmp_path / f"pair{k}.jsonl"), "--text-field", "body", "-o",
                     str(out), "--method", method, "--tables", table, "--quiet"]) == 0  # fmt: skip
        removed = json.loads((out / "summary.json").read_text())["counts"]["duplicates_removed"]
        assert verdicts[1] == (removed == 1)
        flipped += verdicts[0] and not verdicts[1]
        called = [c + v for c, v in zip(called, verdicts, strict=True)]
    assert flipped >= 2
    rows = [orjson.dumps({"text1": a, "text2": b, "label": 0}) for a, b in pairs]
    (tmp_path / "pairs.jsonl").write_bytes(b"\n".join(rows) + b"\n")
    for extra, duplicates in (([], called[0]), (["--tables", table], called[1])):
        out = tmp_path / f"eval{len(extra)}"
        args = ["eval", str(tmp_path / "pairs.jsonl"), "-o", str(out), "--method", method]
        assert main([*args, *extra, "--quiet"]) == 0
        report = json.loads((out / "report.json").read_text())
        scores = report["results"][method]["at_default_threshold"]
        assert scores["false_positives"] == duplicates  # every pair is labelled distinct
        assert (report["tables"] is not None) == bool(extra)
    capsys.readouterr()
    assert main(["compare", "--method", "simhash", "--tables", table, "a", "b"]) == 2
    assert "not of 'simhash'" in capsys.readouterr().err
    both = ["--methods", "auto,paragraph", "--tables", table]  # one table fits one method
    assert main(["eval", str(tmp_path / "pairs.jsonl"), "-o", str(tmp_path / "e"), *both]) == 2
    other = "paragraph" if method == "auto" else "auto"
    err = capsys.readouterr().err
    assert f"does not fit method {other!r}" in err and "grams" in err
    assert not (tmp_path / "e").exists()
    broken = tmp_path / "broken.npz"  # a cut file, flipped bytes, an array: named, no traceback
    data = (fitted / "common_grams.npz").read_bytes()
    np.save(tmp_path / "array.npy", np.arange(3))
    for bad in (data[:300], data[:200] + bytes(255 - b for b in data[200:]), None):
        path = tmp_path / "array.npy" if bad is None else broken
        if bad is not None:
            broken.write_bytes(bad)
        assert main(["compare", "--method", method, "--tables", str(path), "a", "b"]) == 2
        assert "not a neardup common-gram table" in capsys.readouterr().err
    assert main(["compare", "--method", method, "--tables", "", "a", "b"]) == 2
    assert "--tables needs a file" in capsys.readouterr().err


@pytest.mark.parametrize(
    "method, options", [("simhash", []), ("ngram", []), ("simhash", ["--cjk-only"])]
)
def test_texts_with_nothing_to_compare_are_counted_and_said(tmp_path, capsys, method, options):
    """Texts that normalising leaves empty (markup alone, a zero-width space, another script
    under --cjk-only) are never duplicates under simhash or ngram — two identical ones stay —
    and the run said nothing of it: now counted in method_stats and told on stderr."""
    empty = ["<br><br>", "<br><br>", "\u200b\u200b", "<p></p>"]
    english = ["Hello world, this is English", "Hello world, this is English"]
    chinese = ["今天的天气很好，我们一起去公园散步。", "今天的天气很好，我们一起去公园散步！"]
    texts = empty + english + chinese
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"text": t}) + b"\n" for t in texts))
    out = tmp_path / "out"
    assert main(["dedup", str(path), "-o", str(out), "--method", method, *options]) == 0
    expected = len(empty) + (len(english) if "--cjk-only" in options else 0)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["method_stats"]["featureless_documents"] == expected
    assert summary["counts"]["kept"] >= expected + 1  # every such text kept, one of the Chinese
    assert f"neardup: {expected} documents have nothing to compare" in capsys.readouterr().err


def test_usage_mistakes_name_the_subcommand_and_refuse_abbreviations(tmp_path, capsys):
    """A new user's mistakes (helper audit): `--meth simhash` ran as `--method simhash` (a
    script that abbreviates changes meaning when an option is added), and an unknown option
    printed the top-level usage, not the subcommand's."""
    path = tmp_path / "in.jsonl"
    write_jsonl(path, corpus())
    out = str(tmp_path / "o")
    for flag in ("--meth", "--metod"):
        with pytest.raises(SystemExit) as exited:
            main(["dedup", str(path), "--text-field", "body", flag, "simhash", "-o", out])
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert "usage: neardup dedup" in err and "unrecognized arguments" in err
    assert not (tmp_path / "o").exists()  # nothing ran
    with pytest.raises(SystemExit):
        main(["index", "add", "--db", str(tmp_path / "s.db"), str(path), "--bogus"])
    assert "usage: neardup index add" in capsys.readouterr().err


def test_ngram_verify_flag_chooses_its_measure(tmp_path):
    """The README offers `--verify jaccard|edit`, and ngram verifies every candidate by Jaccard
    or edit similarity: the flag chooses which (it was refused)."""
    path = tmp_path / "in.jsonl"
    write_jsonl(path, corpus())
    out = tmp_path / "o"
    assert (
        main(
            [
                "dedup",
                str(path),
                "--text-field",
                "body",
                "--method",
                "ngram",
                "--verify",
                "edit",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads((out / "summary.json").read_text())["parameters"]["measure"] == "edit"


def test_a_failed_run_leaves_no_empty_output_folder(tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    write_jsonl(path, corpus())
    out = tmp_path / "new" / "out"
    assert (
        main(["dedup", str(path), "--text-field", "body", "--id-field", "missing", "-o", str(out)])
        == 2
    )
    assert "no id field 'missing'" in capsys.readouterr().err
    assert not out.exists()
    kept = tmp_path / "mine"
    kept.mkdir()
    assert (
        main(["dedup", str(path), "--text-field", "body", "--id-field", "missing", "-o", str(kept)])
        == 2
    )
    assert kept.is_dir()  # the user's folder stays


def test_compare_refuses_an_idf_fitted_on_its_two_texts(capsys):
    a, b = "今天天气很好我们去公园散步吧", "今天天气很好我们去公园跑步吧"
    argv = ["compare", a, b, "--method", "simhash", "--weights", "tfidf", "--idf", "corpus"]
    assert main(argv) == 2
    assert "two texts are no corpus" in capsys.readouterr().err


def test_a_failed_run_removes_only_the_empty_folders_it_made(tmp_path, capsys, monkeypatch):
    """Review: `-o new/../mine` removed the user's empty folder `mine` (the path was judged as
    written), and `-o p/q/r` left p/q behind."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.jsonl").write_text('{"text": 1}\n')
    (tmp_path / "mine").mkdir()
    assert main(["dedup", "bad.jsonl", "-o", "new/../mine"]) == 2
    assert (tmp_path / "mine").is_dir()
    assert main(["dedup", "bad.jsonl", "-o", "p/q/r"]) == 2
    assert not (tmp_path / "p").exists()
    capsys.readouterr()


def test_verify_and_option_measure_must_agree(tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    write_jsonl(path, corpus())
    argv = ["dedup", str(path), "--text-field", "body", "--method", "ngram", "--verify", "edit"]
    assert main([*argv, "--option", "measure=jaccard", "-o", str(tmp_path / "o")]) == 2
    assert "disagree" in capsys.readouterr().err
