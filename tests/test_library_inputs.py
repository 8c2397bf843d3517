import numpy as np
import pytest

import neardup
from neardup import InputError
from neardup.index.brute import BruteForceIndex


@pytest.mark.parametrize("bad", [[3.5, 7], [-5, 7], [2**64, 7], ["a", "b"], np.array([1.0, 2.0])])
def test_index_add_many_refuses_what_is_not_a_fingerprint(bad):
    for index in (neardup.PermutedIndex(), BruteForceIndex()):
        with pytest.raises(InputError, match="fingerprint"):
            index.add_many(["x", "y"], bad)
        assert len(index) == 0


def test_index_add_many_keeps_what_it_is_given():
    fps = [0, 2**64 - 1, 12345]
    for index in (neardup.PermutedIndex(), BruteForceIndex()):
        index.add_many(["a", "b", "c"], np.array(fps, np.uint64))
        assert [index.fingerprint_of(k) for k in "abc"] == fps
        with pytest.raises(InputError, match="already in the index"):
            index.add_many(["a"], [1])
        with pytest.raises(InputError, match="2 ids but 1"):
            index.add_many(["d", "e"], [1])


@pytest.mark.parametrize(
    "args",
    [
        (3, [0.5], [1]),
        (3, ["a"], [1]),
        (3, [0], [5]),
        (3, [0, 1], [1]),
        (-1, [], []),
        (2.0, [0], [1]),
        (3, [[0, 1]], [[1, 2]]),
    ],
)
def test_clustering_refuses_bad_positions_with_an_input_error(args):
    n, left, right = args
    with pytest.raises(InputError):
        neardup.cluster_pairs(n, np.asarray(left), np.asarray(right))


def test_index_add_many_takes_a_generator_as_any_iterable():
    for index in (neardup.PermutedIndex(), BruteForceIndex()):
        index.add_many(["a", "b"], (fp for fp in [1, 2**64 - 1]))
        assert [index.fingerprint_of(k) for k in "ab"] == [1, 2**64 - 1]
        assert index.query_many(fp for fp in [1])[0][0][0] == "a"


def test_configs_take_keywords_only():
    from neardup.methods.auto import AutoConfig
    from neardup.methods.ngram import NgramConfig
    from neardup.methods.paragraph import ParagraphConfig
    from neardup.methods.simhash import SimhashConfig

    for config in (
        SimhashConfig,
        AutoConfig,
        NgramConfig,
        ParagraphConfig,
        neardup.HammingConfig,
        neardup.FingerprintConfig,
        neardup.NormalizeConfig,
    ):
        with pytest.raises(TypeError, match="positional"):
            config(5)
