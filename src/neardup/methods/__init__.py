"""Deduplication methods and their registry.

=============  ==============================================================  =================
name           what it does                                                    measure
=============  ==============================================================  =================
``simhash``    64-bit SimHash + permuted-table Hamming search, optional         hamming
               exact verification of candidates
``ngram``      m-gram substring inverted index + Jaccard/edit verification     jaccard / edit
               (short texts)
``paragraph``  DRPKP: one fingerprint per paragraph from weighted topic words  paragraph_share
``auto``       length-aware: ``ngram`` for short texts, verified ``simhash``   (per pair)
               for long ones
=============  ==============================================================  =================

``create(name, **options)`` builds a method from keyword options (the fields of its config
class); an unknown name or option is a :class:`~neardup.errors.ConfigError`.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from ..errors import ConfigError
from .base import Method

# name -> (module, class name, config class name); imported on first use
_REGISTRY: dict[str, tuple[str, str, str]] = {
    "simhash": ("neardup.methods.simhash", "SimhashMethod", "SimhashConfig"),
    "ngram": ("neardup.methods.ngram", "NgramMethod", "NgramConfig"),
    "paragraph": ("neardup.methods.paragraph", "ParagraphMethod", "ParagraphConfig"),
    "auto": ("neardup.methods.auto", "AutoMethod", "AutoConfig"),
}


def available() -> list[str]:
    """Names of the methods whose modules are installed."""
    names = []
    for name, (module, _cls, _cfg) in _REGISTRY.items():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        names.append(name)
    return names


def _load(name: str):
    if name not in _REGISTRY:
        raise ConfigError(f"method={name!r} is not known; choose one of {', '.join(_REGISTRY)}")
    module_name, cls_name, cfg_name = _REGISTRY[name]
    module = importlib.import_module(module_name)
    return getattr(module, cls_name), getattr(module, cfg_name)


def config_fields(name: str) -> set[str]:
    """Option names the method ``name`` accepts."""
    _cls, cfg_cls = _load(name)
    return {f.name for f in dataclasses.fields(cfg_cls)}


def create(name: str, **options: Any) -> Method:
    """Build the method ``name`` from keyword options (fields of its config class).

    >>> create("simhash", max_distance=4).config.max_distance
    4
    """
    cls, cfg_cls = _load(name)
    fields = {f.name for f in dataclasses.fields(cfg_cls)}
    unknown = sorted(set(options) - fields)
    if unknown:
        raise ConfigError(
            f"method {name!r} has no option {', '.join(unknown)}; its options are: "
            f"{', '.join(sorted(fields))}"
        )
    return cls(cfg_cls(**options))


__all__ = ["Method", "available", "config_fields", "create"]
