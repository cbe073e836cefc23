#!/usr/bin/env python3
"""One Spark session (PySpark, local mode, everything on 127.0.0.1) for
the tests that need the warehouse's own engine: Spark SQL with Hive
support over an embedded Derby metastore in WORK, and Spark's Thrift
server (HiveServer2) on 127.0.0.1:PORT over the same metastore, so that
beeline sees what the session sees.  The JVM's time zone and the
session's are ZONE: Spark's Hive SerDe reads a text table's TIMESTAMP as
a local time of the JVM's zone (docs/reconcile.md).

    spark_server.py WORK FIFO PORT ZONE

Prints "ready" once both run, then reads commands from FIFO, one a line:

    sql IN OUT   runs the statements of the file IN (each ended by ';' at
                 the end of a line; lines starting with -- skipped) and
                 writes the rows of the last one to OUT as TSV (NULL as
                 \\N), then creates OUT.done (OUT.err, with the error, when
                 a statement failed)
    quit         stops Spark and exits 0
"""
import os
import sys
import traceback

from pyspark.sql import SparkSession


def statements(path):
    text = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("--"):
                continue
            text.append(line)
            if line.rstrip().endswith(";"):
                yield "".join(text).rstrip().rstrip(";")
                text = []
    if "".join(text).strip():
        yield "".join(text)


def tsv(value):
    return "\\N" if value is None else str(value)


def main():
    work, fifo, port, zone = sys.argv[1:5]
    os.chdir(work)
    spark = (SparkSession.builder.master("local[2]")
             .appName("kedge-tests")
             .config("spark.ui.enabled", "false")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.driver.extraJavaOptions",
                     "-Duser.timezone=" + zone)
             .config("spark.sql.session.timeZone", zone)
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.warehouse.dir", work + "/warehouse")
             .config("spark.hadoop.hive.server2.thrift.port", port)
             .config("spark.hadoop.hive.server2.thrift.bind.host", "127.0.0.1")
             .enableHiveSupport()
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    jvm = spark.sparkContext._jvm
    jvm.org.apache.spark.sql.hive.thriftserver.HiveThriftServer2 \
        .startWithContext(spark._jsparkSession.sqlContext())
    print("ready", flush=True)
    while True:
        with open(fifo, encoding="utf-8") as f:
            for line in f:
                cmd = line.split()
                if not cmd:
                    continue
                if cmd[0] == "quit":
                    spark.stop()
                    return 0
                if cmd[0] != "sql" or len(cmd) != 3:
                    print("spark_server: unknown command %r" % line,
                          file=sys.stderr, flush=True)
                    continue
                out = cmd[2]
                try:
                    rows = []
                    for s in statements(cmd[1]):
                        rows = spark.sql(s).collect()
                    with open(out, "w", encoding="utf-8") as o:
                        for r in rows:
                            o.write("\t".join(tsv(v) for v in r) + "\n")
                    open(out + ".done", "w").close()
                except Exception:
                    with open(out + ".err", "w", encoding="utf-8") as o:
                        o.write(traceback.format_exc())
                    open(out + ".done", "w").close()


if __name__ == "__main__":
    sys.exit(main())
