package dev.ferry.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import io.trino.tpcds.Results;
import io.trino.tpcds.Session;
import io.trino.tpcds.Table;
import io.trino.tpcds.column.Column;
import io.trino.tpcds.column.ColumnType;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * TPC-DS tables from an independent generator (Trino's port of dsdgen, {@code io.trino.tpcds}),
 * written as Parquet by Spark once per directory and registered as views read with {@code gds}
 * (Ferry on) or Spark's Parquet reader (Ferry off). Rows are generated on the executors, one
 * generator chunk per task, so no table passes through the driver. Keys are INT, money
 * DECIMAL(p,s), dates DATE, text STRING, as in Spark's own TPC-DS schema.
 */
final class TpcdsTables
{
    private TpcdsTables() {}

    /** Writes {@code tables} at {@code scale} under {@code directory} (one Parquet directory per table) unless already there. */
    static void generate(SparkSession spark, Path directory, double scale, List<String> tables, int chunks)
    {
        for (String name : tables) {
            Path target = directory.resolve(name);
            if (Files.isDirectory(target) && Files.exists(target.resolve("_SUCCESS"))) {
                continue;
            }
            Table table = Table.getTable(name);
            Column[] columns = table.getColumns();
            List<StructField> text = new ArrayList<>();
            List<String> casts = new ArrayList<>();
            for (Column column : columns) {
                text.add(DataTypes.createStructField(column.getName(), DataTypes.StringType, true));
                casts.add("CAST(" + column.getName() + " AS " + sqlType(column.getType()) + ") AS " + column.getName());
            }
            StructType schema = new StructType(text.toArray(new StructField[0]));
            // Small tables are generated whole (dsdgen does not split them).
            int parts = table.isSmall() ? 1 : chunks;
            Dataset<Row> rows = spark.range(0, parts, 1, parts)
                    .mapPartitions((MapPartitionsFunction<Long, Row>) ids -> chunk(name, scale, parts, ids), Encoders.row(schema));
            rows.selectExpr(casts.toArray(new String[0])).write().mode("overwrite").parquet(target.toString());
        }
    }

    /** Registers every table as a view: read with {@code gds} when {@code ferry}, else with Spark's Parquet reader. */
    static void register(SparkSession spark, Path directory, List<String> tables, boolean ferry)
    {
        for (String name : tables) {
            spark.read().format(ferry ? "gds" : "parquet").load(directory.resolve(name).toString()).createOrReplaceTempView(name);
        }
    }

    /** The rows of this task's generator chunks, generated as they are read. */
    private static Iterator<Row> chunk(String name, double scale, int parts, Iterator<Long> ids)
    {
        Table table = Table.getTable(name);
        return new Iterator<>()
        {
            private Iterator<List<List<String>>> rows = List.<List<List<String>>>of().iterator();

            @Override
            public boolean hasNext()
            {
                while (!rows.hasNext() && ids.hasNext()) {
                    int chunk = Math.toIntExact(ids.next()) + 1;
                    rows = Results.constructResults(table, Session.getDefaultSession().withScale(scale).withParallelism(parts).withChunkNumber(chunk)).iterator();
                }
                return rows.hasNext();
            }

            @Override
            public Row next()
            {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                // A sales table's generator also yields its returns rows: the first list is the table's own row.
                return RowFactory.create(rows.next().get(0).toArray());
            }
        };
    }

    private static String sqlType(ColumnType type)
    {
        switch (type.getBase()) {
            case INTEGER:
            case IDENTIFIER:
                return "INT";
            case DATE:
                return "DATE";
            case DECIMAL:
                return "DECIMAL(" + type.getPrecision().orElseThrow() + "," + type.getScale().orElseThrow() + ")";
            default:
                return "STRING";
        }
    }
}
