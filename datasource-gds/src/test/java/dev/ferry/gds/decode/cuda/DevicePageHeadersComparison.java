package dev.ferry.gds.decode.cuda;

import dev.ferry.gds.decode.cuda.DevicePageHeaders.Chunk;
import dev.ferry.gds.decode.cuda.DevicePageHeaders.Walked;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;

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
 * The comparison behind the device page-header walk's corpus test and its gpu-check: every column
 * chunk of every file, one walk per row group (as the reader launches it), against what parquet-mr's
 * Thrift code reads from the same bytes ({@link ParquetMrPageHeaders}); a chunk parquet-mr refuses
 * must be a {@link CorruptParquetException} naming its column, and the others of its row group are
 * walked again without it.
 */
public final class DevicePageHeadersComparison
{
    static final long MAX_PAGE_BYTES = 64L << 20;

    /** What one implementation's pass over the corpora saw. */
    public static final class Totals
    {
        public int files;
        public long chunks;
        public long pages;
        public long v2Pages;
        public long dictionaryPages;
        public long refusedChunks;
        public long framingBytes;
        public long walkNanos;
    }

    private DevicePageHeadersComparison() {}

    /** Walks every chunk of {@code files} on {@code kernels}, asserting as it goes. */
    public static Totals run(DecodeKernels kernels, List<Path> files)
            throws IOException
    {
        Totals totals = new Totals();
        for (Path file : files) {
            compare(kernels, file, totals);
        }
        return totals;
    }

    /** The {@code .parquet} files directly in {@code directory}, sorted. */
    public static List<Path> parquetFiles(Path directory)
            throws IOException
    {
        try (Stream<Path> listing = Files.list(directory)) {
            return listing.filter(path -> path.getFileName().toString().endsWith(".parquet")).sorted().toList();
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
            long began = System.nanoTime();
            walked = DevicePageHeaders.walk(kernels, file, chunks, MAX_PAGE_BYTES);
            totals.walkNanos += System.nanoTime() - began;
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

}
