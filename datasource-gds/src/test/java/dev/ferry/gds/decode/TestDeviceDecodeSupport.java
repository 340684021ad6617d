package dev.ferry.gds.decode;

import dev.ferry.gds.parquet.CalendarRebase;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Which chunks the decode seam's device rule takes, and the reasons it gives for the rest. */
// Deprecated encodings (PLAIN_DICTIONARY, BIT_PACKED) still appear in files.
@SuppressWarnings("deprecation")
class TestDeviceDecodeSupport
{
    private static final DatetimeRules CORRECTED = new DatetimeRules(CalendarRebase.CORRECTED, CalendarRebase.CORRECTED, "UTC", false);

    @Test
    void flatDictionaryAndPlainChunksDecodeOnTheDeviceTheRestFallBackWithTheirReason()
    {
        MessageType file = Types.buildMessage()
                .optional(PrimitiveTypeName.INT64).named("id")
                .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("name")
                .optional(PrimitiveTypeName.INT32).named("delta")
                .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS)).named("millis")
                .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, true)).named("short")
                .optionalList().optionalElement(PrimitiveTypeName.INT32).named("values")
                .named("schema");
        StructType read = new StructType()
                .add("id", DataTypes.LongType)
                .add("name", DataTypes.StringType)
                .add("delta", DataTypes.IntegerType)
                .add("millis", DataTypes.TimestampType)
                .add("short", DataTypes.ShortType)
                .add("values", DataTypes.createArrayType(DataTypes.IntegerType))
                .add("missing", DataTypes.IntegerType);
        Map<ColumnPath, Set<Encoding>> encodings = Map.of(
                ColumnPath.get("id"), EnumSet.of(Encoding.PLAIN, Encoding.RLE, Encoding.BIT_PACKED),
                ColumnPath.get("name"), EnumSet.of(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY, Encoding.RLE),
                ColumnPath.get("delta"), EnumSet.of(Encoding.DELTA_BINARY_PACKED, Encoding.RLE),
                ColumnPath.get("millis"), EnumSet.of(Encoding.PLAIN, Encoding.RLE),
                ColumnPath.get("short"), EnumSet.of(Encoding.PLAIN, Encoding.RLE),
                ColumnPath.get("values", "list", "element"), EnumSet.of(Encoding.PLAIN, Encoding.RLE));
        List<ColumnChunkDecoder> columns = new ShapeBuilder("f.parquet", false, CORRECTED).build(read, file).columns();
        List<DecodeSupport> device = columns.stream().map(column -> column.deviceSupport(encodings)).toList();
        assertEquals(List.of(
                DecodeSupport.decodes(),
                DecodeSupport.decodes(),
                DecodeSupport.refused("encoding DELTA_BINARY_PACKED"),
                // Millisecond timestamps read as stored: the device's one conversion is a multiply (ferry_timestamp_to_micros).
                DecodeSupport.decodes(),
                // INT(16) read as short: the device keeps each value's low two bytes (ferry_int32_narrow).
                DecodeSupport.decodes(),
                DecodeSupport.refused("nested column"),
                DecodeSupport.decodes()), device);
    }

    @Test
    void rebasedMillisecondTimestampsStayOnTheCpu()
    {
        MessageType file = Types.buildMessage()
                .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS)).named("millis")
                .named("schema");
        StructType read = new StructType().add("millis", DataTypes.TimestampType);
        DatetimeRules legacy = new DatetimeRules(CalendarRebase.LEGACY, CalendarRebase.LEGACY, "UTC", false);
        List<ColumnChunkDecoder> columns = new ShapeBuilder("f.parquet", false, legacy).build(read, file).columns();
        assertEquals(DecodeSupport.refused("type TIMESTAMP_AS_TIMESTAMP needs a per-value conversion"),
                columns.get(0).deviceSupport(Map.of(ColumnPath.get("millis"), EnumSet.of(Encoding.PLAIN, Encoding.RLE))));
    }
}
