package dev.ferry.gds.decode;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import dev.ferry.gds.decode.cuda.DeviceValueKind;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.hadoop.metadata.ColumnPath;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which column chunks a device decoder takes (issue 18's scope): flat columns (no repetition, at
 * most one definition level) whose Parquet and Spark type pair needs no per-value conversion (a
 * {@link FlatLayout}) or whose conversion the device makes in one kernel ({@link #deviceConversion}), encoded PLAIN or with a dictionary, levels RLE or bit-packed. Everything else
 * stays on the CPU decoder, per chunk, with the reason. One rule set, so every device
 * implementation (CUDA kernels, the simulated backend's CPU-into-device-memory decoder) refuses the
 * same chunks for the same reasons.
 */
// Deprecated encodings (PLAIN_DICTIONARY, BIT_PACKED) still appear in files.
@SuppressWarnings("deprecation")
public final class DeviceDecodeSupport
{
    private static final Set<Encoding> DEVICE_ENCODINGS = EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY, Encoding.RLE,
            Encoding.BIT_PACKED);

    private DeviceDecodeSupport() {}

    /**
     * The conversion the device makes for a leaf with no flat layout on the CPU (its writer converts
     * each value) whose whole conversion is one kernel: a decimal on FIXED_LEN_BYTE_ARRAY of at most
     * 16 bytes (big-endian bytes to decimal128, ferry_decimal_to_128), INT32 of a narrower logical
     * type read as int (copied), INT32 read as byte or short
     * (their low bytes, ferry_int32_narrow) and millisecond timestamps read as stored (times 1000,
     * ferry_timestamp_to_micros). Empty: only the CPU converts it.
     */
    static Optional<DeviceValueKind> deviceConversion(LeafNode leaf)
    {
        PrimitiveType type = leaf.descriptor.getPrimitiveType();
        if (leaf.pair == ParquetSparkType.BYTES_DECIMAL_AS_DECIMAL && type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
                && type.getTypeLength() >= 1 && type.getTypeLength() <= 16) {
            return Optional.of(DeviceValueKind.DECIMAL_FIXED_LEN);
        }
        if (leaf.pair == ParquetSparkType.INT32_AS_INT) {
            // INT(8/16) or UINT(8/16) read as int: the writer copies each 4-byte value as it is, as the kernels' copy does.
            return Optional.of(DeviceValueKind.FIXED4);
        }
        if (leaf.pair == ParquetSparkType.INT32_AS_BYTE) {
            return Optional.of(DeviceValueKind.INT8);
        }
        if (leaf.pair == ParquetSparkType.INT32_AS_SHORT) {
            return Optional.of(DeviceValueKind.INT16);
        }
        if (leaf.pair == ParquetSparkType.TIMESTAMP_AS_TIMESTAMP && leaf.writer instanceof ValueWriters.TimestampWriter timestamps && timestamps.millisAsStored()) {
            return Optional.of(DeviceValueKind.TIMESTAMP_MILLIS);
        }
        return Optional.empty();
    }

    static DecodeSupport check(List<LeafNode> leaves, Optional<FlatLayout> flat, Map<ColumnPath, Set<Encoding>> encodings)
    {
        if (leaves.isEmpty()) {
            // A column missing from the file has no chunk; its nulls cost nothing to make anywhere.
            return DecodeSupport.decodes();
        }
        if (leaves.size() != 1) {
            return DecodeSupport.refused("nested column");
        }
        ColumnDescriptor descriptor = leaves.get(0).descriptor;
        if (descriptor.getMaxRepetitionLevel() != 0 || descriptor.getMaxDefinitionLevel() > 1) {
            return DecodeSupport.refused("nested column");
        }
        if (flat.isEmpty() && deviceConversion(leaves.get(0)).isEmpty()) {
            return DecodeSupport.refused("type " + leaves.get(0).pair + " needs a per-value conversion");
        }
        Set<Encoding> chunkEncodings = encodings.get(ColumnPath.get(descriptor.getPath()));
        if (chunkEncodings == null) {
            return DecodeSupport.refused("no encodings in the footer");
        }
        for (Encoding encoding : chunkEncodings) {
            if (!DEVICE_ENCODINGS.contains(encoding)) {
                return DecodeSupport.refused("encoding " + encoding);
            }
        }
        return DecodeSupport.decodes();
    }
}
