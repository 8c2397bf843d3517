"""Whether a run is large enough to repay compiling the kernels that have an exact twin.

numba compiles a kernel on its first call and caches it on disk. Some steps have a twin in
Python or NumPy that gives the same result — the oracle of the kernel's tests: the copy rule's
tokenizer (1.4 s to compile), the compared text's table walks (0.4 s), the markup kernel (1.3 s),
the one-replaced-token test (0.4 s), the test of numbers that differ unaligned (0.2 s), and
(:mod:`neardup.twins`) the per-text sort (0.6 s), the common-gram filter (0.4 s) and the token
count (0.3 s). A
run of a few hundred texts — the README's first command, a service's check of one text — is
done before those would be compiled, so a run under ``COMPILED_FROM`` code points takes the
twins (:func:`small_run`), and a larger one the kernels. The result is the same either way;
only the time differs. Outside a run (a library call, a service's verification) the kernels
are used. ``NEARDUP_COMPILED_FROM`` sets the bound (0: always the kernels; the test suite
sets it so, and tests the twins against the kernels on their own).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import ConfigError

COMPILED_FROM = 1 << 20  # code points of a run from which the kernels are compiled and used
_small: ContextVar[bool] = ContextVar("neardup_small_run", default=False)


@contextmanager
def run_of(code_points: int) -> Iterator[None]:
    """Within it, a run of ``code_points``: :func:`small_run` says whether the twins are used
    (threads of :mod:`neardup.parallel` see it too)."""
    token = _small.set(code_points < compiled_from())
    try:
        yield
    finally:
        _small.reset(token)


def small_run() -> bool:
    """Whether the current run is too small to compile the kernels that have a twin."""
    return _small.get()


def compiled_from() -> int:
    """The bound: ``NEARDUP_COMPILED_FROM`` when set, else ``COMPILED_FROM``."""
    given = os.environ.get("NEARDUP_COMPILED_FROM", "").strip()
    if not given:
        return COMPILED_FROM
    try:
        bound = int(given)
    except ValueError:
        bound = -1
    if bound < 0:
        raise ConfigError(
            f"NEARDUP_COMPILED_FROM={given!r}: give a number of code points (0: always compile "
            "the kernels), or unset it"
        )
    return bound
