import subprocess
import sys

import pytest

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


def test_texts_of_the_wrong_shape_or_kind_are_input_errors():
    import numpy as np

    from neardup import dedup_texts
    from neardup.errors import ConfigError, InputError

    for wrong in ("abc def", {"a": "same text"}, {"same text"}):
        with pytest.raises(InputError, match="must be a sequence of strings"):
            dedup_texts(wrong)
    with pytest.raises(InputError, match=r"texts\[1\] is a NoneType, not a str"):
        dedup_texts(["a text", None])
    texts = ["今天天气很好，适合出门散步。", "今天天气很好，适合出门散步！", "完全不同的一句话。"]
    expected = dedup_texts(texts).clusters.representative.tolist()
    for shape in (iter(texts), tuple(texts), np.array(texts)):
        assert dedup_texts(shape).clusters.representative.tolist() == expected
    for blank in (["a text", ""], ["a text", " \n\t"]):  # auto grouped two as exact copies,
        with pytest.raises(InputError, match=r"texts\[1\] is empty"):  # simhash kept them
            dedup_texts(blank)
    for lengths in ("ab", ["x", "y"], [[1], [2]], [2, float("nan")], [2, 2**70], [-1, 2]):
        with pytest.raises(ConfigError, match="keep='longest' needs"):  # int()'s ValueError,
            dedup_texts(["ab", "abc"], keep="longest", lengths=lengths)  # a NaN taken as longest
    longest = dedup_texts(["ab", "ab!"], keep="longest", lengths=np.array([2.0, 3.0]))
    assert longest.clusters.representative.tolist() == [1, 1]
    empty = dedup_texts([], keep="longest", clusters="components")
    assert len(empty.clusters.cluster_id) == 0
    for tables in (5, {"values": []}):  # an AttributeError deep in the method before
        with pytest.raises(ConfigError, match="is not a table of common grams"):
            dedup_texts(texts, tables=tables)


def test_hamming_distance_reads_signed_fingerprints_as_their_bits():
    import numpy as np

    from neardup import hamming_distance
    from neardup.simhash import hamming_distances

    for a, b in ((-1, 0), (-(2**63), 1), (2**64 - 1, 5)):
        bits = np.array([a], np.int64).view(np.uint64) if a < 0 else np.array([a], np.uint64)
        assert hamming_distance(a, b) == int(hamming_distances(bits, np.array([b], np.uint64))[0])
    with pytest.raises(ValueError, match="not a 64-bit fingerprint"):
        hamming_distance(2**64, 0)


def test_detector_refuses_ids_and_settings_it_would_misread():
    from neardup.errors import ConfigError, InputError
    from neardup.online import Detector
    from neardup.store import open_store

    det = Detector(store=open_store("memory://"))
    for call in (
        lambda: det.add(5, "一段文字"),
        lambda: det.remove(5),
        lambda: det.get(None),
        lambda: det.add_many({"ab": "一段文字"}),
        lambda: det.check_many("一段文字"),
    ):
        with pytest.raises(InputError):
            call()
    for settings in ({"max_matches": 0}, {"max_matches": 2.5}):
        with pytest.raises(ConfigError, match="max_matches"):
            Detector(store=open_store("memory://"), **settings)
    with pytest.raises(ConfigError, match="open_store"):
        Detector(store="memory://")
    with pytest.raises(InputError, match=r"nowhere/common_grams\.npz"):  # a path is loaded
        Detector(store=open_store("memory://"), tables="nowhere/common_grams.npz")


def test_detector_check_names_the_text_not_a_bogus_id():
    """A checked text has no id: ``check(None)`` said "the text of document ''"; it names the
    text (``check_many``: its position), while ``add`` still names the document's id."""
    from neardup.errors import InputError
    from neardup.online import Detector
    from neardup.store import open_store

    det = Detector(store=open_store("memory://"))
    for call, message in (
        (lambda: det.check(None), r"^the text is a NoneType, not a str$"),
        (lambda: det.check("a\ud800b"), r"^the text is not valid Unicode"),
        (lambda: det.check(" "), r"^the text is empty$"),
        (lambda: det.check_many(["一段文字", 5]), r"^texts\[1\] is a int, not a str$"),
        (lambda: det.add("d1", None), r"^the text of document 'd1' is a NoneType, not a str$"),
    ):
        with pytest.raises(InputError, match=message):
            call()
    assert len(det) == 0
