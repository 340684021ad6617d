package dev.ferry.gds.decode.cuda;

import dev.ferry.gds.TestingFiles;
import dev.ferry.gds.TestingSpark;
import dev.ferry.gds.decode.cuda.DevicePageHeaders.Chunk;
import dev.ferry.gds.decode.cuda.DevicePageHeaders.Walked;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The device page-header walk over real column chunks of the parquet-testing corpus, the pyarrow
 * corpus and Spark-written files (v1 and v2 pages, dictionaries, snappy, many small pages): for
 * every chunk, the descriptors equal what parquet-mr's Thrift code reads from the same bytes, on the
 * Java emulation and on the CUDA C source compiled for the host; a chunk parquet-mr refuses is a
 * {@link CorruptParquetException} naming its column; no kernel memory is left behind.
 */
class TestDevicePageHeadersOnCorpora
{
    private static final long MAX_PAGE_BYTES = 64L << 20;

    @TempDir
    static Path build;
    @TempDir
    static Path written;
    private static final List<DecodeKernels> implementations = new ArrayList<>();
    private static final List<Path> files = new ArrayList<>();

    @BeforeAll
    static void start()
            throws Exception
    {
        implementations.add(new KernelEmulation());
        if (HostCompiledKernels.build(build).isPresent()) {
            implementations.add(new HostCompiledKernels(null));
        }
        else {
            System.out.println("no c++ on PATH: parquet_headers.cu itself was not run on the host");
        }
        files.addAll(parquetFiles(TestingFiles.parquetTesting().resolve("data")));
        files.addAll(parquetFiles(Path.of(TestDevicePageHeadersOnCorpora.class.getResource("/corpus/pyarrow").toURI())));
        SparkSession spark = TestingSpark.start();
        spark.range(0, 3000, 1, 1).selectExpr("id", "CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(id % 17 AS INT) END AS i", "concat('s', CAST(id % 40 AS STRING)) AS s")
                .write().option("parquet.writer.version", "PARQUET_2_0").option("parquet.page.size", "1024").parquet(written.resolve("spark-v2").toString());
        spark.range(0, 3000, 1, 1).selectExpr("id", "CAST(id % 10 AS STRING) AS s", "id / 3.0 AS d")
                .write().option("parquet.page.size", "2048").option("parquet.compression", "uncompressed").parquet(written.resolve("spark-v1").toString());
        List<Path> spark2 = parquetFiles(written.resolve("spark-v2"));
        List<Path> spark1 = parquetFiles(written.resolve("spark-v1"));
        assertTrue(!spark1.isEmpty() && !spark2.isEmpty(), "Spark wrote " + spark1 + " and " + spark2);
        files.addAll(spark1);
        files.addAll(spark2);
    }

    @AfterAll
    static void stop()
    {
        for (DecodeKernels kernels : implementations) {
            if (kernels instanceof HostCompiledKernels host) {
                host.close();
            }
        }
    }

    /** What one implementation's pass over the corpora saw. */
    private static final class Totals
    {
        int files;
        long chunks;
        long pages;
        long v2Pages;
        long dictionaryPages;
        long refusedChunks;
        long framingBytes;
    }

    @Test
    void descriptorsEqualParquetMrOverTheCorpora()
            throws IOException
    {
        for (DecodeKernels kernels : implementations) {
            Totals totals = new Totals();
            long began = System.nanoTime();
            for (Path file : files) {
                compare(kernels, file, totals);
            }
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

    private static void compare(DecodeKernels kernels, Path path, Totals totals)
            throws IOException
    {
        byte[] bytes = Files.readAllBytes(path);
        ParquetMetadata footer;
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(path))) {
            footer = reader.getFooter();
        }
        catch (IOException | RuntimeException e) {
            // Encrypted or broken footers: no chunk to walk.
            return;
        }
        String file = path.getFileName().toString();
        totals.files++;
        for (BlockMetaData block : footer.getBlocks()) {
            List<Chunk> chunks = new ArrayList<>();
            List<ParquetMrPageHeaders.Outcome> expected = new ArrayList<>();
            try {
                for (ColumnChunkMetaData column : block.getColumns()) {
                    long start = column.getStartingPos();
                    long length = column.getTotalSize();
                    if (start < 0 || length < 0 || start + length > bytes.length) {
                        continue;
                    }
                    byte[] chunk = Arrays.copyOfRange(bytes, (int) start, (int) (start + length));
                    long address = kernels.allocate(Math.max(1, length));
                    kernels.upload(chunk, 0, chunk.length, address);
                    chunks.add(new Chunk(column.getPath().toDotString(), start, address, length, column.getValueCount()));
                    expected.add(ParquetMrPageHeaders.read(chunk, column.getValueCount(), MAX_PAGE_BYTES));
                }
                check(kernels, file, chunks, expected, totals);
            }
            finally {
                for (Chunk chunk : chunks) {
                    kernels.free(chunk.address());
                }
            }
        }
    }

