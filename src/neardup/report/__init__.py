"""The dedup report: a bounded sample recorded by the run, and a self-contained HTML page.

``neardup dedup`` records ``report_data.json`` (:mod:`.sample`): distributions and a sampled set
of removals, closest calls and near misses with their texts. ``neardup report OUTDIR`` (or
``dedup --report``) turns it into ``report.html`` (:mod:`.page`) with inline SVG plots
(:mod:`.svg`) and side-by-side differences (:mod:`.diff`); nothing is loaded from outside.
"""
