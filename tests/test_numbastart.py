"""The command line starts numba without importing SciPy's linear algebra (neardup.numbastart)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample_zh.jsonl"

needs_scipy = pytest.mark.skipif(
    importlib.util.find_spec("scipy") is None,
    reason="the probe only costs where SciPy is installed",
)


def _run(code: str) -> str:
    env = {**os.environ, "NEARDUP_COMPILED_FROM": "0"}  # the kernels, however small the run
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@needs_scipy
def test_a_command_line_run_does_not_import_scipy_linalg(tmp_path):
    out = _run(
        "import sys\n"
        "from neardup.cli import main\n"
        f"code = main(['dedup', {str(SAMPLE)!r}, '--id-field', 'id', '-o', {str(tmp_path)!r},"
        " '--quiet'])\n"
        "print(code, 'scipy.linalg' in sys.modules, 'numba.np.arraymath' in sys.modules)"
    )
    assert out == "0 False True"  # the kernels ran, numba's NumPy support is loaded, no linalg


@needs_scipy
def test_after_the_skip_scipy_and_numba_linear_algebra_still_work():
    # the blocked module is importable again, and a kernel using the BLAS still compiles
    out = _run(
        "import numpy as np, numba\n"
        "from neardup.numbastart import skip_blas_probe\n"
        "first, second = skip_blas_probe(), skip_blas_probe()\n"
        "import scipy.linalg.cython_blas\n"
        "dot = numba.njit(lambda a, b: np.dot(a, b))\n"
        "print(first, second, dot(np.ones(3), np.arange(3.0)))"
    )
    assert out == "True False 3.0"


def test_nothing_is_skipped_once_numba_support_is_loaded():
    out = _run(
        "import numba.np.arraymath\n"
        "from neardup.numbastart import skip_blas_probe\n"
        "print(skip_blas_probe())"
    )
    assert out == "False"


_UNCACHEABLE = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # numba's cache files are larger
import numpy as np, numba
from neardup.numbastart import tolerate_cache_failures
tolerate_cache_failures()
tolerate_cache_failures()  # once is enough: the second call wraps nothing again
kernel = numba.njit(cache=True)(lambda a: a.sum() * 2)
print(kernel(np.arange(4)), kernel(np.arange(3)))
"""


def test_a_kernel_that_cannot_be_cached_runs_from_memory_with_one_warning(tmp_path):
    script = tmp_path / "uncacheable.py"  # numba caches kernels of a file, not of -c code
    script.write_text(_UNCACHEABLE)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["12", "6"]
    assert done.stderr.count("compiled kernels cannot be cached") == 1, done.stderr
    assert "Traceback" not in done.stderr
