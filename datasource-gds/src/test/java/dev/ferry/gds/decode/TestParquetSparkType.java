package dev.ferry.gds.decode;

import dev.ferry.gds.parquet.CalendarRebase;
import dev.ferry.gds.parquet.UnsupportedParquetException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Types;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.util.ArrowUtils;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Parquet and Spark type table: every pair the decoder supports resolves to its constant, whose
 * writer and flat layout both accept the Arrow vector Spark's type maps to; every constant is
 * reached; unsupported pairs are refused with the reason.
 */
class TestParquetSparkType
{
    private static final DatetimeRules CORRECTED = new DatetimeRules(CalendarRebase.CORRECTED, CalendarRebase.CORRECTED, "UTC", false);
    private static final DatetimeRules LEGACY = new DatetimeRules(CalendarRebase.LEGACY, CalendarRebase.LEGACY, "UTC", false);

    private record Pair(PrimitiveType parquet, DataType spark, ParquetSparkType expected, Optional<FlatLayout> corrected, Optional<FlatLayout> legacy) {}

    private static PrimitiveType type(PrimitiveTypeName name, LogicalTypeAnnotation logical)
    {
        return Types.optional(name).as(logical).named("c");
    }

    private static PrimitiveType fixed(int length, LogicalTypeAnnotation logical)
    {
        return Types.optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(length).as(logical).named("c");
    }

    private static final Optional<FlatLayout> NONE = Optional.empty();

    private static Optional<FlatLayout> flat(FlatLayout layout)
    {
        return Optional.of(layout);
    }

