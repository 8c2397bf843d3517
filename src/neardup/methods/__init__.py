"""Deduplication methods and their registry.

=============  ==============================================================  =================
name           what it does                                                    measure
=============  ==============================================================  =================
``simhash``    64-bit SimHash + permuted-table Hamming search, optional         hamming
               exact verification of candidates
``ngram``      m-gram substring inverted index + Jaccard/edit verification     jaccard / edit
               (short texts)
``paragraph``  DRPKP: one fingerprint per paragraph from weighted topic words  paragraph_share
``auto``       the default: is B a *copy* of A — rare-gram candidates,        similarity
               template-aware verification (:mod:`neardup.copyrule`)
=============  ==============================================================  =================

``create(name, **options)`` builds a method from keyword options (the fields of its config
class); an unknown name or option is a :class:`~neardup.errors.ConfigError`.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from typing import Any

from ..errors import ConfigError
from .base import Method
from .typed import typed_options

#: The method every surface uses when none is named (library, CLI, service, Spark, eval).
DEFAULT_METHOD = "auto"

#: Methods that fit a frozen common-gram table (written by ``dedup``, loaded online).
TABLE_METHODS = ("auto", "paragraph")  # the methods that take a fitted common-gram table

#: Methods the online detector (``neardup serve`` / ``index``) can run.
_ONLINE = ("auto", "simhash", "ngram", "paragraph")

#: Methods ``spark-dedup`` distributes (the default among them).
SPARK_METHODS = ("auto", "simhash", "ngram", "paragraph")
SPARK_DEFAULT_METHOD = DEFAULT_METHOD

# name -> (module, class name, config class name); imported on first use
_REGISTRY: dict[str, tuple[str, str, str]] = {
    "simhash": ("neardup.methods.simhash", "SimhashMethod", "SimhashConfig"),
    "ngram": ("neardup.methods.ngram", "NgramMethod", "NgramConfig"),
    "paragraph": ("neardup.methods.paragraph", "ParagraphMethod", "ParagraphConfig"),
    "auto": ("neardup.methods.auto", "AutoMethod", "AutoConfig"),
}


def names() -> tuple[str, ...]:
    """Every method name, the default first."""
    return (DEFAULT_METHOD, *(n for n in _REGISTRY if n != DEFAULT_METHOD))


def online_methods() -> tuple[str, ...]:
    """Methods with an incremental index (they can run in the online detector)."""
    return tuple(n for n in names() if n in _ONLINE)


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


def config_defaults(name: str) -> dict[str, Any]:
    """The default of each option of the method ``name``, in its config class's order.

    >>> config_defaults("simhash")["max_distance"]
    3
    """
    _cls, cfg_cls = _load(name)
    config = cfg_cls()
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(cfg_cls)}


def create(name: str, *, tables: Any = None, **options: Any) -> Method:
    """Build the method ``name`` from keyword options (fields of its config class);
    ``tables``: frozen common-gram tables, or the path of the file a run wrote.

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
    config = cfg_cls(**typed_options(cfg_cls, options))
    if isinstance(tables, (str, os.PathLike)):  # the file a run wrote (OUTDIR/common_grams.npz)
        from .commongrams import CommonGrams

        tables = CommonGrams.load(tables)
    if tables is not None:
        from .commongrams import CommonGrams

        if not isinstance(tables, CommonGrams):
            raise ConfigError(
                f"tables={tables!r:.40} is not a table of common grams: give the path of the "
                "common_grams.npz a run wrote, or CommonGrams.load(path)"
            )
        if name not in TABLE_METHODS:
            raise ConfigError(f"method {name!r} takes no fitted tables")
        return cls(config, tables=tables)
    return cls(config)


__all__ = [
    "DEFAULT_METHOD",
    "SPARK_DEFAULT_METHOD",
    "SPARK_METHODS",
    "TABLE_METHODS",
    "Method",
    "available",
    "config_defaults",
    "config_fields",
    "create",
    "names",
    "online_methods",
]
