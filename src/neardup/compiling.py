"""Whether work is large enough to repay compiling the kernels that have an exact twin.

numba compiles a kernel on its first call and caches it on disk. Some steps have a twin in
Python or NumPy that gives the same result — the oracle of the kernel's tests: the copy rule's
tokenizer (1.4 s to compile), the compared text's table walks (0.4 s), the markup kernel (1.3 s),
and (:mod:`neardup.twins`) the per-text sort (0.6 s), the common-gram filter (0.4 s) and the
token count (0.3 s). A run of a few hundred texts — the README's first command, a service's
check of one text — is done before those would be compiled, so it takes the twins, and a larger
run the kernels. The decisions are the same either way (clusters, pairs, similarities, verdicts;
only the value-change count a rejected pair carries inside a batch may differ: the compiled
numbers test rejects without counting); only the time differs.

A batch declares its size (:func:`run_of`: code points and texts; threads of
:mod:`neardup.parallel` see it); outside one, each call is judged by its own size
(:func:`small`). The value test's compiled shortcuts (the one-replaced-token and
unaligned-numbers tests, 0.6 s to compile) save time per pair, so they are skipped only for
fewer than ``PAIRS_FROM`` pairs of a small run or a call outside a batch (:func:`few_pairs`).
``NEARDUP_COMPILED_FROM`` sets the code-point bound (0: always the kernels; the test suite
sets it so, and tests the twins against the kernels on their own).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from .errors import ConfigError

COMPILED_FROM = 1 << 20  # code points from which the kernels are compiled and used
TEXTS_FROM = 20_000  # texts from which they are, however short (the Python steps cost per text)
PAIRS_FROM = 500  # pairs from which the value test's compiled shortcuts are
_small: ContextVar[bool | None] = ContextVar("neardup_small_run", default=None)
_preferring = 0  # open kernels_preferred blocks, process-wide (the detector has a thread)
_preferring_lock = threading.Lock()


def is_small(code_points: int, texts: int = 0) -> bool:
    """Whether work of ``code_points`` in ``texts`` texts is too small to compile for."""
    bound = compiled_from()
    return bound > 0 and code_points < bound and texts < TEXTS_FROM


def texts_are_small(texts: Sequence[Any]) -> bool:
    """:func:`is_small` of a batch of ``texts`` (items that are not texts count no code point);
    ``TEXTS_FROM`` texts or more are large whatever their length, and are not read."""
    if len(texts) >= TEXTS_FROM or compiled_from() == 0:
        return False
    return is_small(_code_points(texts), len(texts))


def small_texts(texts: Sequence[Any]) -> bool:
    """:func:`small` of a call over ``texts``: the batch's answer within :func:`run_of`, else
    the call's by its code points (read only then)."""
    declared = _small.get()
    return is_small(_code_points(texts)) if declared is None else declared


def _code_points(texts: Sequence[Any]) -> int:
    """The code points of ``texts``; items that are not texts count 0 (the steps that read
    them say what is wrong)."""
    return sum(len(t) for t in texts if isinstance(t, str))


@contextmanager
def run_of_texts(texts: Sequence[Any]) -> Iterator[None]:
    """:func:`run_of` a batch of ``texts`` (:func:`texts_are_small`)."""
    token = _small.set(texts_are_small(texts))
    try:
        yield
    finally:
        _small.reset(token)


@contextmanager
def run_of(code_points: int, texts: int = 0) -> Iterator[None]:
    """Within it, a batch of ``code_points`` in ``texts`` texts, which :func:`small` answers
    for (threads of :mod:`neardup.parallel` see it too)."""
    token = _small.set(is_small(code_points, texts))
    try:
        yield
    finally:
        _small.reset(token)


def small(code_points: int) -> bool:
    """Whether to take the twins: the batch's answer within :func:`run_of`, else this call's
    (``code_points``, or values, of its input)."""
    declared = _small.get()
    return is_small(code_points) if declared is None else declared


def few_pairs(pairs: int) -> bool:
    """Whether to decide ``pairs`` without the value test's compiled shortcuts."""
    return pairs < PAIRS_FROM and _small.get() is not False and compiled_from() > 0


@contextmanager
def kernels_preferred(prefer: bool = True) -> Iterator[None]:
    """Within it (``prefer``), every call of this process takes the kernels, however small: a
    long run of small calls — ``index add`` of a large input, each group of documents checked
    against candidates the store holds — repays compiling them once (the paragraph method's
    online check tokenized its candidates' paragraphs in Python: 3.2x slower on 500 stories)."""
    global _preferring
    if not prefer:
        yield
        return
    with _preferring_lock:  # counted, not saved and restored: blocks of two threads interleave
        _preferring += 1
    try:
        yield
    finally:
        with _preferring_lock:
            _preferring -= 1


def compiled_from() -> int:
    """The bound: 0 within :func:`kernels_preferred`, else ``NEARDUP_COMPILED_FROM`` when set,
    else ``COMPILED_FROM``."""
    if _preferring:
        return 0
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
