"""The dedup report: what the run records, checked against its own outputs; the page in Chromium."""

from __future__ import annotations

import csv
import html
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from browser import console_errors, distinct_grey_levels, load_page
from neardup.cli import main
from neardup.methods import create
from neardup.report.diff import diff_html

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample_zh.jsonl"


def unmark(fragment: str, tag: str) -> str:
    """The text of a diff fragment with ``tag`` kept as text (its markup removed)."""
    return html.unescape(re.sub(f"</?{tag}>", "", fragment))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_diff_fragments_are_the_two_texts(a, b):
    left, right = diff_html(a, b)
    assert unmark(left, "del") == a and unmark(right, "ins") == b
    assert "<ins>" not in left and "<del>" not in right
    # what both sides keep (outside the marks) is the same sequence, white space aside
    common_left = html.unescape(re.sub("<del>.*?</del>", "", left, flags=re.S))
    common_right = html.unescape(re.sub("<ins>.*?</ins>", "", right, flags=re.S))
    assert re.sub(r"\s+", "", common_left) == re.sub(r"\s+", "", common_right)


def test_diff_is_by_character_for_chinese_and_by_word_for_latin():
    left, right = diff_html("2025年全国两会召开", "2026年全国两会闭幕")
    assert left == "<del>2025</del>年全国两会<del>召开</del>"
    assert right == "<ins>2026</ins>年全国两会<ins>闭幕</ins>"
    left, right = diff_html("the cat sat on the mat", "the dog sat on the mat")
    assert left == "the <del>cat</del> sat on the mat"  # whole words, not "c" and "d"
    assert right == "the <ins>dog</ins> sat on the mat"


def test_a_moved_line_break_is_no_difference():
    """Reuters re-sends wrap lines elsewhere: "this\nmorning" / "this morning\n" marked
    "morning" changed on both sides (and counted it among the report's differences)."""
    a, b = "Rates were cut this\nmorning by the bank.", "Rates were cut this morning\nby the bank."
    assert diff_html(a, b) == (html.escape(a), html.escape(b))
    left, right = diff_html("the cat\nsat", "the dog sat")
    assert left == "the <del>cat</del>\nsat" and right == "the <ins>dog</ins> sat"


