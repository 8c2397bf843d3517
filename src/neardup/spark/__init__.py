"""Distributed deduplication on Apache Spark (extra ``neardup[spark]``).

The job (:func:`neardup.spark.job.spark_dedup`) runs the same core functions as ``neardup dedup``
inside ``mapPartitions`` and gives the same clusters and representatives. Nothing here is
imported by ``import neardup``; pyspark is imported when a session is made.
"""
