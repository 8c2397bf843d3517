"""Building a Spark session, with pyspark imported lazily and a clear error when it is missing."""

from __future__ import annotations

import os
import sys
from typing import Any

from ..errors import ConfigError, require


def spark_session(
    *, master: str | None = None, app_name: str = "neardup", config: dict[str, Any] | None = None
) -> Any:
    """A ``SparkSession`` (an existing one is reused, as ``spark-submit`` provides).

    In local mode the Python workers run the driver's interpreter, so they see the same
    installed ``neardup``; on a cluster the package must be shipped (see docs/spark.md).
    """
    require("pyspark", extra="spark", purpose="neardup spark-dedup")
    from pyspark.sql import SparkSession

    if master is None or master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    for key, value in (config or {}).items():
        builder = builder.config(key, str(value))
    try:
        spark = builder.getOrCreate()
    except Exception as exc:  # pyspark's own errors (the JVM did not start, a setting refused)
        if type(exc).__module__.split(".")[0] not in ("pyspark", "py4j"):
            raise
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(
            f"Spark did not start (--master {master or 'as configured'} and the --conf "
            f"settings): {reason}; Spark's own messages above say why"
        ) from None
    # lines end at "\n" alone, as the local reader cuts them (Hadoop's default also ends a line
    # at a lone "\r", and drops the "\r" of "\r\n", which the kept records must keep)
    spark.sparkContext._jsc.hadoopConfiguration().set("textinputformat.record.delimiter", "\n")
    return spark
