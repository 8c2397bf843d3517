"""Evaluation: precision, recall, F1 and time of the methods on labelled data, with a report.

``metrics`` (pure NumPy, no I/O), ``datasets`` (loading and validating labelled pairs or a
clustered corpus), ``run`` (scoring methods on them), ``report`` (``report.json`` and a
self-contained ``report.html`` with matplotlib plots; extra ``neardup[eval]``).
"""
