package dev.ferry.gds.decode.cuda;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.gds.parquet.CorruptParquetException;
import dev.ferry.gds.decode.cuda.PageDescriptor.PageType;
import org.apache.parquet.column.Encoding;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The page headers of column chunks that sit in the kernels' memory, walked on the device: one
 * launch for the chunks of a row group, the descriptors read back (the only bytes that cross to the
 * host: framing, counted), never the page bodies.
 *
 * <p>Each chunk starts with {@link #INITIAL_SLOTS} descriptor slots (fewer when its bytes cannot hold
 * that many pages); the kernel counts the pages past its slots, and only the chunks that overflowed
 * are walked again, each with exactly the slots it counted, never more than its length allows
 * ({@link PageHeaderSlots#MIN_DESCRIBED_PAGE_BYTES}). What the kernel cannot judge, the host checks on
 * the descriptors: encoding ids, the dictionary page's place, v2 level lengths, the page size limit
 * and the value counts against the footer's.
 */
public final class DevicePageHeaders
{
    /** One chunk to walk: {@code length} stored bytes at {@code address}, which the file holds from {@code fileOffset}; its data pages must hold {@code valueCount} values. */
    public record Chunk(String column, long fileOffset, long address, long length, long valueCount) {}

    /** One chunk's pages in file order (index pages left out), and the bytes read back to describe them. */
    public record Walked(List<PageDescriptor> pages, long framingBytes) {}

    /** Descriptor slots per chunk in the first launch: enough for most chunks (a 1 MiB page size and a 64 MiB chunk). */
    static final int INITIAL_SLOTS = 64;

    private static final PageType[] PAGE_TYPES = PageType.values();

    private DevicePageHeaders() {}

    /**
     * Walks every chunk's page headers in one launch ({@code parquet_headers.cu}; a second for the
     * chunks with more pages than their first slots); a header that is
     * malformed, runs past its chunk, or pages whose value counts do not add up to the chunk's are a
     * {@code CorruptParquetException} naming {@code file}, the column and the file offset of the page.
     * Each page's uncompressed size is at most {@code maxPageBytes}. A chunk of no values has no
     * pages and its bytes are not read, as parquet-mr reads none.
     */
    public static List<Walked> walk(DecodeKernels kernels, String file, List<Chunk> chunks, long maxPageBytes)
    {
        if (maxPageBytes <= 0) {
            throw new IllegalArgumentException("maxPageBytes must be positive, got " + maxPageBytes);
        }
        for (Chunk chunk : chunks) {
            if (chunk.length() > 0 && chunk.address() == 0) {
                throw new IllegalArgumentException("column " + chunk.column() + " of " + file + ": " + chunk.length() + " bytes at the null address");
            }
            if (chunk.length() < 0 || chunk.valueCount() < 0 || chunk.fileOffset() < 0) {
                throw new CorruptParquetException(file, "column " + chunk.column() + ": column chunk at file offset " + chunk.fileOffset() + " has length "
                        + chunk.length() + " and " + chunk.valueCount() + " values");
            }
        }
        int count = chunks.size();
        List<PageDescriptor>[] pages = newPageLists(count);
        long[] framing = new long[count];
        long[] slots = new long[count];
        int[] pending = new int[count];
        int pendingCount = 0;
        for (int i = 0; i < count; i++) {
            if (chunks.get(i).valueCount() == 0) {
                // parquet-mr reads no page of a chunk without values (zero-row row groups' chunks may even point at the file's magic).
                pages[i] = List.of();
                continue;
            }
            slots[i] = Math.min(INITIAL_SLOTS, maxSlots(chunks.get(i)));
            pending[pendingCount++] = i;
        }
        // Two launches at most: the second gives each overflowing chunk the exact count the first found.
        for (int round = 0; round < 2 && pendingCount > 0; round++) {
            pendingCount = launch(kernels, file, chunks, Arrays.copyOf(pending, pendingCount), slots, pages, framing, maxPageBytes, pending);
        }
        if (pendingCount > 0) {
            Chunk chunk = chunks.get(pending[0]);
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "the device page-header walk of column " + chunk.column() + " in " + file
                    + " found more pages on its second launch than the " + slots[pending[0]] + " its first counted");
        }
        List<Walked> walked = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            walked.add(new Walked(List.copyOf(pages[i]), framing[i]));
        }
        return walked;
    }

    // At most one described page per MIN_DESCRIBED_PAGE_BYTES of the chunk.
    private static long maxSlots(Chunk chunk)
    {
        return chunk.length() / PageHeaderSlots.MIN_DESCRIBED_PAGE_BYTES;
    }

    @SuppressWarnings("unchecked")
    private static List<PageDescriptor>[] newPageLists(int count)
    {
        return new List[count];
    }

    /**
     * One launch over {@code subset} (indices into {@code chunks}) with {@code slots} each: fills
     * {@code pages} for the chunks whose pages fitted, writes the indices of those that did not into
     * {@code overflowed} (their {@code slots} raised to the count found) and returns how many.
     */
    private static int launch(DecodeKernels kernels, String file, List<Chunk> chunks, int[] subset, long[] slots, List<PageDescriptor>[] pages, long[] framing,
            long maxPageBytes, int[] overflowed)
    {
        int n = subset.length;
        long totalSlots = 0;
        ByteBuffer inputs = ByteBuffer.allocate(n * PageHeaderSlots.CHUNK_FIELDS * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int index : subset) {
            Chunk chunk = chunks.get(index);
            inputs.putLong(chunk.address()).putLong(chunk.length()).putLong(totalSlots).putLong(slots[index]);
            totalSlots += slots[index];
        }
        long descriptorBytes = Math.max(8, Math.multiplyExact(totalSlots, PageHeaderSlots.SLOT_BYTES));
        long statusBytes = (long) n * PageHeaderSlots.STATUS_FIELDS * Long.BYTES;
        long chunksAddress = 0;
        long descriptors = 0;
        long status = 0;
        try {
            chunksAddress = kernels.allocate(inputs.capacity());
            kernels.upload(inputs.array(), 0, inputs.capacity(), chunksAddress);
            descriptors = kernels.allocate(descriptorBytes);
            status = kernels.allocate(statusBytes);
            kernels.pageHeaders(chunksAddress, n, descriptors, status);
            ByteBuffer statuses = download(kernels, status, Math.toIntExact(statusBytes));
            int overflowCount = 0;
            for (int position = 0; position < n; position++) {
                int index = subset[position];
                Chunk chunk = chunks.get(index);
                long found = statuses.getLong();
                int error = (int) statuses.getLong();
                long headerAt = statuses.getLong();
                long errorAt = statuses.getLong();
                framing[index] += (long) PageHeaderSlots.STATUS_FIELDS * Long.BYTES;
                if (error != 0) {
                    throw corrupt(file, chunk, headerAt, PageHeaderSlots.describe(error) + " at file offset " + (chunk.fileOffset() + errorAt));
                }
                if (found < 0 || found > maxSlots(chunk)) {
                    throw new FerryException(ErrorCategory.INTERNAL_ERROR, "the device page-header walk of column " + chunk.column() + " in " + file + " counted "
                            + found + " pages in " + chunk.length() + " bytes");
                }
                if (found > slots[index]) {
                    slots[index] = found;
                    overflowed[overflowCount++] = index;
                }
                else if (found == 0) {
                    pages[index] = describe(file, chunk, ByteBuffer.allocate(0), 0, maxPageBytes);
                }
                else {
                    int bytes = Math.toIntExact(found * PageHeaderSlots.SLOT_BYTES);
                    long firstSlot = inputs.getLong((position * PageHeaderSlots.CHUNK_FIELDS + 2) * Long.BYTES);
                    ByteBuffer described = download(kernels, descriptors + firstSlot * PageHeaderSlots.SLOT_BYTES, bytes);
                    framing[index] += bytes;
                    pages[index] = describe(file, chunk, described, (int) found, maxPageBytes);
                }
            }
            return overflowCount;
        }
        finally {
            free(kernels, chunksAddress);
            free(kernels, descriptors);
            free(kernels, status);
        }
    }

    private static ByteBuffer download(DecodeKernels kernels, long address, int bytes)
    {
        byte[] host = new byte[bytes];
        kernels.download(address, host, 0, bytes);
        return ByteBuffer.wrap(host).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void free(DecodeKernels kernels, long address)
    {
        if (address != 0) {
            kernels.free(address);
        }
    }

    // The descriptors of one chunk, checked as the kernel cannot: encodings, the dictionary page's place, v2 levels, sizes, value counts.
    private static List<PageDescriptor> describe(String file, Chunk chunk, ByteBuffer slots, int count, long maxPageBytes)
    {
        List<PageDescriptor> pages = new ArrayList<>(count);
        long values = 0;
        long[] d = new long[PageHeaderSlots.SLOT_FIELDS];
        for (int index = 0; index < count; index++) {
            for (int field = 0; field < d.length; field++) {
                d[field] = slots.getLong();
            }
            long headerAt = d[PageHeaderSlots.HEADER_OFFSET];
            int type = (int) d[PageHeaderSlots.TYPE];
            if (type < 0 || type >= PAGE_TYPES.length || type == PageHeaderSlots.INDEX_PAGE) {
                throw new FerryException(ErrorCategory.INTERNAL_ERROR, "the device page-header walk described a page of type " + type + " in column "
                        + chunk.column() + " of " + file);
            }
            PageType pageType = PAGE_TYPES[type];
            if (d[PageHeaderSlots.UNCOMPRESSED_SIZE] > maxPageBytes) {
                throw corrupt(file, chunk, headerAt, "uncompressed page size " + d[PageHeaderSlots.UNCOMPRESSED_SIZE] + " exceeds the limit of " + maxPageBytes
                        + " bytes (spark.ferry.gds.io.maxPageBytes)");
            }
            if (pageType == PageType.DICTIONARY && index != 0) {
                throw corrupt(file, chunk, headerAt, "a dictionary page after the chunk's first page");
            }
            int definitionLength = (int) d[PageHeaderSlots.DEFINITION_LENGTH];
            int repetitionLength = (int) d[PageHeaderSlots.REPETITION_LENGTH];
            int valueCount = (int) d[PageHeaderSlots.VALUE_COUNT];
            int nullCount = (int) d[PageHeaderSlots.NULL_COUNT];
            if (pageType == PageType.DATA_V2) {
                if ((long) definitionLength + repetitionLength > d[PageHeaderSlots.COMPRESSED_SIZE]) {
                    throw corrupt(file, chunk, headerAt, "v2 levels of " + repetitionLength + " + " + definitionLength + " bytes exceed the page's "
                            + d[PageHeaderSlots.COMPRESSED_SIZE] + " stored bytes");
                }
                if (nullCount > valueCount) {
                    throw corrupt(file, chunk, headerAt, "a v2 page of " + valueCount + " values with " + nullCount + " nulls");
                }
            }
            if (pageType != PageType.DICTIONARY) {
                values += valueCount;
            }
            pages.add(new PageDescriptor(index, pageType, headerAt, d[PageHeaderSlots.BODY_OFFSET], (int) d[PageHeaderSlots.COMPRESSED_SIZE],
                    (int) d[PageHeaderSlots.UNCOMPRESSED_SIZE], valueCount, encoding(file, chunk, headerAt, d[PageHeaderSlots.ENCODING]),
                    pageType == PageType.DATA_V1 ? encoding(file, chunk, headerAt, d[PageHeaderSlots.DEFINITION_ENCODING]) : null,
                    pageType == PageType.DATA_V1 ? encoding(file, chunk, headerAt, d[PageHeaderSlots.REPETITION_ENCODING]) : null,
                    definitionLength, repetitionLength, nullCount, (int) d[PageHeaderSlots.ROW_COUNT], d[PageHeaderSlots.IS_COMPRESSED] != 0,
                    d[PageHeaderSlots.HAS_CRC] != 0));
        }
        if (values != chunk.valueCount()) {
            throw new CorruptParquetException(file, "column " + chunk.column() + ": the data pages of the column chunk at file offset " + chunk.fileOffset()
                    + " hold " + values + " values, its metadata says " + chunk.valueCount());
        }
        return pages;
    }

    // A Thrift Encoding id as parquet-mr names it (by the Thrift enum's name, as ParquetMetadataConverter maps them).
    private static Encoding encoding(String file, Chunk chunk, long headerAt, long id)
    {
        org.apache.parquet.format.Encoding thrift = id >= Integer.MIN_VALUE && id <= Integer.MAX_VALUE
                ? org.apache.parquet.format.Encoding.findByValue((int) id)
                : null;
        if (thrift == null) {
            throw corrupt(file, chunk, headerAt, "unknown encoding id " + id);
        }
        return Encoding.valueOf(thrift.name());
    }

    private static CorruptParquetException corrupt(String file, Chunk chunk, long headerAt, String what)
    {
        return new CorruptParquetException(file, "column " + chunk.column() + ": page header at file offset " + (chunk.fileOffset() + headerAt) + ": " + what);
    }
}
