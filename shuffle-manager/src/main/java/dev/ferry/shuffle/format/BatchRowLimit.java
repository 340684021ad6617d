package dev.ferry.shuffle.format;

import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The most rows one open map-side batch takes before it is serialized: the task's Arrow budget
 * ({@code spark.ferry.shuffle.write.maxBufferedBytes}) shared by all its reduce partitions at an
 * estimated row width, halved for the doubling of Arrow's buffers. Without it every partition's
 * vectors grow until the whole budget is spent, then all are flushed and released at once, and
 * the next rows regrow them from scratch: most of the map side's time went into those
 * reallocations. With it the vectors reach their final size once and are reused batch after batch.
 */
final class BatchRowLimit
{
    static final int MIN_ROWS = 64;
    static final int MAX_ROWS = 1 << 16;
    // A guess for variable-width values and nested columns; only the order of magnitude matters.
    static final int VARIABLE_BYTES = 24;
    private static final int NESTED_BYTES = 64;

    private BatchRowLimit() {}

    static int of(Schema schema, int partitions, long maxBufferedBytes)
    {
        long rowBytes = 1;
        for (Field field : schema.getFields()) {
            rowBytes += estimatedBytes(field);
        }
        long rows = maxBufferedBytes / 2 / Math.max(1, partitions) / rowBytes;
        if (rows <= MIN_ROWS) {
            return MIN_ROWS;
        }
        if (rows >= MAX_ROWS) {
            return MAX_ROWS;
        }
        // A power of two: Arrow sizes buffers in powers of two, so this fills them exactly.
        return Integer.highestOneBit((int) rows);
    }

    private static long estimatedBytes(Field field)
    {
        ArrowType type = field.getType();
        if (!field.getChildren().isEmpty()) {
            return NESTED_BYTES;
        }
        if (type instanceof ArrowType.Int) {
            return Math.max(1, ((ArrowType.Int) type).getBitWidth() / 8);
        }
        if (type instanceof ArrowType.Bool) {
            return 1;
        }
        if (type instanceof ArrowType.Decimal) {
            return 16;
        }
        if (type instanceof ArrowType.FloatingPoint || type instanceof ArrowType.Date || type instanceof ArrowType.Timestamp
                || type instanceof ArrowType.Interval || type instanceof ArrowType.Duration) {
            return 8;
        }
        if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.Binary) {
            return 4 + VARIABLE_BYTES;
        }
        return NESTED_BYTES;
    }
}
