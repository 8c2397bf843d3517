"""Method options checked against the types their config class declares, before it is built.

Options come from keyword arguments, from ``--option NAME=VALUE`` (a JSON value, else the text)
and from stores; a config's own checks say which values are in range, this says which are of
the right kind: ``containment='abc'`` or ``strip_markup='maybe'`` is a
:class:`~neardup.errors.ConfigError` naming the option, never a traceback from deep inside,
nor a run that silently treats ``'maybe'`` as true. Counts and shares are never negative, and a
share is a finite number. ``normalize`` may be given as a JSON object of
:class:`~neardup.config.NormalizeConfig` fields.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from typing import Any

from ..config import NormalizeConfig
from ..errors import ConfigError

_KINDS = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}


def typed_options(config_class: type, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` checked against ``config_class``'s field types (a ``normalize`` object made a
    :class:`NormalizeConfig`); a value of another kind is a ``ConfigError``."""
    hints = typing.get_type_hints(config_class)
    return {name: _typed(name, value, hints.get(name)) for name, value in options.items()}


def _typed(name: str, value: Any, hint: Any) -> Any:
    allowed = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    if value is None and type(None) in allowed:
        return None
    kinds = [k for k in allowed if k is not type(None)]
    if NormalizeConfig in kinds:
        return _normalize(name, value)
    for kind in kinds:
        if kind in _KINDS and _is(value, kind):
            return _in_range(name, value, kind)
    if not any(kind in _KINDS for kind in kinds):
        return value  # a kind this check does not know: the config's own checks decide
    wanted = " or ".join(_KINDS[k] for k in kinds if k in _KINDS)
    if type(None) in allowed:
        wanted += " or null"
    raise ConfigError(f"option {name}={_shown(value)} must be {wanted}")


def _is(value: Any, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _in_range(name: str, value: Any, kind: type) -> Any:
    if kind is float and not math.isfinite(value):
        raise ConfigError(f"option {name}={_shown(value)} must be a finite number")
    if kind in (int, float) and value < 0:
        raise ConfigError(f"option {name}={_shown(value)} must not be negative")
    if kind is int and value >= 1 << 62:  # a count the compiled kernels hold in 64 bits
        raise ConfigError(f"option {name}={_shown(value)} is too large")
    return float(value) if kind is float else value


def _normalize(name: str, value: Any) -> NormalizeConfig:
    if isinstance(value, NormalizeConfig):
        return value
    if not isinstance(value, dict):
        fields = ", ".join(f.name for f in dataclasses.fields(NormalizeConfig))
        raise ConfigError(
            f"option {name}={_shown(value)} must be an object of normalisation fields ({fields}), "
            'e.g. {"casefold": false}'
        )
    known = {f.name for f in dataclasses.fields(NormalizeConfig)}
    unknown = sorted(set(value) - known)
    if unknown:
        raise ConfigError(
            f"option {name} has no field {', '.join(unknown)}; its fields: {', '.join(sorted(known))}"
        )
    return NormalizeConfig(**typed_options(NormalizeConfig, value))


def _shown(value: Any) -> str:
    """A value as it would be written on the command line (JSON), else its repr."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        return repr(value)
