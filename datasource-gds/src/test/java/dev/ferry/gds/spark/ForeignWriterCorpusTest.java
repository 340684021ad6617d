package dev.ferry.gds.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Files from a second writer, parquet-cpp (pyarrow 25.0.1, {@code scripts/testdata/pyarrow_corpus.py}):
 * every Arrow type Parquet holds (unsigned integers, large strings and lists, fixed-size lists,
 * dictionary arrays, maps, nested lists of structs, all-null and null-typed columns) through every
 * codec, data page v1 and v2 with small pages and page indexes, no dictionaries, DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT (on floats, integers, fixed-size
 * binary and decimals), RLE booleans, page checksums, INT96 timestamps, decimals stored as integers,
 * empty and one-row files, many row groups. Each must read as Spark reads it; the types Spark refuses
 * must be refused as clearly.
 */
class ForeignWriterCorpusTest
        extends GdsSparkTest
{
    private static final Map<String, String> REFUSED = Map.of(
            "dec256.parquet", "Decimal precision 40 exceeds max precision 38",
            "f16.parquet", "FLOAT16",
            "time.parquet", "TIME(MILLIS,false)",
            "ts_nanos.parquet", "TIMESTAMP(NANOS,true)");
    // Spark 4.2 ships no BROTLI codec: the same rows written uncompressed vouch for the BROTLI file.
    private static final Map<String, String> TWINS = Map.of("codec_brotli.parquet", "codec_none.parquet");

    @Test
    void everyFileMatchesSparkOrIsRefusedClearly()
            throws Exception
    {
        Path corpus = Path.of(ForeignWriterCorpusTest.class.getResource("/corpus/pyarrow").toURI());
        List<Path> files;
        try (Stream<Path> listing = Files.list(corpus)) {
            files = listing.filter(path -> path.getFileName().toString().endsWith(".parquet")).sorted().toList();
        }
        assertTrue(files.size() >= 29, "expected the pyarrow corpus, found " + files.size() + " files in " + corpus);
        new CorpusCheck(spark, REFUSED, TWINS).checkAll(files);
    }
}
