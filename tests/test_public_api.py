import subprocess
import sys

import neardup


def test_all_is_sorted_and_pinned():
    assert len(set(neardup.__all__)) == len(neardup.__all__)
    assert set(neardup.__all__) == {
        "FINGERPRINT_VERSION",
        "BruteForceIndex",
        "Clusters",
        "ConfigError",
        "DedupResult",
        "FingerprintConfig",
        "Fingerprinter",
        "HammingConfig",
        "IncompatibleIndexError",
        "InputError",
        "MissingDependencyError",
        "NeardupError",
        "NormalizeConfig",
        "PairSet",
        "PermutedIndex",
        "StoreError",
        "__version__",
        "brute_force_pairs",
        "cluster_pairs",
        "create_method",
        "dedup_frame",
        "dedup_texts",
        "feature_hash",
        "hamming_distance",
        "hamming_distances",
        "hamming_edges",
        "hamming_pairs",
        "normalize",
        "normalize_many",
    }
    for name in neardup.__all__:
        assert hasattr(neardup, name)


def test_core_imports_no_edges():
    code = (
        "import sys, neardup, neardup.cli, neardup.dedup; "
        "bad = [m for m in ('fastapi', 'uvicorn', 'pyspark', 'psycopg', 'matplotlib', 'pandas', "
        "'polars') "
        "if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_cli_help_lists_commands():
    proc = subprocess.run(
        [sys.executable, "-m", "neardup", "--help"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and "dedup" in proc.stdout and "compare" in proc.stdout


def test_every_exception_is_in_the_one_tree():
    """Every exception class neardup defines lives in neardup.errors under NeardupError
    (edges included: the service, Spark and the store)."""
    import importlib
    import inspect
    import pkgutil

    from neardup.errors import NeardupError

    skip = ("neardup.spark", "neardup.service", "neardup.store.postgres", "neardup.frames")
    found = []
    for info in pkgutil.walk_packages(neardup.__path__, "neardup."):
        if info.name.endswith(("__main__", ".submit")):  # entry points: they run on import
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            assert info.name.startswith(skip), info.name
            continue
        for _, obj in inspect.getmembers(module, inspect.isclass):
            outside = info.name != "neardup.errors"
            if outside and issubclass(obj, BaseException) and obj.__module__ == info.name:
                found.append(f"{info.name}.{obj.__name__}")
    assert not found, f"exceptions outside neardup.errors: {found}"
    errors = importlib.import_module("neardup.errors")
    tree = [
        c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__
    ]
    assert len(tree) >= 8 and all(issubclass(c, NeardupError) for c in tree)
