package dev.ferry.examples.dataload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** The same sums computed by Spark's own Parquet reader, and where the verification copies' (and the consumer's, where it read every batch) differ. */
final class SparkReference
{
    private static final double RELATIVE_TOLERANCE = 1e-9;

    private SparkReference() {}

    static List<String> compare(SparkSession spark, Path input, StructType schema, ColumnChecksums seen)
    {
        List<String> expressions = new ArrayList<>();
        expressions.add("count(*)");
        for (StructField field : schema.fields()) {
            String column = "`" + field.name().replace("`", "``") + "`";
            expressions.add("count(" + column + ")");
            expressions.add(sum(column, field.dataType()));
        }
        Row row = spark.read().parquet(input.toString()).selectExpr(expressions.toArray(new String[0])).first();
        List<String> mismatches = new ArrayList<>();
        if (row.getLong(0) != seen.rows()) {
            mismatches.add("rows: Spark " + row.getLong(0) + ", consumer " + seen.rows());
        }
        // The check covers every batch through its verification copy, device-resident ones included.
        if (seen.verifiedBatches() != seen.batches() || seen.verifiedRows() != seen.rows()) {
            mismatches.add("verification copies cover " + seen.verifiedBatches() + " of " + seen.batches() + " batches (" + seen.verifiedRows() + " of "
                    + seen.rows() + " rows)");
        }
        compareColumns(schema, row, "verification copies", seen.verifiedColumns(), mismatches);
        // Where the consumer could read every batch itself (host memory), its own sums must agree too.
        if (seen.hostBatches() == seen.batches()) {
            compareColumns(schema, row, "consumer", seen.columns(), mismatches);
        }
        return mismatches;
    }

    private static void compareColumns(StructType schema, Row row, String who, List<ColumnChecksums.Column> columns, List<String> mismatches)
    {
        for (int c = 0; c < schema.fields().length; c++) {
            StructField field = schema.fields()[c];
            ColumnChecksums.Column column = columns.get(c);
            long valid = row.getLong(1 + 2 * c);
            if (valid != column.valid()) {
                mismatches.add(field.name() + " valid values: Spark " + valid + ", " + who + " " + column.valid());
            }
            Object expected = row.get(2 + 2 * c);
            if (field.dataType().equals(DataTypes.DoubleType)) {
                double want = expected == null ? 0 : ((Number) expected).doubleValue();
                if (Math.abs(want - column.doubleSum()) > RELATIVE_TOLERANCE * Math.max(1, Math.abs(want))) {
                    mismatches.add(field.name() + " sum: Spark " + want + ", " + who + " " + column.doubleSum());
                }
            }
            else {
                long want = expected == null ? 0 : ((Number) expected).longValue();
                long got = field.dataType().equals(DataTypes.StringType) ? column.utf8Bytes() : column.integerSum();
                if (want != got) {
                    mismatches.add(field.name() + " sum: Spark " + want + ", " + who + " " + got);
                }
            }
        }
    }

    private static String sum(String column, DataType type)
    {
        if (type.equals(DataTypes.StringType)) {
            return "sum(octet_length(" + column + "))";
        }
        if (type.equals(DataTypes.DateType)) {
            return "sum(unix_date(" + column + "))";
        }
        return "sum(" + column + ")";
    }
}
