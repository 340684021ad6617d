package dev.ferry.gds.footer;

import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * Checks a parsed footer against itself and the file before anything is planned or sized from it:
 * the row groups' row counts add up to the file's, every column chunk lies between the leading magic
 * and the footer and overlaps no other chunk (a chunk's bytes belong to its row group alone), and
 * each chunk's value count is one the row group's rows and the chunk's bytes can hold. parquet-mr
 * parses any footer whose Thrift is well formed, so a damaged list of row groups (an empty one, for
 * a file of 68 rows) would otherwise read as fewer rows, without a word.
 */
public final class FooterValidator
{
    // "PAR1" before the first page.
    private static final long FIRST_PAGE_OFFSET = 4;
    // A page header is at least a few bytes (type, two sizes, a page-type struct), and a page holds at most 2^31-1 values.
    private static final long MIN_PAGE_HEADER_BYTES = 6;

    private FooterValidator() {}

    /**
     * @param file the file's name, for errors
     * @param footerStart where the footer's Thrift begins (the file's length less the footer and its 8-byte trailer)
     * @param fileRows the footer's own {@code num_rows}, when it could be read (an encrypted footer hides it)
     */
    public static void validate(String file, ParquetMetadata footer, long footerStart, OptionalLong fileRows)
    {
        MessageType schema = footer.getFileMetaData().getSchema();
        long rows = 0;
        List<long[]> ranges = new ArrayList<>();
        List<BlockMetaData> blocks = footer.getBlocks();
        for (int index = 0; index < blocks.size(); index++) {
            BlockMetaData block = blocks.get(index);
            long blockRows = block.getRowCount();
            if (blockRows < 0) {
                throw new CorruptParquetException(file, "row group " + index + " claims " + blockRows + " rows");
            }
            rows = addRows(file, rows, blockRows);
            for (ColumnChunkMetaData chunk : block.getColumns()) {
                if (chunk.isEncrypted()) {
                    // Its metadata is sealed without keys; the reader refuses encrypted columns by name.
                    continue;
                }
                if (chunk.getValueCount() == 0 && blockRows == 0) {
                    // Writers place the chunks of an empty row group anywhere (pyarrow: at offset 0); nothing is read from them.
                    continue;
                }
                long start = chunk.getStartingPos();
                long size = chunk.getTotalSize();
                String where = "column " + chunk.getPath().toDotString() + " of row group " + index + " (chunk at offset " + start + ", " + size + " bytes)";
                if (start < FIRST_PAGE_OFFSET || size < 0 || size > footerStart - start || (size == 0 && chunk.getValueCount() != 0)) {
                    throw new CorruptParquetException(file, where + " does not lie between the file's leading magic and its footer at offset " + footerStart);
                }
                checkValueCount(file, where, chunk, blockRows, size, schema);
                ranges.add(new long[] {start, start + size, index});
            }
        }
        // A footer claiming rows its row groups lack has lost row groups. Some writers leave num_rows 0
        // (parquet-testing's repeated_no_annotation.parquet); parquet-mr and Spark go by the row groups' counts then.
        if (fileRows.isPresent() && fileRows.getAsLong() != rows && fileRows.getAsLong() != 0) {
            throw new CorruptParquetException(file, "the footer says " + fileRows.getAsLong() + " rows but its " + blocks.size()
                    + " row groups hold " + rows);
        }
        ranges.sort(Comparator.comparingLong(range -> range[0]));
        for (int index = 1; index < ranges.size(); index++) {
            long[] previous = ranges.get(index - 1);
            long[] range = ranges.get(index);
            if (range[0] < previous[1]) {
                throw new CorruptParquetException(file, "the column chunk at offset " + range[0] + " (row group " + range[2]
                        + ") overlaps the one at offset " + previous[0] + " (row group " + previous[2] + "), which ends at " + previous[1]);
            }
        }
    }

    private static void checkValueCount(String file, String where, ColumnChunkMetaData chunk, long blockRows, long size, MessageType schema)
    {
        long values = chunk.getValueCount();
        if (values < 0) {
            throw new CorruptParquetException(file, where + " claims " + values + " values");
        }
        // Each page holds at most 2^31-1 values behind a header of a few bytes.
        long pagesAtMost = size / MIN_PAGE_HEADER_BYTES + 1;
        if (values / Integer.MAX_VALUE >= pagesAtMost) {
            throw new CorruptParquetException(file, where + " claims " + values + " values, more than " + size + " bytes of pages can hold");
        }
        String[] path = chunk.getPath().toArray();
        if (!schema.containsPath(path)) {
            throw new CorruptParquetException(file, where + " is not a column of the file's schema");
        }
        // Every row has an entry in every column: exactly one where nothing repeats, at least one otherwise.
        boolean repeated = schema.getColumnDescription(path).getMaxRepetitionLevel() > 0;
        if (repeated ? values < blockRows : values != blockRows) {
            throw new CorruptParquetException(file, where + " holds " + values + " values for the row group's " + blockRows + " rows");
        }
    }

    private static long addRows(String file, long rows, long blockRows)
    {
        try {
            return Math.addExact(rows, blockRows);
        }
        catch (ArithmeticException e) {
            throw new CorruptParquetException(file, "the row groups' row counts add up to more than 2^63-1");
        }
    }
}
