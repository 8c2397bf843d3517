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
