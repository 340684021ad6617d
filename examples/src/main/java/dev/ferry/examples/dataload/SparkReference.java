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

/** The same sums computed by Spark's own Parquet reader, and where the consumer's differ. */
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
        if (seen.deviceResidentBatches() > 0) {
            mismatches.add(seen.deviceResidentBatches() + " batches stayed in CUDA memory, which this Java consumer cannot read; only rows are compared for them");
            return mismatches;
        }
        for (int c = 0; c < schema.fields().length; c++) {
            StructField field = schema.fields()[c];
            ColumnChecksums.Column column = seen.columns().get(c);
            long valid = row.getLong(1 + 2 * c);
            if (valid != column.valid()) {
                mismatches.add(field.name() + " valid values: Spark " + valid + ", consumer " + column.valid());
            }
            Object expected = row.get(2 + 2 * c);
            if (field.dataType().equals(DataTypes.DoubleType)) {
                double want = expected == null ? 0 : ((Number) expected).doubleValue();
                if (Math.abs(want - column.doubleSum()) > RELATIVE_TOLERANCE * Math.max(1, Math.abs(want))) {
                    mismatches.add(field.name() + " sum: Spark " + want + ", consumer " + column.doubleSum());
                }
            }
            else {
                long want = expected == null ? 0 : ((Number) expected).longValue();
                long got = field.dataType().equals(DataTypes.StringType) ? column.utf8Bytes() : column.integerSum();
                if (want != got) {
                    mismatches.add(field.name() + " sum: Spark " + want + ", consumer " + got);
                }
            }
        }
        return mismatches;
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
