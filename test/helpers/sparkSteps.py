# Runs the steps of a job in one Spark session (local[2]) and prints their results as JSON:
# test/helpers/spark.ts writes the job, starts this with the pinned pyspark's Python, and
# reads the answer. Each step is one of:
#   {"name", "run": [statements]}                  run them in order, nothing returned
#   {"name", "rows": statement, "args": {...}}     its rows (named parameter markers bound)
#   {"name", "explain": statement, "args": {...}}  the text of EXPLAIN FORMATTED
#   {"name", "tableSchema": table}                 its columns as the catalog holds them
#   {"name", "fileSchema": path}                   the columns Spark finds in the Parquet files there
# A step that fails gives {"error": message} and the next step runs.
import datetime
import decimal
import json
import os
import sys
import time

from pyspark.sql import SparkSession


def plain(value):
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    return value


def columns(schema):
    return [[f.name, f.dataType.simpleString()] for f in schema.fields]


def run(spark, step):
    args = step.get("args") or None
    if "run" in step:
        for statement in step["run"]:
            spark.sql(statement).collect()
        return None
    if "rows" in step:
        return [{k: plain(v) for k, v in row.asDict().items()} for row in spark.sql(step["rows"], args).collect()]
    if "explain" in step:
        return spark.sql("EXPLAIN FORMATTED " + step["explain"], args).collect()[0][0]
    if "tableSchema" in step:
        return columns(spark.table(step["tableSchema"]).schema)
    if "fileSchema" in step:
        return columns(spark.read.parquet(step["fileSchema"]).schema)
    raise ValueError(f"unknown step {sorted(step)}")


def jvm_cpu_seconds(spark):
    """The CPU seconds (user and system) the JVM of the session has used so far, or None where /proc does not tell."""
    try:
        with open(f"/proc/{spark.sparkContext._gateway.proc.pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 1)
    except (AttributeError, OSError, IndexError, ValueError):
        return None


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        job = json.load(f)
    started = time.monotonic()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("cloudunits-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        # a few rows per query: the JIT's first tier and no generated code cost less CPU than they save
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", job["warehouseDir"])
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    results = {"sparkVersion": spark.version, "sessionTimeZone": spark.conf.get("spark.sql.session.timeZone"), "steps": {}}
    startup = time.monotonic() - started
    try:
        for step in job["steps"]:
            try:
                results["steps"][step["name"]] = {"result": run(spark, step)}
            except Exception as error:  # the step's failure is its result, in Java's words when it is a Java error
                java = getattr(error, "java_exception", None)
                results["steps"][step["name"]] = {"error": (str(java) if java is not None else str(error)).split("\n")[0]}
        results["seconds"] = {"startup": round(startup, 1), "total": round(time.monotonic() - started, 1), "jvmCpu": jvm_cpu_seconds(spark)}
    finally:
        spark.stop()
    json.dump(results, sys.stdout)


main()
