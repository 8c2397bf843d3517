import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from neardup.arrays import unique_sorted


@given(arrays(np.uint64, st.integers(0, 300), elements=st.integers(0, 40)))
def test_unique_sorted_equals_numpy_unique(values):
    got = unique_sorted(values)
    assert got.dtype == values.dtype
    assert np.array_equal(got, np.unique(values))


def test_unique_sorted_leaves_its_input_alone():
    values = np.array([3, 1, 3, 2], np.int64)
    assert unique_sorted(values).tolist() == [1, 2, 3]
    assert values.tolist() == [3, 1, 3, 2]