def read_clusters(out: Path) -> list[dict[str, str]]:
    with open(out / "clusters.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def read_texts(path: Path) -> dict[str, str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {r["id"]: r["text"] for r in rows}


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "out"
    args = ["dedup", str(SAMPLE), "--id-field", "id", "-o", str(out), "--report", "--quiet"]
    assert main(args) == 0
    return out


def test_report_data_agrees_with_the_run_outputs(sample_run):
    data = json.loads((sample_run / "report_data.json").read_text(encoding="utf-8"))
    summary = json.loads((sample_run / "summary.json").read_text(encoding="utf-8"))
    rows = read_clusters(sample_run)
    texts = read_texts(SAMPLE)
    removed = [r for r in rows if r["id"] != r["representative_id"]]
    # distributions count every document, computed here from clusters.csv
    sizes = Counter(Counter(r["cluster_id"] for r in rows).values())
    sizes.pop(1, None)
    got = dict(zip(data["cluster_sizes"]["sizes"], data["cluster_sizes"]["clusters"], strict=True))
    assert got == dict(sizes)
    assert data["removed_total"] == len(removed) == summary["counts"]["duplicates_removed"]
    assert sum(data["length_removed"]) == len(removed)
    assert sum(data["length_kept"]) == summary["counts"]["kept"]
    per_method = Counter(r["method"] for r in removed)
    assert {m: e["removed"] for m, e in data["per_method"].items()} == dict(per_method)
    docs = data["documents"]
    by_id = {r["id"]: r for r in rows}
    # every sampled removal is a row of clusters.csv, shown with the input's texts
    shown = data["random_removed"] + data["closest_removals"]
    shown += [m for c in data["largest_clusters"] for m in c["members"]]
    for row in shown:
        dup, rep = docs[str(row["doc"])], docs[str(row["representative"])]
        assert by_id[dup["id"]]["representative_id"] == rep["id"] != dup["id"]
        assert by_id[dup["id"]]["method"] == row["method"]
        assert dup["text"] == texts[dup["id"]][:2000] and rep["text"] == texts[rep["id"]][:2000]
    assert len(data["random_removed"]) == min(30, len(removed))
    # the largest clusters are the largest, in order
    cluster_sizes = Counter(r["cluster_id"] for r in rows)
    listed = [c["size"] for c in data["largest_clusters"]]
    assert listed == sorted((s for s in cluster_sizes.values() if s > 1), reverse=True)[:10]
    # closest calls: the lowest similarities among removals that are not exact copies
    near = sorted(float(r["similarity"]) for r in removed if r["method"] != "exact")
    assert [r["similarity"] for r in data["closest_removals"]] == pytest.approx(near[:20], abs=1e-5)


def test_distributions_count_every_input_document_once(tmp_path):
    """With --against, the kept lengths are the run's kept inputs (the reference documents
    were counted as kept); with --clusters components, every removed document is in its
    method's histogram or counted as unmeasured (some were left out)."""
    rows = SAMPLE.read_text(encoding="utf-8").splitlines()
    ref, new = tmp_path / "ref.jsonl", tmp_path / "new.jsonl"
    ref.write_text("\n".join(rows[:200]) + "\n", encoding="utf-8")
    new.write_text("\n".join(rows[200:]) + "\n", encoding="utf-8")
    out = tmp_path / "against"
    args = ["dedup", str(new), "--against", str(ref), "--id-field", "id", "-o", str(out)]
    assert main([*args, "--report", "--quiet"]) == 0
    data = json.loads((out / "report_data.json").read_text(encoding="utf-8"))
    counts = json.loads((out / "summary.json").read_text(encoding="utf-8"))["counts"]
    assert sum(data["length_kept"]) == counts["kept"]
    assert sum(data["length_removed"]) == counts["duplicates_removed"]
    out = tmp_path / "components"
    args = ["dedup", str(SAMPLE), "--id-field", "id", "-o", str(out), "--report", "--quiet"]
    assert main([*args, "--keep", "longest", "--clusters", "components"]) == 0
    data = json.loads((out / "report_data.json").read_text(encoding="utf-8"))
    for method, entry in data["per_method"].items():
        shown = sum(entry.get("similarity", entry.get("distance", [])))
        assert shown + entry.get("unmeasured", 0) == entry["removed"], method


def test_near_misses_are_rejected_pairs_with_their_scores(sample_run):
    data = json.loads((sample_run / "report_data.json").read_text(encoding="utf-8"))
    docs = data["documents"]
    misses = data["near_misses"]
    assert misses, "the sample has template look-alikes the copy rule rejects"
    assert [m["score"] for m in misses] == sorted((m["score"] for m in misses), reverse=True)
    auto = create("auto")
    for m in misses:
        a, b = docs[str(m["left"])], docs[str(m["right"])]
        verdict = auto.compare(a["text"], b["text"])  # the full texts are short enough here
        assert not a["truncated"] and not b["truncated"]
        assert verdict["duplicate"] is False
        measure = "similarity" if m["route"].startswith("short") else "containment"
        if measure == "similarity":
            assert m["score"] == pytest.approx(verdict["similarity"], abs=1e-6)


def test_ngram_near_misses_are_below_the_threshold_with_the_methods_own_score(tmp_path):
    base = "国务院召开常务会议部署稳外贸稳外资措施"
    texts = [base, base + "要求各地落实", "国务院召开全体会议部署稳就业措施", "今天天气很好"]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["dedup", str(src), "-o", str(out), "--method", "ngram", "--quiet"]) == 0
    data = json.loads((out / "report_data.json").read_text(encoding="utf-8"))
    method = create("ngram")
    assert data["near_misses"]
    for m in data["near_misses"]:
        a, b = texts[m["left"]], texts[m["right"]]
        score = float(method.score_pairs([a], [b])[0])
        assert m["score"] == pytest.approx(score, abs=1e-5) and score < m["threshold"]
    assert data["thresholds"] == {"jaccard similarity": method.config.threshold}


def test_long_texts_are_cut_and_say_so(tmp_path):
    long = "".join(f"第{i}段：国务院召开常务会议，研究部署稳外贸稳外资措施。" for i in range(200))
    src = tmp_path / "in.jsonl"
    rows = [{"text": long}, {"text": long + "（完）"}]
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    out = tmp_path / "out"
    assert main(["dedup", str(src), "-o", str(out), "--quiet"]) == 0
    data = json.loads((out / "report_data.json").read_text(encoding="utf-8"))
    doc = data["documents"]["0"]
    assert doc["truncated"] and len(doc["text"]) == 2000 and doc["length"] == len(long)


