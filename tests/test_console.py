"""The installed command (``neardup.cli.console``): main's exit code, its outputs whole, and the
heap frozen out of the collector before the interpreter tears down (a cost of every command)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from neardup.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample_zh.jsonl"

# what the exit handlers see once console() has run main: the code is still to come
_PROBE = """
import atexit, gc, sys
atexit.register(lambda: print("frozen", gc.get_freeze_count(), file=sys.stderr))
sys.argv = ["neardup", *sys.argv[1:]]
from neardup.cli import console
console()
"""


def _console(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _frozen(stderr: str) -> int:
    return int(next(line for line in stderr.splitlines() if line.startswith("frozen")).split()[1])


def test_an_error_exits_with_mains_code_and_the_heap_frozen(tmp_path):
    done = _console("dedup", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "out"))
    assert done.returncode == 2
    assert "neardup: error:" in done.stderr and "missing.jsonl" in done.stderr
    assert _frozen(done.stderr) > 1000  # the exit handlers ran, after the freeze


def test_a_run_writes_what_main_writes_in_process(tmp_path):
    done = _console(
        "dedup", str(SAMPLE), "--id-field", "id", "-o", str(tmp_path / "cmd"), "--quiet"
    )
    assert done.returncode == 0, done.stderr
    assert _frozen(done.stderr) > 1000
    assert (
        main(["dedup", str(SAMPLE), "--id-field", "id", "-o", str(tmp_path / "lib"), "--quiet"])
        == 0
    )
    cmd, lib = tmp_path / "cmd", tmp_path / "lib"
    assert (cmd / "clusters.csv").read_bytes() == (lib / "clusters.csv").read_bytes()
    kept = [json.loads(line)["id"] for line in (cmd / "kept.jsonl").read_text().splitlines()]
    assert kept == [
        json.loads(line)["id"] for line in (lib / "kept.jsonl").read_text().splitlines()
    ]
    assert len(kept) == json.loads((cmd / "summary.json").read_text())["counts"]["kept"] > 0


def test_python_dash_m_is_the_console():
    done = subprocess.run(
        [sys.executable, "-m", "neardup", "--bogus"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and "unrecognized arguments" in done.stderr


def test_output_on_a_full_disk_is_a_clear_error_not_a_traceback(tmp_path):
    """`neardup compare a b > /dev/full` (and any command printing its answer) ended in an
    OSError traceback with exit 1; now one line naming the reason, exit 2."""
    if not Path("/dev/full").exists():
        import pytest

        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "neardup", "compare", "一段文字", "一段文字！"],
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
        )
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "Traceback" not in err, err
    assert err.strip() == "neardup: error: cannot write the output: No space left on device"


def test_an_interrupt_while_the_commands_load_is_said_in_a_line(monkeypatch, capsys):
    """Ctrl-C in the first half second (while the subcommands are imported) printed a
    KeyboardInterrupt traceback; now the line a later interrupt prints, and exit 130."""
    import neardup.cli as cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert main(["compare", "a", "b"]) == 130
    assert capsys.readouterr().err == "neardup: interrupted\n"


def test_a_command_with_its_output_closed_ends_as_before(tmp_path):
    """With standard output closed (``>&-``) Python has no ``sys.stdout``: the flush added
    for a full disk must not turn a finished run into a traceback."""
    import os

    path = tmp_path / "in.jsonl"
    path.write_text('{"text": "一段文字"}\n{"text": "一段文字！"}\n', encoding="utf-8")
    args = ["dedup", str(path), "-o", str(tmp_path / "out"), "--quiet"]
    proc = subprocess.run(
        [sys.executable, "-m", "neardup", *args],
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),
        check=False,
    )
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr.decode()
    assert (tmp_path / "out" / "summary.json").exists()