    private static void check(DecodeKernels kernels, String file, List<Chunk> chunks, List<ParquetMrPageHeaders.Outcome> expected, Totals totals)
    {
        int firstRefused = -1;
        for (int i = 0; i < expected.size() && firstRefused < 0; i++) {
            if (expected.get(i).pages().isEmpty()) {
                firstRefused = i;
            }
        }
        List<Walked> walked;
        try {
            walked = DevicePageHeaders.walk(kernels, file, chunks, MAX_PAGE_BYTES);
        }
        catch (CorruptParquetException e) {
            if (firstRefused < 0) {
                fail(file + ": the walk refuses chunks parquet-mr reads: " + e.getMessage());
            }
            assertTrue(e.getMessage().contains("column " + chunks.get(firstRefused).column() + ": "), file + ": " + e.getMessage() + " names the chunk parquet-mr refuses first ("
                    + expected.get(firstRefused).refusal() + ")");
            totals.refusedChunks++;
            // The chunks parquet-mr reads are walked on their own, so a refused chunk does not hide the rest of its row group.
            List<Chunk> readable = new ArrayList<>();
            List<ParquetMrPageHeaders.Outcome> readableExpected = new ArrayList<>();
            for (int i = 0; i < chunks.size(); i++) {
                if (expected.get(i).pages().isPresent()) {
                    readable.add(chunks.get(i));
                    readableExpected.add(expected.get(i));
                }
                else if (i != firstRefused) {
                    assertRefused(kernels, file, chunks.get(i), expected.get(i), totals);
                }
            }
            check(kernels, file, readable, readableExpected, totals);
            return;
        }
        if (firstRefused >= 0) {
            fail(file + ": column " + chunks.get(firstRefused).column() + ": parquet-mr refuses (" + expected.get(firstRefused).refusal() + ") what the walk reads");
        }
        assertEquals(chunks.size(), walked.size(), file);
        for (int i = 0; i < chunks.size(); i++) {
            List<PageDescriptor> pages = walked.get(i).pages();
            assertEquals(expected.get(i).pages().orElseThrow(), pages, file + " column " + chunks.get(i).column());
            // A status per launch (one, or two where the chunk had more pages than the first launch's slots) and a slot per page; nothing for a chunk without values.
            long described = (long) PageHeaderSlots.SLOT_BYTES * pages.size();
            long framing = walked.get(i).framingBytes();
            if (chunks.get(i).valueCount() == 0) {
                assertEquals(0, framing, file + ": framing bytes of a chunk without values");
            }
            else {
                assertTrue(framing == 32 + described || (pages.size() > DevicePageHeaders.INITIAL_SLOTS && framing == 64 + described), file + ": framing bytes " + framing);
            }
            totals.chunks++;
            totals.pages += pages.size();
            totals.framingBytes += walked.get(i).framingBytes();
            for (PageDescriptor page : pages) {
                totals.v2Pages += page.type() == PageDescriptor.PageType.DATA_V2 ? 1 : 0;
                totals.dictionaryPages += page.type() == PageDescriptor.PageType.DICTIONARY ? 1 : 0;
            }
        }
    }

    private static void assertRefused(DecodeKernels kernels, String file, Chunk chunk, ParquetMrPageHeaders.Outcome expected, Totals totals)
    {
        try {
            DevicePageHeaders.walk(kernels, file, List.of(chunk), MAX_PAGE_BYTES);
            fail(file + ": column " + chunk.column() + ": parquet-mr refuses (" + expected.refusal() + ") what the walk reads");
        }
        catch (CorruptParquetException e) {
            assertTrue(e.getMessage().contains("column " + chunk.column() + ": "), e.getMessage());
            totals.refusedChunks++;
        }
    }

    static long allocated(DecodeKernels kernels)
    {
        if (kernels instanceof KernelEmulation emulation) {
            return emulation.allocatedBytes();
        }
        return ((HostCompiledKernels) kernels).allocatedBytes();
    }

    private static List<Path> parquetFiles(Path directory)
            throws IOException
    {
        try (Stream<Path> listing = Files.list(directory)) {
            return listing.filter(path -> path.getFileName().toString().endsWith(".parquet")).sorted().toList();
        }
    }
}
