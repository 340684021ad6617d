package dev.ferry.gds.spark;

import dev.ferry.gds.ParquetSurgery;
import dev.ferry.gds.ParquetSurgery.Chunk;
import dev.ferry.gds.ParquetSurgery.Page;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Files written by Spark in the test, then damaged by editing their pages or their footer's Thrift
 * ({@link ParquetSurgery}): each must be refused as malformed, naming the file and where the damage
 * is, never read into wrong rows or sized into an allocation the bytes cannot back.
 */
class CraftedFilesTest
        extends GdsSparkTest
{
    private static final long TWO_TO_THE_62 = 1L << 62;

    @TempDir
    Path directory;

    // Footers

    @Test
    void aFooterWithRowsButNoRowGroupsIsRefused()
            throws IOException
    {
        Path good = write(spark.range(68).selectExpr("id", "cast(id as string) s"), "none", "v1");
        Path bad = ParquetSurgery.open(good).write(directory.resolve("no-row-groups.parquet"), footer -> footer.setRow_groups(new ArrayList<>()));
        assertRefused(bad, "the footer says 68 rows but its 0 row groups hold 0");
        assertQueryRefused(bad, "select count(*) from t", "the footer says 68 rows but its 0 row groups hold 0");
    }

    @Test
    void rowCountsThatDisagreeAreRefused()
            throws IOException
    {
        Path good = write(spark.range(68).selectExpr("id"), "none", "v1");
        for (long rows : new long[] {Integer.MAX_VALUE, TWO_TO_THE_62}) {
            Path fileRows = ParquetSurgery.open(good).write(directory.resolve("file-rows-" + rows + ".parquet"), footer -> footer.setNum_rows(rows));
            assertRefused(fileRows, "the footer says " + rows + " rows but its 1 row groups hold 68");
            Path groupRows = ParquetSurgery.open(good).write(directory.resolve("group-rows-" + rows + ".parquet"), footer -> {
                footer.setNum_rows(rows);
                footer.getRow_groups().get(0).setNum_rows(rows);
            });
            assertRefused(groupRows, "column id of row group 0", "holds 68 values for the row group's " + rows + " rows");
        }
    }

    @Test
    void columnChunkValueCountsBeyondTheirBytesAreRefused()
            throws IOException
    {
        Path good = write(spark.range(68).selectExpr("id"), "none", "v1");
        // Consistent counts all the way up, so only the chunk's bytes can tell.
        Path huge = ParquetSurgery.open(good).write(directory.resolve("chunk-values-2-62.parquet"), counts(TWO_TO_THE_62, footer -> {}));
        assertRefused(huge, "column id of row group 0", "claims " + TWO_TO_THE_62 + " values, more than");
        Path large = ParquetSurgery.open(good).write(directory.resolve("chunk-values-2-31.parquet"), counts(Integer.MAX_VALUE, footer -> {}));
        assertRefused(large, "cannot read row group at offset 4", "PageHeader");
    }

    @Test
    void columnChunksOutsideTheFileOrOverlappingAreRefused()
            throws IOException
    {
        Path good = write(spark.range(68).selectExpr("id", "id * 2 as twice"), "none", "v1");
        long length = Files.size(good);
        Path outside = ParquetSurgery.open(good).write(directory.resolve("chunk-outside.parquet"),
                footer -> metadata(footer, 0, 1).setData_page_offset(length * 4));
        assertRefused(outside, "column twice of row group 0", "does not lie between the file's leading magic and its footer");
        Path overlapping = ParquetSurgery.open(good).write(directory.resolve("chunk-overlap.parquet"), footer -> {
            ColumnMetaData first = metadata(footer, 0, 0);
            ColumnMetaData second = metadata(footer, 0, 1);
            second.setData_page_offset(first.getData_page_offset());
            second.setDictionary_page_offset(first.isSetDictionary_page_offset() ? first.getDictionary_page_offset() : first.getData_page_offset());
        });
        assertRefused(overlapping, "overlaps the one at offset");
    }

    // Page and dictionary counts (Thrift i32 fields: 2^31-1 is the largest a header can hold)

    @Test
    void dataPageValueCountsBeyondTheirBytesAreRefused()
            throws IOException
    {
        // Required PLAIN values, required dictionary indexes, optional definition levels, a nested column's levels.
        assertPageCountRefused(write(spark.range(68).selectExpr("shiftright(id, 3) + 1000 as v"), "none", "v1"), "v", "its dictionary indexes hold",
                footer -> {});
        assertPageCountRefused(write(spark.range(68).selectExpr("id as v"), "none", "v1", "parquet.enable.dictionary", "false"), "v",
                "PLAIN values, which need at least", footer -> {});
        assertPageCountRefused(write(spark.range(68).selectExpr("if(id % 3 = 0, null, id) as v"), "none", "v1"), "v", "its definition levels hold",
                footer -> {});
        assertPageCountRefused(write(spark.range(68).selectExpr("array(id, id) as v"), "none", "v2"), "v.list.element", "its repetition levels hold",
                footer -> {});
    }

    @Test
    void dictionaryEntryCountsBeyondTheirPageAreRefused()
            throws IOException
    {
        for (String column : new String[] {"cast(id % 37 as string) as v", "cast(id % 37 as int) as v", "array(cast(id % 37 as string)) as v"}) {
            Path good = write(spark.range(200).selectExpr(column), "none", "v1");
            ParquetSurgery surgery = ParquetSurgery.open(good);
            Chunk chunk = surgery.chunks.get(0).get(0);
            Page dictionary = chunk.dictionaryPage();
            assertEquals(37, dictionary.valueCount());
            dictionary.header.getDictionary_page_header().setNum_values(Integer.MAX_VALUE);
            Path bad = surgery.write(directory.resolve("dictionary-" + Math.abs(column.hashCode()) + ".parquet"));
            assertRefused(bad, "column " + chunk.path() + ", the dictionary page of the column chunk at offset",
                    "claims 2147483647 entries, which need at least");
        }
    }

    @Test
    void negativePageCountsAreRefused()
            throws IOException
    {
        Path good = write(spark.range(68).selectExpr("cast(id % 5 as string) as v"), "none", "v1");
        ParquetSurgery dictionary = ParquetSurgery.open(good);
        dictionary.chunks.get(0).get(0).dictionaryPage().header.getDictionary_page_header().setNum_values(Integer.MIN_VALUE);
        assertRefused(dictionary.write(directory.resolve("negative-dictionary.parquet")), "claims -2147483648 entries");
        ParquetSurgery data = ParquetSurgery.open(good);
        data.chunks.get(0).get(0).dataPages().get(0).header.getData_page_header().setNum_values(Integer.MIN_VALUE);
        assertRefused(data.write(directory.resolve("negative-page.parquet")));
    }

    @Test
    void pageCountsOfSixtyFourBitsInTheirThirtyTwoBitFieldsAreRefused()
            throws IOException
    {
        Path good = write(spark.range(68).selectExpr("cast(id % 5 as string) as v"), "none", "v1");
        ParquetSurgery dictionary = ParquetSurgery.open(good);
        Page dictionaryPage = dictionary.chunks.get(0).get(0).dictionaryPage();
        dictionaryPage.rawHeader = ParquetSurgery.headerWithCount(dictionaryPage, TWO_TO_THE_62);
        assertRefused(dictionary.write(directory.resolve("dictionary-2-62.parquet")));
        ParquetSurgery data = ParquetSurgery.open(good);
        Page dataPage = data.chunks.get(0).get(0).dataPages().get(0);
        dataPage.rawHeader = ParquetSurgery.headerWithCount(dataPage, TWO_TO_THE_62);
        assertRefused(data.write(directory.resolve("page-2-62.parquet"), counts(TWO_TO_THE_62, footer -> {})));
        ParquetSurgery consistent = ParquetSurgery.open(good);
        Page only = consistent.chunks.get(0).get(0).dataPages().get(0);
        only.rawHeader = ParquetSurgery.headerWithCount(only, TWO_TO_THE_62);
        // The chunk's own count (68) kept: whatever the 32-bit field reads as, it is checked against the chunk and the page.
        assertRefused(consistent.write(directory.resolve("page-2-62-chunk-68.parquet")));
    }

    // Sizes a codec's own header contradicts

    @Test
    void aCompressedPageClaimingMoreThanItsCodecSaysIsRefusedBeforeAllocating()
            throws IOException
    {
        for (String codec : new String[] {"snappy", "zstd"}) {
            Path good = write(spark.range(2000).selectExpr("cast(id as string) as v"), codec, "v1", "parquet.enable.dictionary", "false");
            ParquetSurgery surgery = ParquetSurgery.open(good);
            PageHeader header = surgery.chunks.get(0).get(0).dataPages().get(0).header;
            int actual = header.getUncompressed_page_size();
            header.setUncompressed_page_size(500_000_000);
            Path bad = surgery.write(directory.resolve(codec + "-claims.parquet"));
            // Snappy's length header gives the size; parquet-mr's zstd frames record none, their block headers bound it.
            assertRefused(bad, codec.equals("snappy") ? "decompresses to " + actual + " bytes by its own header" : "bytes by its blocks' headers",
                    "the page header claims 500000000");
        }
    }

    // Page buffers and dictionaries on the nested path

    @Test
    void aNestedDictionaryEntryPastItsSnappyPageIsRefused()
            throws IOException
    {
        Path good = write(spark.range(300).selectExpr("array(array(array(cast(id % 3 as string)))) as a"), "snappy", "v1");
        ParquetSurgery surgery = ParquetSurgery.open(good);
        Chunk chunk = surgery.chunks.get(0).get(0);
        Page dictionary = chunk.dictionaryPage();
        byte[] bytes = dictionary.uncompressed(chunk.codec());
        // Three one-byte entries (length, byte); the last now claims 385 bytes past the page's end.
        ByteBuffer.wrap(bytes, 10, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(385);
        dictionary.setUncompressed(chunk.codec(), bytes);
        Path bad = surgery.write(directory.resolve("nested-dictionary-overrun.parquet"));
        assertRefused(bad, "column a.list.element.list.element.list.element, the dictionary page of the column chunk at offset",
                "dictionary entry of length 385 (entry 2 of 3) with 1 bytes left in the page");
    }

    // Levels on the nested path

    @Test
    void aRepetitionLevelContinuingAnAbsentMapEntryIsRefused()
            throws IOException
    {
        Path good = write(spark.range(30).selectExpr("if(id = 29, null, map(id, id, id + 100, if(id % 2 = 0, null, id))) as m"), "none", "v1");
        Path bad = ParquetSurgery.withLevels(good, "m.key_value.value", levels -> {
            // The second entry of row 0 (repetition 1, a null value: definition 2) now says the map is empty.
            assertEquals(List.of(1, 2), List.of(levels.repetition[1], levels.definition[1]));
            levels.definition[1] = 1;
        }, directory.resolve("map-absent-entry.parquet"));
        // Named with the leaves' pages: where the error is, as far as the reader can tell (the map's two leaves are read together).
        assertRefused(bad, "m.value", "repetition level 1 continues a list that is not there (definition level 1), below 2",
                "column m.key_value.value, data page 1 at offset ");
    }

    @Test
    void mapValuesThatDisagreeWithTheirKeysOnTheShapeAreRefused()
            throws IOException
    {
        Path good = write(spark.range(30).selectExpr("if(id % 2 = 0, map(id, id, id + 100, id), map(id, id)) as m"), "none", "v1");
        Path bad = ParquetSurgery.withLevels(good, "m.key_value.value", levels -> {
            // Rows 0 and 1 had 2 and 1 entries; the values now say 1 and 2, the keys still 2 and 1.
            assertEquals(List.of(0, 1, 0), List.of(levels.repetition[0], levels.repetition[1], levels.repetition[2]));
            levels.repetition[1] = 0;
            levels.repetition[2] = 1;
        }, directory.resolve("map-shape.parquet"));
        assertRefused(bad, "column m.value disagrees with its sibling columns on the shape of m");
    }

    @Test
    void structFieldsThatDisagreeOnTheStructsNullsAreRefused()
            throws IOException
    {
        Path good = write(spark.range(30).selectExpr("if(id % 5 = 0, null, named_struct('x', id, 'y', if(id % 3 = 0, null, id))) as s"), "none", "v1");
        Path bad = ParquetSurgery.withLevels(good, "s.y", levels -> {
            // Row 1: the struct is there with y = 1; y's levels now say the struct is null (x still says it is there).
            assertEquals(2, levels.definition[1]);
            levels.definition[1] = 0;
        }, directory.resolve("struct-nulls.parquet"));
        assertRefused(bad, "column s.y disagrees with its sibling columns on the shape of s: it has a null at entry 1 where it has a value");
    }

    @Test
    void aListColumnWithMoreRecordsThanTheRowGroupIsRefused()
            throws IOException
    {
        Path good = write(spark.range(30).selectExpr("array(id, id + 1) as v"), "none", "v1");
        Path bad = ParquetSurgery.withLevels(good, "v.list.element", levels -> {
            // The last row's second element now starts a 31st row.
            assertEquals(1, levels.repetition[59]);
            levels.repetition[59] = 0;
        }, directory.resolve("list-extra-row.parquet"));
        assertRefused(bad, "column v.element of the row group at offset 4 has 1 entries past the row group's last row");
    }

    @Test
    void aDefinitionLevelAboveTheMaximumOnTheNestedPathIsRefused()
            throws IOException
    {
        Path good = write(spark.range(200).selectExpr("map(cast(id as string), if(id % 7 = 0, null, array(id, if(id % 3 = 0, null, id)))) as map_arr"),
                "none", "v2");
        String column = "map_arr.key_value.value.list.element";
        assertEquals(PageType.DATA_PAGE_V2, ParquetSurgery.open(good).chunk(0, column).dataPages().get(0).header.getType());
        Path bad = ParquetSurgery.withLevels(good, column, levels -> {
            // The maximum is 4, stored in 3 bits.
            levels.definition[3] = 7;
            levels.definition[4] = 7;
        }, directory.resolve("map-arr-definition.parquet"));
        assertRefused(bad, "map_arr.value.element", "definition level 7 above the maximum 4");
    }

    /** A data page of one column whose num_values (and the chunk's, row group's and file's counts with it) say 2^31-1. */
    private void assertPageCountRefused(Path good, String column, String detail, Consumer<FileMetaData> more)
            throws IOException
    {
        ParquetSurgery surgery = ParquetSurgery.open(good);
        Chunk chunk = surgery.chunks.get(0).get(0);
        assertEquals(1, chunk.dataPages().size(), "one data page expected in " + good);
        PageHeader header = chunk.dataPages().get(0).header;
        if (header.getType() == PageType.DATA_PAGE_V2) {
            header.getData_page_header_v2().setNum_values(Integer.MAX_VALUE);
        }
        else {
            header.getData_page_header().setNum_values(Integer.MAX_VALUE);
        }
        Path bad = surgery.write(directory.resolve("page-values-" + column + "-" + Math.abs(detail.hashCode()) + ".parquet"),
                counts(Integer.MAX_VALUE, more));
        assertRefused(bad, "column " + column + ", data page 1 at offset ", " (from value 0) of the column chunk at offset", "claims 2147483647");
        assertRefused(bad, detail);
    }

    // Every count of the first row group's first chunk (and the file's rows) set to `count`.
    private static Consumer<FileMetaData> counts(long count, Consumer<FileMetaData> more)
    {
        return footer -> {
            footer.setNum_rows(count);
            RowGroup group = footer.getRow_groups().get(0);
            group.setNum_rows(count);
            group.getColumns().get(0).getMeta_data().setNum_values(count);
            more.accept(footer);
        };
    }

    private static ColumnMetaData metadata(FileMetaData footer, int rowGroup, int column)
    {
        return footer.getRow_groups().get(rowGroup).getColumns().get(column).getMeta_data();
    }

    private void assertRefused(Path file, String... details)
    {
        assertQueryRefused(file, null, details);
    }

    private void assertQueryRefused(Path file, String query, String... details)
    {
        String message;
        try {
            Dataset<Row> frame = spark.read().format("gds").load(file.toString());
            if (query != null) {
                frame.createOrReplaceTempView("t");
                frame = spark.sql(query);
            }
            List<Row> rows = frame.collectAsList();
            message = "read " + rows.size() + " rows";
        }
        catch (Exception e) {
            message = ParquetTestingCorpusTestMessages.full(e);
        }
        assertTrue(message.contains("Malformed Parquet file") && message.contains(file.getFileName().toString()), file.getFileName() + ": " + message);
        for (String detail : details) {
            assertTrue(message.contains(detail), file.getFileName() + " should say '" + detail + "': " + message);
        }
    }

    /** One file of {@code frame}'s rows written by Spark (parquet-mr) with the codec and page version given, plus writer options. */
    private Path write(Dataset<Row> frame, String codec, String pageVersion, String... options)
            throws IOException
    {
        Path output = Files.createTempDirectory(directory, "written");
        var writer = frame.coalesce(1).write().mode("overwrite").option("compression", codec).option("parquet.writer.version", pageVersion);
        for (int index = 0; index < options.length; index += 2) {
            writer = writer.option(options[index], options[index + 1]);
        }
        writer.parquet(output.resolve("table").toString());
        try (Stream<Path> files = Files.list(output.resolve("table"))) {
            Path part = files.filter(path -> path.getFileName().toString().endsWith(".parquet")).findFirst().orElseThrow();
            return Files.move(part, output.resolve("v.parquet"));
        }
    }
}
