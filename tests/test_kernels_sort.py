"""The per-document sorts of hashes (:func:`neardup._kernels._sort_hashes`) against numpy."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup import _kernels

VALUES = st.one_of(
    st.integers(0, 2**64 - 1),  # spread over the buckets
    st.integers(0, 5),  # repeats, and one bucket (the top bits all zero): heapsort
    st.sampled_from([2**63, 2**63 - 1, 2**64 - 1, 2**63 + 1]),  # bucket edges
)


def _flat(docs: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    values = np.array([v for doc in docs for v in doc], np.uint64)
    offsets = np.zeros(len(docs) + 1, np.int64)
    np.cumsum([len(doc) for doc in docs], out=offsets[1:])
    return values, offsets


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(VALUES, max_size=120), max_size=8))
def test_unique_and_sorted_per_document_equal_numpy(docs):
    values, offsets = _flat(docs)
    unique, unique_off = _kernels.unique_per_doc(values, offsets)
    ordered = _kernels.sort_per_doc(values, offsets)
    for d in range(len(docs)):
        seg = values[offsets[d] : offsets[d + 1]]
        assert unique[unique_off[d] : unique_off[d + 1]].tolist() == np.unique(seg).tolist()
        assert ordered[offsets[d] : offsets[d + 1]].tolist() == np.sort(seg).tolist()


def test_long_documents_of_few_values_sort_in_time():
    """Two values repeated 100,000 times in one bucket: heapsort, not a quadratic insertion."""
    values, offsets = _flat([[5, 3] * 100_000, list(range(70_000, 0, -1))])
    ordered = _kernels.sort_per_doc(values, offsets)
    assert ordered[:200_000].tolist() == [3] * 100_000 + [5] * 100_000
    assert ordered[200_000:].tolist() == list(range(1, 70_001))


def test_an_array_past_the_bucket_cap_sorts():
    """Past ``2 ** MAX_BUCKET_BITS`` values, buckets hold several each (heapsort past
    ``SMALL_BUCKET``): still numpy's order; and the counts of the common-gram fit are
    ``np.unique``'s."""
    from neardup.methods.commongrams import _unique_counts

    rng = np.random.default_rng(5)
    n = (1 << _kernels.MAX_BUCKET_BITS) * 3 + 7
    values = rng.integers(0, 2**64 - 1, n, dtype=np.uint64)
    values[: n // 3] = values[n // 3 : 2 * (n // 3)]  # repeats
    ordered = _kernels.sort_per_doc(values, np.array([0, n], np.int64))
    assert np.array_equal(ordered, np.sort(values))
    for got, want in zip(
        _unique_counts(values), np.unique(values, return_counts=True), strict=True
    ):
        assert np.array_equal(got, want)
