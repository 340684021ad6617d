package dev.ferry.gds.decode.cuda;

import dev.ferry.gds.TestingFiles;
import dev.ferry.gds.TestingSpark;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device page-header walk over real column chunks of the parquet-testing corpus, the pyarrow
 * corpus and Spark-written files (v1 and v2 pages, dictionaries, snappy, many small pages): for
 * every chunk, the descriptors equal what parquet-mr's Thrift code reads from the same bytes, on the
 * Java emulation and on the CUDA C source compiled for the host ({@link DevicePageHeadersComparison});
 * a chunk parquet-mr refuses is a corrupt-file error naming its column; no kernel memory is left behind.
 */
class TestDevicePageHeadersOnCorpora
{
    @RegisterExtension
    static final KernelImplementations KERNELS = new KernelImplementations();
    @TempDir
    static Path written;
    private static final List<Path> files = new ArrayList<>();

    @BeforeAll
    static void start()
            throws Exception
    {
        files.addAll(DevicePageHeadersComparison.parquetFiles(TestingFiles.parquetTesting().resolve("data")));
        files.addAll(DevicePageHeadersComparison.parquetFiles(Path.of(TestDevicePageHeadersOnCorpora.class.getResource("/corpus/pyarrow").toURI())));
        SparkSession spark = TestingSpark.start();
        spark.range(0, 3000, 1, 1).selectExpr("id", "CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(id % 17 AS INT) END AS i", "concat('s', CAST(id % 40 AS STRING)) AS s")
                .write().option("parquet.writer.version", "PARQUET_2_0").option("parquet.page.size", "1024").parquet(written.resolve("spark-v2").toString());
        spark.range(0, 3000, 1, 1).selectExpr("id", "CAST(id % 10 AS STRING) AS s", "id / 3.0 AS d")
                .write().option("parquet.page.size", "2048").option("parquet.compression", "uncompressed").parquet(written.resolve("spark-v1").toString());
        List<Path> spark2 = DevicePageHeadersComparison.parquetFiles(written.resolve("spark-v2"));
        List<Path> spark1 = DevicePageHeadersComparison.parquetFiles(written.resolve("spark-v1"));
        assertTrue(!spark1.isEmpty() && !spark2.isEmpty(), "Spark wrote " + spark1 + " and " + spark2);
        files.addAll(spark1);
        files.addAll(spark2);
    }

    @Test
    void descriptorsEqualParquetMrOverTheCorpora()
            throws IOException
    {
        for (DecodeKernels kernels : KERNELS.all()) {
            long began = System.nanoTime();
            DevicePageHeadersComparison.Totals totals = DevicePageHeadersComparison.run(kernels, files);
            System.out.printf("device page headers on %s: %d files, %d chunks, %d pages (%d v2, %d dictionary), %d chunks refused as parquet-mr refuses them, "
                            + "%d framing bytes read back, %.1f s%n", kernels.describe(), totals.files, totals.chunks, totals.pages, totals.v2Pages,
                    totals.dictionaryPages, totals.refusedChunks, totals.framingBytes, (System.nanoTime() - began) / 1e9);
            assertTrue(totals.files >= 60, "files walked: " + totals.files);
            assertTrue(totals.chunks >= 500, "chunks walked: " + totals.chunks);
            assertTrue(totals.pages >= 2000, "pages described: " + totals.pages);
            assertTrue(totals.v2Pages >= 50 && totals.dictionaryPages >= 100, "v2 pages " + totals.v2Pages + ", dictionary pages " + totals.dictionaryPages);
            assertEquals(0, allocated(kernels), kernels.describe() + ": kernel memory left behind");
        }
    }

    static long allocated(DecodeKernels kernels)
    {
        if (kernels instanceof KernelEmulation emulation) {
            return emulation.allocatedBytes();
        }
        return ((HostCompiledKernels) kernels).allocatedBytes();
    }
}
