package dev.ferry.gds.spark;

import dev.ferry.gds.parquet.ColumnNames;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.arrow.ArrowWriter$;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** Partition column values of one file, repeated for every row of a batch, as Arrow vectors. */
final class PartitionVectors
{
    private final InternalRow values;
    // Converted once per file, not per batch (it showed in profiles); null when no partition column is read.
    private final Schema arrowSchema;

    /**
     * {@code requested} partition columns, their values picked from the file's {@code allValues}
     * (ordered as {@code partitionSchema}); timestamps in Arrow carry {@code timeZone}.
     */
    PartitionVectors(StructType requested, StructType partitionSchema, InternalRow allValues, boolean caseSensitive, String timeZone)
    {
        requireNonNull(requested, "requested is null");
        this.arrowSchema = requested.fields().length == 0 ? null : ArrowUtils.toArrowSchema(requested, timeZone, false, false);
        Object[] picked = new Object[requested.fields().length];
        for (int index = 0; index < picked.length; index++) {
            StructField field = requested.fields()[index];
            int source = indexOf(partitionSchema, field.name(), caseSensitive);
            picked[index] = allValues.isNullAt(source) ? null : allValues.get(source, partitionSchema.fields()[source].dataType());
        }
        this.values = new GenericInternalRow(picked);
    }

    List<FieldVector> create(int rows, BufferAllocator allocator)
    {
        if (arrowSchema == null) {
            // Most scans read no partition column: nothing to build per batch.
            return List.of();
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(arrowSchema, allocator);
        try {
            ArrowWriter writer = ArrowWriter$.MODULE$.create(root);
            for (int row = 0; row < rows; row++) {
                writer.write(values);
            }
            writer.finish();
            return root.getFieldVectors();
        }
        catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    private static int indexOf(StructType schema, String name, boolean caseSensitive)
    {
        for (int index = 0; index < schema.fields().length; index++) {
            if (ColumnNames.sameName(schema.fields()[index].name(), name, caseSensitive)) {
                return index;
            }
        }
        throw new IllegalArgumentException("No partition column " + name + " in " + schema.simpleString());
    }
}
