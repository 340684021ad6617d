package dev.ferry.gds.spark;

import dev.ferry.gds.ParquetSurgery;
import dev.ferry.gds.RowRendering;
import dev.ferry.gds.TestingFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Malformed, truncated and non-Parquet files fail with an error naming the file; never a hang, never a wrong answer. */
class BadDataTest
        extends GdsSparkTest
{
    // Files parquet-mr (so both of Spark's readers) decodes without complaint: the defect they were filed
    // for is in another implementation's decoder. For these gds must return exactly Spark's rows.
    private static final Set<String> READ_BY_SPARK = Set.of("ARROW-GH-43605.parquet");

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyBadDataFileFailsNamingTheFile()
            throws IOException
    {
        List<Path> files;
        try (Stream<Path> listing = Files.list(TestingFiles.parquetTesting().resolve("bad_data"))) {
            files = listing.filter(path -> path.getFileName().toString().endsWith(".parquet")).sorted().toList();
        }
        assertTrue(files.size() >= 8, "bad_data corpus missing: " + files);
        Map<String, String> outcomes = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            String name = file.getFileName().toString();
            try {
                List<String> rows = RowRendering.sorted(spark.read().format("gds").load(file.toString()).collectAsList());
                if (!READ_BY_SPARK.contains(name)) {
                    problems.add(name + ": read " + rows.size() + " rows from a malformed file");
                }
                else if (!rows.equals(RowRendering.sorted(spark.read().parquet(file.toString()).collectAsList()))) {
                    problems.add(name + ": rows differ from Spark's");
                }
                outcomes.put(name, "read like Spark");
            }
            catch (Exception e) {
                String message = ParquetTestingCorpusTestMessages.full(e);
                outcomes.put(name, message);
                if (!message.contains(name)) {
                    problems.add(name + ": error does not name the file: " + message);
                }
            }
        }
        assertEquals(List.of(), problems, "outcomes: " + outcomes);
        assertEquals(files.size() - READ_BY_SPARK.size(), outcomes.values().stream()
                        .filter(outcome -> outcome.contains("Malformed Parquet file") || outcome.contains("Cannot read the schema of")).count(),
                "every other file is reported as malformed or its schema refused: " + outcomes);
    }

    @Test
    void truncatedCopiesOfAGoodFileFailNamingTheFile(@TempDir Path directory)
            throws IOException
    {
        byte[] good = Files.readAllBytes(TestingFiles.parquetTesting().resolve("data").resolve("alltypes_plain.parquet"));
        List<String> problems = new ArrayList<>();
        for (int length : new int[] {0, 3, 11, good.length / 2, good.length - 1}) {
            Path truncated = directory.resolve("truncated-" + length + ".parquet");
            Files.write(truncated, java.util.Arrays.copyOf(good, length));
            try {
                spark.read().format("gds").load(truncated.toString()).collectAsList();
                problems.add(truncated.getFileName() + ": read without error");
            }
            catch (Exception e) {
                String message = ParquetTestingCorpusTestMessages.full(e);
                if (!message.contains(truncated.getFileName().toString())) {
                    problems.add(truncated.getFileName() + ": error does not name the file: " + message);
                }
            }
            Files.delete(truncated);
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void aNonParquetFileFailsNamingTheFile(@TempDir Path directory)
            throws IOException
    {
        Path text = directory.resolve("notes.parquet");
        Files.writeString(text, "this is a text file, not Parquet, though long enough to have a tail\n".repeat(20));
        String message;
        try {
            spark.read().format("gds").load(text.toString()).collectAsList();
            message = "no error";
        }
        catch (Exception e) {
            message = ParquetTestingCorpusTestMessages.full(e);
        }
        assertTrue(message.contains("notes.parquet") && message.contains("Malformed Parquet file"), message);
    }

    /**
     * A BINARY dictionary page whose entries claim more bytes than the page holds (gds reads such
     * dictionaries straight from the page bytes): an error naming the file, never an overrun.
     */
    @Test
    void aDictionaryEntryLongerThanItsPageFailsNamingTheFile(@TempDir Path directory)
            throws Exception
    {
        Path good = Path.of(BadDataTest.class.getResource("/corpus/pyarrow/codec_none.parquet").toURI());
        ParquetSurgery surgery = ParquetSurgery.open(good);
        ParquetSurgery.Chunk chunk = surgery.chunk(0, "s");
        ParquetSurgery.Page dictionary = chunk.dictionaryPage();
        byte[] bytes = dictionary.uncompressed(chunk.codec());
        // The first entry's 4-byte little-endian length, now far past the page's end.
        java.nio.ByteBuffer.wrap(bytes, 0, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0x10000000);
        dictionary.setUncompressed(chunk.codec(), bytes);
        Path corrupt = surgery.write(directory.resolve("dictionary-overrun.parquet"));
        String message;
        try {
            spark.read().format("gds").load(corrupt.toString()).selectExpr("count(s)").collectAsList();
            message = "no error";
        }
        catch (Exception e) {
            message = ParquetTestingCorpusTestMessages.full(e);
        }
        assertTrue(message.contains("dictionary-overrun.parquet") && message.contains("dictionary entry of length 268435456"), message);
    }
}