def test_report_command_rebuilds_the_page_and_explains_missing_files(sample_run, tmp_path, capsys):
    page = (sample_run / "report.html").read_text(encoding="utf-8")
    (sample_run / "report.html").unlink()
    assert main(["report", str(sample_run), "--quiet"]) == 0
    assert (sample_run / "report.html").read_text(encoding="utf-8") == page
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: no such directory" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["report", str(tmp_path / "file")]) == 2
    assert "file: is not a directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 2
    assert "no summary.json" in capsys.readouterr().err
    old = tmp_path / "old"
    old.mkdir()
    (old / "summary.json").write_text("{}")
    assert main(["report", str(old)]) == 2
    assert "no report_data.json" in capsys.readouterr().err
    # a spark-dedup output: not "a neardup without reports"
    (old / "summary.json").write_text(json.dumps({"engine": {"spark": "4.0", "master": "x"}}))
    assert main(["report", str(old)]) == 2
    assert "spark-dedup` does not record report data yet" in capsys.readouterr().err


def test_a_run_of_several_inputs_names_them_in_the_title(tmp_path):
    """A run of several inputs (``input`` null in summary.json) was titled "None"."""
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    first.write_bytes(b"".join(lines[:250]))
    second.write_bytes(b"".join(lines[250:]))
    out = tmp_path / "out"
    assert main(["dedup", str(first), str(second), "--id-field", "id", "-o", str(out),
                 "--report", "--quiet"]) == 0  # fmt: skip
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "None" not in re.findall(r"<title>(.*?)</title>", page)[0]
    assert f"<title>neardup report: {first} and 1 more</title>" in page
    assert "<h1>neardup dedup report: a.jsonl and 1 more</h1>" in page


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("summary.json", "[]", "holds a JSON list, not the object"),
        ("summary.json", "{not json", "cannot read it"),
        ("report_data.json", None, "is not as `neardup dedup` writes it"),
    ],
)
def test_damaged_run_files_are_errors_naming_them(
    sample_run, tmp_path, capsys, name, content, message
):
    damaged = tmp_path / "damaged"
    shutil.copytree(sample_run, damaged)
    if content is None:  # a field of the wrong kind, in a run whose summary lists no files
        data = json.loads((damaged / name).read_text())
        data["random_removed"] = "x"
        content = json.dumps(data)
        summary = json.loads((damaged / "summary.json").read_text())
        del summary["files"]
        (damaged / "summary.json").write_text(json.dumps(summary))
    (damaged / name).write_text(content)
    assert main(["report", str(damaged), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_files_of_two_runs_are_not_mixed_into_one_page(sample_run, tmp_path, capsys):
    """A report_data.json copied in from another run gave a page with one run's counts beside
    the other's sample and plots (exit 0); a summary without its counts, a page of zeros."""
    other = tmp_path / "other"
    args = ["dedup", str(SAMPLE), "--id-field", "id", "-o", str(other), "--quiet"]
    assert main([*args, "--method", "simhash"]) == 0
    mixed = tmp_path / "mixed"
    shutil.copytree(sample_run, mixed)
    shutil.copy(other / "report_data.json", mixed / "report_data.json")
    assert main(["report", str(mixed), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "report_data.json is not the file this run wrote" in err and "Traceback" not in err
    shutil.copy(sample_run / "report_data.json", mixed / "report_data.json")
    assert main(["report", str(mixed), "--quiet"]) == 0  # its own file again
    summary = json.loads((mixed / "summary.json").read_text())
    del summary["counts"]
    (mixed / "summary.json").write_text(json.dumps(summary))
    assert main(["report", str(mixed), "--quiet"]) == 2
    assert "summary.json holds no counts" in capsys.readouterr().err


def test_a_run_without_report_removes_the_old_page(tmp_path):
    out = tmp_path / "out"
    base = ["dedup", str(SAMPLE), "--id-field", "id", "-o", str(out), "--quiet"]
    assert main([*base, "--report"]) == 0 and (out / "report.html").exists()
    assert main([*base, "--method", "ngram"]) == 0
    assert not (out / "report.html").exists()  # it described the previous run
    summary = json.loads((out / "summary.json").read_text())
    assert summary["outputs"]["report"] is None and "report_data.json" in summary["files"]


@pytest.mark.browser
def test_report_page_in_headless_chromium(sample_run, tmp_path):
    data = json.loads((sample_run / "report_data.json").read_text(encoding="utf-8"))
    page = load_page(sample_run / "report.html", tmp_path, size="1200,2400")
    assert console_errors(page.log) == []
    status = re.search(r"plots: (\d+), pairs: (\d+), highlighted differences: (\d+)", page.dom)
    assert status, page.dom[:500]
    plots, pairs, marks = (int(x) for x in status.groups())
    # cluster sizes, auto's similarity, lengths (+ exact copies have no plot of their own)
    assert plots == 3
    expected = (
        sum(len(c["members"]) for c in data["largest_clusters"])
        + len(data["random_removed"])
        + len(data["closest_removals"])
        + len(data["near_misses"])
    )
    assert pairs == expected and marks > 0
    assert distinct_grey_levels(page.screenshot) > 20


def test_paragraph_pairs_carry_their_matched_paragraphs(tmp_path):
    story = [
        "国务院总理主持召开国务院常务会议，部署进一步稳外贸稳外资的政策措施，推动外贸保稳提质。",
        "会议指出，今年以来各地区各部门认真贯彻党中央决策部署，外贸进出口保持较快增长势头。",
        "会议要求，加大出口信用保险支持力度，优化跨境贸易结算，帮助企业稳订单拓市场。",
    ]
    digest = [*story, "另据报道，全国多地近日迎来强降雨天气，气象部门提醒公众注意出行安全。"]
    texts = ["\n".join(story), "\n".join(digest)]
    src = tmp_path / "in.jsonl"
    src.write_text(
        "".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts), "utf-8"
    )
    out = tmp_path / "out"
    args = ["dedup", str(src), "-o", str(out), "--method", "paragraph", "--report", "--quiet"]
    assert main(args) == 0
    data = json.loads((out / "report_data.json").read_text(encoding="utf-8"))
    (row,) = data["random_removed"]
    oracle = create("paragraph").compare(texts[0], texts[1])
    assert row["evidence"]["matched_paragraphs"] == oracle["matched_paragraphs"]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "matched paragraphs (earlier, later): 0-0, 1-1, 2-2" in page


def test_a_page_that_cannot_be_written_is_an_error_naming_it(sample_run, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(sample_run, run)
    (run / "report.html").unlink()
    (run / "report.html").mkdir()  # in the page's place
    assert main(["report", str(run), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {run / 'report.html'}" in err and "Traceback" not in err
    assert sorted(p.name for p in run.iterdir() if p.name.startswith(".")) == []


def test_a_full_disk_leaves_no_partial_page(sample_run, tmp_path, capsys, monkeypatch):
    import errno

    run = tmp_path / "run"
    shutil.copytree(sample_run, run)

    def full(self, text, *args, **kwargs):
        with open(self, "w", encoding="utf-8") as f:
            f.write(text[:100])
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", full)
    assert main(["report", str(run), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {run / 'report.html'} (No space left on device)" in err
    assert sorted(p.name for p in run.iterdir() if p.name.startswith(".")) == []


def test_plot_bin_starts_sit_under_their_edge_and_log_axes_are_labelled():
    """A threshold on a bin edge is drawn at its value's x and the label of the bin starting
    there sits under it (under the bin's middle it looked half a bin off: 0.5 drawn near
    0.47); a log axis up to 7 reads 1, 2, 5 (it read "1" alone), over many decades powers of
    ten. Oracle: the chart's own geometry, LEFT + position * plot width."""
    import re

    from neardup.report.svg import LEFT, RIGHT, WIDTH, Mark, Series, _y_ticks, bar_chart

    bins = [f"{k / 20:.2f}" for k in range(20)]
    svg = bar_chart(
        title="t",
        bins=bins,
        series=[Series("s", [1] * 20, "#000")],
        x_label="x",
        y_label="y",
        marks=[Mark(0.5, "threshold 0.5")],
        bin_starts=True,
    )
    line_x = float(
        re.search(r'<line x1="([\d.]+)" y1="\d+" x2="[\d.]+" y2="\d+" class="mark"', svg)[1]
    )
    label_x = float(
        re.search(r'<text x="([\d.]+)" y="\d+" text-anchor="middle">0.50</text>', svg)[1]
    )
    assert line_x == pytest.approx(LEFT + 0.5 * (WIDTH - LEFT - RIGHT), abs=0.1)
    assert label_x == pytest.approx(line_x, abs=0.1)
    assert _y_ticks(7, log_y=True) == [1, 2, 5]
    assert _y_ticks(80, log_y=True) == [1, 2, 5, 10, 20, 50]
    assert _y_ticks(120_000, log_y=True) == [1, 10, 100, 1_000, 10_000, 100_000]
