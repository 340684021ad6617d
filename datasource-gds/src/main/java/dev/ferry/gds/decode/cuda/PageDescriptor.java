package dev.ferry.gds.decode.cuda;

import org.apache.parquet.column.Encoding;

/**
 * One page header of a column chunk as the device walk read it ({@link DevicePageHeaders}), with
 * offsets counted from the chunk's first byte. {@code compressedSize} is the stored bytes after the
 * header (for a v2 page its levels too, which are never compressed); {@code compressed} is v2's
 * {@code is_compressed} (true for v1 and dictionary pages, whose whole body the chunk's codec
 * covers). Fields a page type does not carry are -1 or null: {@code definitionEncoding} and
 * {@code repetitionEncoding} are v1's, {@code definitionLevelsLength}, {@code repetitionLevelsLength},
 * {@code nullCount} and {@code rowCount} v2's; {@code valueCount} is a dictionary page's entry count.
 */
public record PageDescriptor(int index, PageType type, long headerOffset, long bodyOffset, int compressedSize, int uncompressedSize, int valueCount,
        Encoding encoding, Encoding definitionEncoding, Encoding repetitionEncoding, int definitionLevelsLength, int repetitionLevelsLength, int nullCount,
        int rowCount, boolean compressed, boolean hasCrc)
{
    /** Parquet's page types, by their Thrift ids (0-3); index pages are skipped by the walk and never described. */
    public enum PageType
    {
        DATA_V1, INDEX, DICTIONARY, DATA_V2
    }
}
