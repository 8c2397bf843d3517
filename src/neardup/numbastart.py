"""numba's start-up in a process neardup owns (the command line): without the BLAS probe, and
with kernels that run from memory when their compiled code cannot be cached.

Before its first kernel, numba imports its NumPy support, and that import asks whether a BLAS
is there by importing ``scipy.linalg`` (``numba.np.arraymath._HAVE_BLAS``) — 0.17-0.28 s on
this machine, paid by every ``neardup`` run wherever SciPy is installed (the ``bench`` extra,
most data-science environments), although no neardup kernel does linear algebra. The answer
only chooses how numba's ``np.convolve`` / ``np.correlate`` of floats multiply (a BLAS call or
a loop, the same result); ``np.dot`` still finds the BLAS when a kernel uses it. So the command
line imports that support with the probe answered "no", and a library user's process is left
as it is (:func:`skip_blas_probe` is called by :func:`neardup.cli.main` only).
"""

from __future__ import annotations

import sys

_PROBED = "scipy.linalg.cython_blas"  # the module numba's probe imports


def skip_blas_probe() -> bool:
    """Import numba's NumPy support with its BLAS probe answered "no"; False when that support
    was already imported or SciPy's BLAS already loaded (nothing left to save)."""
    if "numba.np.arraymath" in sys.modules or _PROBED in sys.modules:
        return False
    sys.modules[_PROBED] = None  # an import of it raises ImportError: the probe says "no BLAS"
    try:
        import numba.np.arraymath  # noqa: F401  (registers numba's NumPy functions)
    finally:
        if sys.modules.get(_PROBED, 0) is None:
            del sys.modules[_PROBED]
    return True


def tolerate_cache_failures() -> None:
    """Let a kernel whose compiled code cannot be written to numba's cache (a full disk, a file
    size limit) run from memory, with one warning, instead of ending the command with numba's
    traceback: numba raises the write's ``OSError`` from inside the kernel's first call (it
    removes its own half-written file first). An unwritable cache directory numba already
    handles by not caching. Called by :func:`neardup.cli.main` only, like
    :func:`skip_blas_probe`."""
    from numba.core import caching

    original = caching.Cache.save_overload
    if getattr(original, "tolerant", False):
        return

    def save_overload(self, sig, data):  # numba's method, wrapped
        try:
            original(self, sig, data)
        except OSError as exc:
            _warn_once(exc)

    save_overload.tolerant = True  # type: ignore[attr-defined]
    caching.Cache.save_overload = save_overload


_warned: list[bool] = []


def _warn_once(exc: OSError) -> None:
    if not _warned:
        _warned.append(True)
        print(
            f"neardup: warning: compiled kernels cannot be cached ({exc.strerror or exc}); "
            "this run keeps them in memory and the next compiles them again",
            file=sys.stderr,
        )