    private static final List<Pair> PAIRS = List.of(
            new Pair(type(PrimitiveTypeName.INT32, LogicalTypeAnnotation.unknownType()), DataTypes.NullType, ParquetSparkType.NULL, NONE, NONE),
            new Pair(type(PrimitiveTypeName.BOOLEAN, null), DataTypes.BooleanType, ParquetSparkType.BOOLEAN_AS_BOOLEAN, flat(FlatLayout.BOOL), flat(FlatLayout.BOOL)),
            new Pair(type(PrimitiveTypeName.INT32, LogicalTypeAnnotation.intType(8, true)), DataTypes.ByteType, ParquetSparkType.INT32_AS_BYTE, NONE, NONE),
            new Pair(type(PrimitiveTypeName.INT32, LogicalTypeAnnotation.intType(16, true)), DataTypes.ShortType, ParquetSparkType.INT32_AS_SHORT, NONE, NONE),
            new Pair(type(PrimitiveTypeName.INT32, LogicalTypeAnnotation.intType(8, false)), DataTypes.ShortType, ParquetSparkType.INT32_AS_SHORT, NONE, NONE),
            new Pair(type(PrimitiveTypeName.INT32, null), DataTypes.IntegerType, ParquetSparkType.INT32_AS_INT, flat(FlatLayout.FIXED4), flat(FlatLayout.FIXED4)),
            new Pair(type(PrimitiveTypeName.INT32, LogicalTypeAnnotation.intType(16, false)), DataTypes.IntegerType, ParquetSparkType.INT32_AS_INT, NONE, NONE),
            new Pair(type(PrimitiveTypeName.INT32, null), DataTypes.LongType, ParquetSparkType.INT32_AS_LONG, NONE, NONE),
            new Pair(type(PrimitiveTypeName.INT32, LogicalTypeAnnotation.intType(32, false)), DataTypes.LongType, ParquetSparkType.UINT32_AS_LONG, NONE, NONE),
            new Pair(type(PrimitiveTypeName.INT32, null), DataTypes.DoubleType, ParquetSparkType.INT32_AS_DOUBLE, NONE, NONE),
            new Pair(type(PrimitiveTypeName.INT32, LogicalTypeAnnotation.dateType()), DataTypes.DateType, ParquetSparkType.DATE_AS_DATE, flat(FlatLayout.FIXED4), NONE),
            new Pair(type(PrimitiveTypeName.INT32, LogicalTypeAnnotation.decimalType(2, 9)), DataTypes.createDecimalType(9, 2),
                    ParquetSparkType.INT32_DECIMAL_AS_DECIMAL, flat(FlatLayout.DECIMAL), flat(FlatLayout.DECIMAL)),
            new Pair(type(PrimitiveTypeName.INT64, null), DataTypes.LongType, ParquetSparkType.INT64_AS_LONG, flat(FlatLayout.FIXED8), flat(FlatLayout.FIXED8)),
            new Pair(type(PrimitiveTypeName.INT64, LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.NANOS)), DataTypes.LongType,
                    ParquetSparkType.INT64_AS_LONG, NONE, NONE),
            new Pair(type(PrimitiveTypeName.INT64, LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS)), DataTypes.TimestampType,
                    ParquetSparkType.TIMESTAMP_AS_TIMESTAMP, flat(FlatLayout.FIXED8), NONE),
            new Pair(type(PrimitiveTypeName.INT64, LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MICROS)), DataTypes.TimestampNTZType,
                    ParquetSparkType.TIMESTAMP_AS_TIMESTAMP, flat(FlatLayout.FIXED8), flat(FlatLayout.FIXED8)),
            new Pair(type(PrimitiveTypeName.INT64, LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS)), DataTypes.TimestampType,
                    ParquetSparkType.TIMESTAMP_AS_TIMESTAMP, NONE, NONE),
            new Pair(type(PrimitiveTypeName.INT64, LogicalTypeAnnotation.intType(64, false)), DataTypes.createDecimalType(20, 0),
                    ParquetSparkType.UINT64_AS_DECIMAL, NONE, NONE),
            new Pair(type(PrimitiveTypeName.INT64, LogicalTypeAnnotation.decimalType(3, 18)), DataTypes.createDecimalType(18, 3),
                    ParquetSparkType.INT64_DECIMAL_AS_DECIMAL, flat(FlatLayout.DECIMAL), flat(FlatLayout.DECIMAL)),
            new Pair(type(PrimitiveTypeName.INT96, null), DataTypes.TimestampType, ParquetSparkType.INT96_AS_TIMESTAMP, flat(FlatLayout.INT96), NONE),
            new Pair(type(PrimitiveTypeName.FLOAT, null), DataTypes.FloatType, ParquetSparkType.FLOAT_AS_FLOAT, flat(FlatLayout.FIXED4), flat(FlatLayout.FIXED4)),
            new Pair(type(PrimitiveTypeName.FLOAT, null), DataTypes.DoubleType, ParquetSparkType.FLOAT_AS_DOUBLE, NONE, NONE),
            new Pair(type(PrimitiveTypeName.DOUBLE, null), DataTypes.DoubleType, ParquetSparkType.DOUBLE_AS_DOUBLE, flat(FlatLayout.FIXED8), flat(FlatLayout.FIXED8)),
            new Pair(type(PrimitiveTypeName.BINARY, LogicalTypeAnnotation.decimalType(2, 30)), DataTypes.createDecimalType(30, 2),
                    ParquetSparkType.BYTES_DECIMAL_AS_DECIMAL, NONE, NONE),
            new Pair(fixed(16, LogicalTypeAnnotation.decimalType(2, 38)), DataTypes.createDecimalType(38, 2), ParquetSparkType.BYTES_DECIMAL_AS_DECIMAL, NONE, NONE),
            new Pair(type(PrimitiveTypeName.BINARY, LogicalTypeAnnotation.stringType()), DataTypes.StringType, ParquetSparkType.BINARY_AS_STRING,
                    flat(FlatLayout.VARBYTES), flat(FlatLayout.VARBYTES)),
            new Pair(type(PrimitiveTypeName.BINARY, null), DataTypes.BinaryType, ParquetSparkType.BYTES_AS_BINARY, flat(FlatLayout.VARBYTES), flat(FlatLayout.VARBYTES)),
            new Pair(fixed(4, null), DataTypes.BinaryType, ParquetSparkType.BYTES_AS_BINARY, NONE, NONE));

    @Test
    void everySupportedPairResolvesAndItsWriterAndLayoutTakeSparksVector()
    {
        Set<ParquetSparkType> reached = EnumSet.noneOf(ParquetSparkType.class);
        try (BufferAllocator allocator = new RootAllocator()) {
            for (Pair pair : PAIRS) {
                String what = pair.parquet() + " as " + pair.spark().simpleString();
                ParquetSparkType resolved = ParquetSparkType.resolve(pair.parquet(), pair.spark(), CORRECTED, "file.parquet", "c");
                assertEquals(pair.expected(), resolved, what);
                reached.add(resolved);
                assertEquals(pair.corrected(), resolved.flatLayout(pair.parquet(), pair.spark(), CORRECTED), what + " (corrected)");
                assertEquals(pair.legacy(), resolved.flatLayout(pair.parquet(), pair.spark(), LEGACY), what + " (legacy)");
                try (FieldVector vector = ArrowUtils.toArrowField("c", pair.spark(), true, "UTC", false, Metadata.empty()).createVector(allocator)) {
                    // The writer casts to its vector class, the layout checks the vector's width: both must take Spark's vector.
                    resolved.writer(pair.parquet(), pair.spark(), CORRECTED, "file.parquet", "c").bind(vector);
                    pair.corrected().ifPresent(layout -> layout.allocate(vector, 16));
                }
            }
        }
        assertEquals(EnumSet.allOf(ParquetSparkType.class), reached, "every constant of the table has a pair in this test");
    }

    @Test
    void unsupportedPairsAreRefusedWithTheReason()
    {
        assertRefused(type(PrimitiveTypeName.INT32, null), DataTypes.StringType, CORRECTED,
                "The gds reader cannot read column c of f.parquet: Parquet type optional int32 c read as Spark string is not supported yet");
        assertRefused(type(PrimitiveTypeName.INT64, LogicalTypeAnnotation.decimalType(3, 18)), DataTypes.createDecimalType(18, 2), CORRECTED,
                "decimal(18,3) read as decimal(18,2) would need rescaling, which is not supported yet");
        assertRefused(fixed(4, null), DataTypes.StringType, CORRECTED, "read as Spark string is not supported yet");
        assertRefused(type(PrimitiveTypeName.INT32, LogicalTypeAnnotation.intType(32, false)), DataTypes.IntegerType, CORRECTED,
                "read as Spark int is not supported yet");
        assertRefused(type(PrimitiveTypeName.INT96, null), DataTypes.TimestampType,
                new DatetimeRules(CalendarRebase.CORRECTED, CalendarRebase.CORRECTED, "UTC", true), "int96TimestampConversion=true");
        assertRefused(type(PrimitiveTypeName.INT64, LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.NANOS)), DataTypes.TimestampType,
                CORRECTED, "read as Spark timestamp is not supported yet");
        assertRefused(type(PrimitiveTypeName.BOOLEAN, null), DataTypes.IntegerType, CORRECTED, "read as Spark int is not supported yet");
    }

    private static void assertRefused(PrimitiveType parquet, DataType spark, DatetimeRules rules, String reason)
    {
        UnsupportedParquetException refused = assertThrows(UnsupportedParquetException.class,
                () -> ParquetSparkType.resolve(parquet, spark, rules, "f.parquet", "c"));
        assertTrue(refused.getMessage().contains(reason), refused.getMessage());
    }
}
