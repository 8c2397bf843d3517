"""The ``neardup`` command line: one entry point, one module per subcommand.

Each subcommand module exposes ``register(subparsers)``, which adds its parser and sets
``func(args) -> int``. ``main(argv)`` returns the exit code, so tests call it in-process;
``console()`` is the installed command (and ``python -m neardup``): ``main``, then the exit.
What a command opens for its run (stores, detectors) it registers on ``args.resources``, an
ExitStack that ``main`` closes when the command ends, also on error.
Exit codes: 0 success, 1 the command ran but found a problem it reports (e.g. failed checks),
2 bad usage or bad input (a clear message, never a traceback), 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import os
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import NeardupError
from ..numbastart import skip_blas_probe, tolerate_cache_failures

# Subcommand modules, imported lazily so `neardup dedup` never imports FastAPI or pyspark.
_SUBCOMMANDS = ("dedup", "report", "compare", "index", "serve", "spark", "eval")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="neardup",
        description="Find and remove near-duplicate text (Chinese and English).",
    )
    parser.add_argument("--version", action="version", version=f"neardup {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _SUBCOMMANDS:
        try:
            module = importlib.import_module(f"neardup.cli.{name}_cmd")
        except ModuleNotFoundError as exc:  # a subcommand module not written yet
            if exc.name == f"neardup.cli.{name}_cmd":
                continue
            raise
        module.register(sub)
    _no_abbreviations(parser)
    return parser


def _no_abbreviations(parser: argparse.ArgumentParser) -> None:
    """Refuse abbreviated options in ``parser`` and every subcommand's parser (``--meth`` ran as
    ``--method``: a script that abbreviates breaks, or changes meaning, when an option is added)."""
    parser.allow_abbrev = False
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        for child in action.choices.values():
            _no_abbreviations(child)


def _command_parser(parser: argparse.ArgumentParser, args: argparse.Namespace):
    """The parser of the (sub)command ``args`` ran, so that its errors show its own usage."""
    for name in ("command", "index_command"):
        chosen = getattr(args, name, None)
        subparsers = parser._subparsers
        if chosen is None or subparsers is None:
            break
        action = next((a for a in subparsers._group_actions if chosen in (a.choices or {})), None)
        if action is None:
            break
        parser = action.choices[chosen]
    return parser


# What only writing may meet, no fault of neardup's: said in a line, not a traceback (not EIO,
# which reading an input may meet too, and which would then be misnamed).
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = build_parser()  # imports every subcommand: a Ctrl-C may land here
    except KeyboardInterrupt:
        print("neardup: interrupted", file=sys.stderr)
        return 130
    args, extra = parser.parse_known_args(list(argv) if argv is not None else None)
    if extra:  # a command may say why it has no such option (spark-dedup: a batch option)
        explain = getattr(args, "explain_unknown", None)
        reason = explain(extra) if explain is not None else None
        if reason is None:
            _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
        print(f"neardup: error: {reason}", file=sys.stderr)
        return 2
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    skip_blas_probe()  # this process is ours: no SciPy import before the first kernel
    tolerate_cache_failures()  # nor a traceback where compiled code cannot be cached
    try:
        with contextlib.ExitStack() as args.resources:
            code = int(args.func(args) or 0)
        if sys.stdout is not None:  # None when the command runs with its output closed
            sys.stdout.flush()  # what is still buffered fails here, said below, not at exit
        return code
    except NeardupError as exc:
        print(f"neardup: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("neardup: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # a reader stopped early (`| head`): cut short, not a success
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # what a shell reports for a process ended by SIGPIPE
    except OSError as exc:  # standard output on a full disk (`> /dev/full`), a failing device
        if exc.filename is not None or exc.errno not in _OUTPUT_ERRNOS:
            raise  # a file neardup opened says its own name where it is written
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"neardup: error: cannot write the output: {exc.strerror}", file=sys.stderr)
        return 2


def console() -> None:
    """The ``neardup`` command: :func:`main` on ``sys.argv``, then exit with its code.

    Before the interpreter tears down, every object left is frozen out of the collector
    (``gc.freeze``): teardown otherwise runs full collections over the objects of numba's
    compiled kernels, 0.25 s at the end of every command (measured on `neardup dedup`; the
    frozen objects are still freed, files still closed, exit handlers still run)."""
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    console()
