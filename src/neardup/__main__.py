try:
    from .cli import console
except KeyboardInterrupt:  # Ctrl-C while the command starts (its imports take a few 0.1 s)
    import sys

    print("neardup: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

console()
