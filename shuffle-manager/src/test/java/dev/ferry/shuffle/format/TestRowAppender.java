package dev.ferry.shuffle.format;

import java.util.List;

import dev.ferry.shuffle.format.append.RowAppender;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The direct row-to-Arrow appender produces the vectors Spark's own {@link ArrowWriter} produces
 * for the same rows: every type, nulls everywhere, UnsafeRows and columnar row views as input, and
 * buffers reused across batches (stale bits and offsets of a previous batch must not leak).
 */
class TestRowAppender
{
    @Test
    void matchesSparksArrowWriterForEveryTypeAcrossReusedBatches()
    {
        Schema schema = ArrowSchemas.toArrow(TestingRows.ALL_TYPES);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot ours = VectorSchemaRoot.create(schema, allocator);
                VectorSchemaRoot spark = VectorSchemaRoot.create(schema, allocator)) {
            RowAppender appender = new RowAppender(ours);
            ArrowWriter writer = ArrowWriter.create(spark);
            // Different sizes and seeds per batch: the vectors grow, then get reused for fewer rows.
            int[] sizes = {700, 5, 3000, 1, 64};
            for (int batch = 0; batch < sizes.length; batch++) {
                List<UnsafeRow> rows = TestingRows.random(TestingRows.ALL_TYPES, sizes[batch], 100 + batch);
                for (UnsafeRow row : rows) {
                    appender.append(row);
                    writer.write(row);
                }
                appender.finish();
                ours.setRowCount(appender.rows());
                writer.finish();
                assertSameVectors(spark, ours, "batch " + batch);
                appender.reset();
                writer.reset();
            }
        }
    }

    @Test
    void acceptsColumnarRowViewsAsInput()
    {
        Schema schema = ArrowSchemas.toArrow(TestingRows.ALL_TYPES);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot source = VectorSchemaRoot.create(schema, allocator);
                VectorSchemaRoot ours = VectorSchemaRoot.create(schema, allocator)) {
            ArrowWriter writer = ArrowWriter.create(source);
            for (UnsafeRow row : TestingRows.random(TestingRows.ALL_TYPES, 2000, 5)) {
                writer.write(row);
            }
            writer.finish();
            List<FieldVector> vectors = source.getFieldVectors();
            ColumnVector[] columns = new ColumnVector[vectors.size()];
            for (int i = 0; i < columns.length; i++) {
                columns[i] = new ArrowColumnVector(vectors.get(i));
            }
            ColumnarBatch batch = new ColumnarBatch(columns, source.getRowCount());
            RowAppender appender = new RowAppender(ours);
            java.util.Iterator<InternalRow> rows = batch.rowIterator();
            while (rows.hasNext()) {
                appender.append(rows.next());
            }
            appender.finish();
            ours.setRowCount(appender.rows());
            assertSameVectors(source, ours, "columnar input");
        }
    }

    private static void assertSameVectors(VectorSchemaRoot expected, VectorSchemaRoot actual, String what)
    {
        assertEquals(expected.getRowCount(), actual.getRowCount(), what + ": rows");
        for (int column = 0; column < expected.getFieldVectors().size(); column++) {
            FieldVector want = expected.getVector(column);
            FieldVector got = actual.getVector(column);
            assertEquals(want.getValueCount(), got.getValueCount(), what + ", " + want.getName() + ": value count");
            assertEquals(want.getNullCount(), got.getNullCount(), what + ", " + want.getName() + ": null count");
            for (int row = 0; row < want.getValueCount(); row++) {
                Object wantValue = want.getObject(row);
                Object gotValue = got.getObject(row);
                if (wantValue instanceof byte[]) {
                    wantValue = java.util.Arrays.toString((byte[]) wantValue);
                    gotValue = java.util.Arrays.toString((byte[]) gotValue);
                }
                assertEquals(String.valueOf(wantValue), String.valueOf(gotValue), what + ", " + want.getName() + " row " + row);
            }
        }
    }
}
