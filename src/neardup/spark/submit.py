"""Entry point for ``spark-submit``: the same arguments as ``neardup spark-dedup``.

    spark-submit --master yarn --py-files neardup.zip \\
        $(python -c 'import neardup.spark.submit as m; print(m.__file__)') \\
        hdfs:///corpus/news.parquet -o hdfs:///out/news --max-distance 3

``spark-submit`` makes the session (master, executors, memory); this script reuses it.
"""

from __future__ import annotations

import sys

from neardup.cli import main  # absolute: spark-submit runs this file as a script


def run(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    return main(["spark-dedup", *args])


if __name__ == "__main__":
    sys.exit(run())
