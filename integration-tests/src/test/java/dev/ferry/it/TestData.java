package dev.ferry.it;

import org.apache.spark.sql.SparkSession;

/** Small tables (a few thousand rows at most) covering every type Ferry shuffles, with nulls and nesting. */
final class TestData
{
    private TestData() {}

    static void register(SparkSession spark)
    {
        spark.sql("CREATE OR REPLACE TEMPORARY VIEW facts AS SELECT id, CAST(id % 10 AS INT) AS k, "
                + "IF(id % 7 = 0, NULL, CONCAT('s', id % 13)) AS s, id * 1.5D AS d FROM range(0, 2000, 1, 4)");
        spark.sql("CREATE OR REPLACE TEMPORARY VIEW dims AS SELECT CAST(id AS INT) AS k, CONCAT('dim', id) AS name FROM range(0, 15, 1, 2)");
        // 90% of the rows share key 0: the skewed side of a join.
        spark.sql("CREATE OR REPLACE TEMPORARY VIEW skewed AS SELECT id, CAST(IF(id % 10 = 0, id % 97, 0) AS INT) AS k, "
                + "CONCAT('payload-', id) AS payload FROM range(0, 6000, 1, 4)");
        spark.sql("CREATE OR REPLACE TEMPORARY VIEW types AS SELECT id, "
                + "IF(id % 5 = 0, NULL, id % 2 = 0) AS b, "
                + "CAST(id % 100 AS TINYINT) AS i8, CAST(id * 3 AS SMALLINT) AS i16, IF(id % 6 = 0, NULL, CAST(id AS INT)) AS i32, "
                + "id * 100000000001 AS i64, CAST(id / 3 AS FLOAT) AS f32, IF(id % 4 = 0, NULL, id / 7D) AS f64, "
                + "CAST(id / 9 AS DECIMAL(10, 3)) AS dec_small, CAST(id AS DECIMAL(38, 2)) * CAST(12345678901234567 AS DECIMAL(20, 0)) AS dec_big, "
                + "IF(id % 3 = 0, NULL, repeat('x', CAST(id % 5 AS INT))) AS str, IF(id % 8 = 0, NULL, CAST(CONCAT('b', id) AS BINARY)) AS bin, "
                + "date_add(DATE'2020-01-01', CAST(id AS INT)) AS dt, timestamp_seconds(1600000000 + id * 3601) AS ts, "
                + "CAST(timestamp_seconds(1600000000 + id * 61) AS TIMESTAMP_NTZ) AS ntz, "
                + "IF(id % 9 = 0, NULL, array(id, NULL, id + 1)) AS arr, "
                + "named_struct('a', id, 'b', IF(id % 2 = 0, NULL, CAST(id AS STRING)), 'c', array(named_struct('x', id))) AS st, "
                + "IF(id % 10 = 0, NULL, map(CONCAT('k', id), id, 'z', CAST(NULL AS BIGINT))) AS m, "
                + "array(map('q', array(IF(id % 2 = 0, NULL, id)))) AS nested, "
                + "CAST(NULL AS STRING) AS always_null "
                + "FROM range(0, 300, 1, 3)");
    }
}
