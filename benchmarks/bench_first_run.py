"""The README's main command on a fresh install: first run (no caches) against the runs after.

    python benchmarks/bench_first_run.py [--isolated] [--runs 3]

Creates a virtualenv in a temporary folder and installs a clean copy of this checkout into it
(not editable, so that no compiled-kernel cache or build folder of the working tree is found). By default the virtualenv sees the
packages already installed (``--system-site-packages``: no download, the same dependency
versions); ``--isolated`` installs the dependencies from the package index as a new user would.
Then runs ``neardup dedup examples/sample_zh.jsonl --id-field id -o OUT`` ``--runs`` times and
prints each run's wall time and the in-process time ``neardup`` reports (``summary.json``). The
first run compiles the kernels it uses; the later ones load them from the cache. Derived tables
are cached in a folder of the temporary directory (``NEARDUP_CACHE``), empty at the first run,
as on a fresh machine: the tables shipped with the package are all the first run finds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def install(where: Path, *, isolated: bool) -> Path:
    """A virtualenv at ``where`` holding this checkout; returns its Python."""
    venv.EnvBuilder(with_pip=True, system_site_packages=not isolated).create(where)
    python = where / "bin" / "python"
    args = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if not isolated:
        args += ["--no-deps"]
    subprocess.run([*args, str(clean_copy(where.parent / "checkout"))], check=True)
    return python


def clean_copy(where: Path) -> Path:
    """The checkout's files (tracked, or new and not ignored) copied to ``where``: a build
    folder or compiled cache left in the working tree must not reach the installed package."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the working tree is not copied
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, where / name)
    return where


def run_once(python: Path, out: Path) -> tuple[float, float]:
    """Wall time of one ``neardup dedup`` of the bundled sample, and its in-process time."""
    sample = REPO / "examples" / "sample_zh.jsonl"
    cmd = [str(python), "-m", "neardup", "dedup", str(sample), "--id-field", "id", "-o", str(out)]
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["NEARDUP_CACHE"] = str(out.parent / "neardup-cache")  # not this machine's tables
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=out.parent, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr}")
    wall = time.perf_counter() - t0
    summary = json.loads((out / "summary.json").read_text())
    return wall, float(summary["seconds"]["total"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--isolated", action="store_true", help="install dependencies from the index")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        python = install(Path(tmp) / "venv", isolated=args.isolated)
        print(f"virtualenv with neardup installed in {time.perf_counter() - t0:.1f} s")
        for k in range(args.runs):
            wall, inside = run_once(python, Path(tmp) / f"out{k}")
            label = "first run (no caches)" if k == 0 else f"run {k + 1}"
            print(f"{label:<22} wall {wall:5.2f} s   in-process {inside:5.2f} s")


if __name__ == "__main__":
    sys.exit(main())
