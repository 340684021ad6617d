package dev.ferry.gds.plan;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.gds.parquet.ColumnNames;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.Footer;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat$;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A table's schema from its footers, by Spark's own Parquet-to-Spark rules (so types, including
 * INT96, decimals, timestamps and nested types, come out as {@code spark.read.parquet} infers them,
 * and a Spark schema stored in the footer wins), merged across files, then the partition columns.
 */
public final class SchemaInference
{
    private SchemaInference() {}

    public static StructType dataSchema(List<PlannedFile> files, SQLConf conf, String location)
    {
        ParquetToSparkSchemaConverter converter = new ParquetToSparkSchemaConverter(conf);
        StructType merged = null;
        // In path order, as Spark's merge does, so merged fields come out in the same order.
        List<PlannedFile> ordered = new ArrayList<>(files);
        ordered.sort(Comparator.comparing(file -> file.file().path()));
        for (PlannedFile file : ordered) {
            StructType schema;
            try {
                schema = ParquetFileFormat$.MODULE$.readSchemaFromFooter(new Footer(new Path(file.file().path()), file.footer()), converter);
            }
            catch (Exception e) {
                // Spark's AnalysisException is checked in Java terms but thrown from Scala undeclared.
                throw new FerryException(ErrorCategory.USER_ERROR, "Cannot read the schema of " + file.file().path() + ": " + e.getMessage(), e);
            }
            merged = merged == null ? schema : merged.merge(schema, conf.caseSensitiveAnalysis());
        }
        if (merged == null) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Unable to infer schema for gds: no readable, non-empty Parquet files in " + location + ". It must be specified manually.");
        }
        // File sources read every column as nullable, whatever the footer says (Spark's DataSource does the same).
        return merged.asNullable();
    }

    /** Data columns, with a partition column replacing a data column of the same name in place, then the other partition columns. */
    public static StructType tableSchema(StructType dataSchema, StructType partitionSchema, boolean caseSensitive)
    {
        List<StructField> fields = new ArrayList<>();
        List<StructField> remaining = new ArrayList<>(List.of(partitionSchema.fields()));
        for (StructField field : dataSchema.fields()) {
            StructField partition = remaining.stream().filter(candidate -> ColumnNames.sameName(candidate.name(), field.name(), caseSensitive)).findFirst().orElse(null);
            if (partition != null) {
                remaining.remove(partition);
                fields.add(partition);
            }
            else {
                fields.add(field);
            }
        }
        fields.addAll(remaining);
        return new StructType(fields.toArray(new StructField[0]));
    }
}
