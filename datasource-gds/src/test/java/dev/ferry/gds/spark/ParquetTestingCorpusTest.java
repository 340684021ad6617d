package dev.ferry.gds.spark;

import dev.ferry.gds.TestingFiles;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every file of {@code parquet-testing/data} either reads exactly as {@code spark.read.parquet}
 * reads it, or is refused with a clear error; the refused files and their reasons are listed here so
 * a regression (or an improvement) shows.
 */
class ParquetTestingCorpusTest
        extends GdsSparkTest
{
    // File -> what the refusal must say. Everything else must match Spark row for row.
    private static final Map<String, String> REFUSED = Map.ofEntries(
            Map.entry("byte_stream_split_extended.gzip.parquet", "FLOAT16"),
            Map.entry("float16_nonzeros_and_nans.parquet", "FLOAT16"),
            Map.entry("float16_zeros_and_nans.parquet", "FLOAT16"),
            Map.entry("floating_orders_nan_count.parquet", "FLOAT16"),
            Map.entry("map_no_value.parquet", "Invalid map type"),
            // BROTLI decodes (brotli4j), but this file's dictionary page is 1 GiB uncompressed, over spark.ferry.gds.io.maxPageBytes.
            Map.entry("large_string_map.brotli.parquet", "A BROTLI page claims 1073741828 uncompressed bytes; the limit is"),
            Map.entry("nation.dict-malformed.parquet", "Malformed Parquet file"),
            Map.entry("non_hadoop_lz4_compressed.parquet", "cannot read the first page of column c0"),
            Map.entry("unknown-logical-type.parquet", "cannot read the footer"),
            Map.entry("encrypt_columns_and_footer.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("encrypt_columns_and_footer_aad.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("encrypt_columns_and_footer_bloom_filter.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("encrypt_columns_and_footer_ctr.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("encrypt_columns_plaintext_footer.parquet.encrypted", "Illegal Parquet type: INT32 (TIME(MILLIS,true))"),
            Map.entry("external_key_material_java.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("uniform_encryption.parquet.encrypted", "encrypted and no decryption keys"));

    @Test
    void everyFileMatchesSparkOrIsRefusedClearly()
            throws Exception
    {
        Path data = TestingFiles.parquetTesting().resolve("data");
        List<Path> files;
        try (Stream<Path> listing = Files.list(data)) {
            files = listing.filter(path -> path.getFileName().toString().contains(".parquet")).sorted().toList();
        }
        assertTrue(files.size() > 60, "expected the parquet-testing corpus, found " + files.size() + " files in " + data);

        new CorpusCheck(spark, REFUSED, Map.of()).checkAll(files);
    }
}
