"""The method defaults a command's ``--help`` shows, read from the methods' config classes.

A method option's flag says, per method, the value a run uses when it is not given (``--threshold
...; default: ngram 0.5, paragraph 0.5``), and the help ends with every ``--option`` name of each
method and its default. Both are read from the config classes when the help is printed — never a
second copy of a number, and no method module imported by a command that does not ask for help.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

#: the config field a flag sets for a method with these config fields (None: none)
Resolve = Callable[[str, set[str]], str | None]


def shown(value: Any) -> str:
    """A default as ``--option NAME=VALUE`` takes it: a word bare, else JSON."""
    if isinstance(value, str):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    return json.dumps(value, ensure_ascii=False)


def flag_defaults(
    action: argparse.Action,
    flag: str,
    methods: Sequence[str],
    resolve: Resolve,
    *,
    condition: Callable[[str, str], str] = lambda method, field: "",
    none: str = "none",
) -> None:
    """Have the help of ``action`` (the option ``flag``, an argparse dest) end with its default
    in each of ``methods`` that has it: ``condition(method, field)`` says when the method uses
    the field (`` if evidence=topic``), ``none`` is how a default of None reads (``auto``)."""

    def note() -> str:
        from ..methods import config_defaults, config_fields

        parts = []
        for method in methods:
            field = resolve(flag, config_fields(method))
            if field is None:
                continue
            value = config_defaults(method)[field]
            parts.append(f"{method} {none if value is None else shown(value)}")
            parts[-1] += condition(method, field)
        return f"default: {', '.join(parts)}" if parts else ""

    action.defaults_note = note  # read by MethodHelpFormatter


@dataclasses.dataclass(frozen=True)
class MethodDefaults:
    """A parser's epilog: each method's options and their defaults (``syntax``: how the command
    takes one, ``NAME=VALUE`` or ``METHOD.NAME=VALUE``; ``omit``: options it does not take, as
    ``partial`` outside a batch run)."""

    methods: tuple[str, ...]
    syntax: str = "NAME=VALUE"
    omit: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """A heading, then a line per method; options every method has alike, once at the end."""
        from ..methods import config_defaults

        defaults = {
            m: {n: v for n, v in config_defaults(m).items() if n not in self.omit}
            for m in self.methods
        }
        first = defaults[self.methods[0]]
        common = [
            name
            for name, value in first.items()
            if len(self.methods) > 1
            and all(name in d and d[name] == value for d in defaults.values())
        ]
        lines = [
            f"method option defaults (--option {self.syntax} sets one; null: automatic or off):"
        ]
        for method, values in defaults.items():
            items = [f"{n}={shown(v)}" for n, v in values.items() if n not in common]
            lines.append(f"{method}: {', '.join(items)}")
        if common:
            lines.append(f"every method: {', '.join(f'{n}={shown(first[n])}' for n in common)}")
        return lines


def use_method_help(parser: argparse.ArgumentParser, methods: Sequence[str], **kwargs) -> None:
    """Show the defaults of ``methods`` in ``parser``'s help (its epilog, its flags' notes)."""
    parser.formatter_class = MethodHelpFormatter
    parser.epilog = MethodDefaults(tuple(methods), **kwargs)  # formatted by MethodHelpFormatter


class MethodHelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with the notes of :func:`flag_defaults` and the epilog of
    :class:`MethodDefaults` (a line per method, wrapped under it)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        note = getattr(action, "defaults_note", None)
        if text and note is not None and (extra := note()):
            text = f"{text}; {extra.replace('%', '%%')}"  # argparse %-formats the help
        return text

    def add_text(self, text: Any) -> None:
        if isinstance(text, MethodDefaults):
            self._add_item(self._format_defaults, [text])
        else:
            super().add_text(text)

    def _format_defaults(self, defaults: MethodDefaults) -> str:
        width = max(self._width - self._current_indent, 40)
        heading, *lines = defaults.lines()
        wrapped = [
            textwrap.fill(
                line,
                width,
                initial_indent="  ",
                subsequent_indent="      ",
                break_long_words=False,
                break_on_hyphens=False,
            )
            for line in lines
        ]
        return "\n".join([textwrap.fill(heading, width), *wrapped]) + "\n\n"
