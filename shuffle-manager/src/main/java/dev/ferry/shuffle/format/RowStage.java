package dev.ferry.shuffle.format;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.unsafe.Platform;

import static java.util.Objects.requireNonNull;

/**
 * A map task's UnsafeRows copied, as they arrive, into pages of the task's Arrow memory, each
 * with its reduce partition (what Spark's sort shuffle does before it sorts by partition). When
 * the stage is encoded its rows are grouped by partition, stably, so one partition's Arrow batch
 * is built at a time: the vectors being written stay in cache, and batches are as large as the
 * partition's staged rows allow, instead of every row going to one of hundreds of open batches.
 * Pages are kept and reused after {@link #clear}. Not thread-safe (one per task).
 */
final class RowStage
        implements AutoCloseable
{
    private static final int MIN_PAGE_BYTES = 64 << 10;
    private static final int MAX_PAGE_BYTES = 4 << 20;
    // A row's header: its size in bytes (8 bytes keep the row 8-byte aligned, as UnsafeRow's words expect).
    private static final int HEADER = 8;
    // On-heap bytes per staged row: its address and partition, and its slot in the grouped order.
    private static final int INDEX_BYTES_PER_ROW = 8 + 4 + 8;

    private final BufferAllocator allocator;
    private final int pageBytes;
    private final List<ArrowBuf> pages = new ArrayList<>();
    private final List<ArrowBuf> largePages = new ArrayList<>();
    private int page = -1;
    private long cursor;
    private long pageEnd;
    private long[] addresses = new long[1024];
    private int[] partitions = new int[1024];
    private long[] grouped = new long[0];
    private int rows;

    /** Pages are sized so that a stage of {@code budgetBytes} holds several of them. */
    RowStage(BufferAllocator allocator, long budgetBytes)
    {
        this.allocator = requireNonNull(allocator, "allocator is null");
        long page = Long.highestOneBit(Math.max(1, budgetBytes / 8));
        this.pageBytes = (int) Math.min(MAX_PAGE_BYTES, Math.max(MIN_PAGE_BYTES, page));
    }

    void add(int partition, UnsafeRow row)
    {
        int size = row.getSizeInBytes();
        long needed = HEADER + align8(size);
        if (cursor + needed > pageEnd) {
            nextPage(needed);
        }
        MemoryUtil.putLong(cursor, size);
        Platform.copyMemory(row.getBaseObject(), row.getBaseOffset(), null, cursor + HEADER, size);
        if (rows == addresses.length) {
            int grown = Math.max(1024, rows * 2);
            addresses = Arrays.copyOf(addresses, grown);
            partitions = Arrays.copyOf(partitions, grown);
        }
        addresses[rows] = cursor;
        partitions[rows] = partition;
        rows++;
        cursor += needed;
    }

    private void nextPage(long needed)
    {
        if (needed > pageBytes) {
            // A row larger than a page gets a page of its own, released at the next clear.
            ArrowBuf large = allocator.buffer(needed);
            largePages.add(large);
            cursor = large.memoryAddress();
            pageEnd = cursor + needed;
            return;
        }
        page++;
        if (page == pages.size()) {
            pages.add(allocator.buffer(pageBytes));
        }
        cursor = pages.get(page).memoryAddress();
        pageEnd = cursor + pageBytes;
    }

    private static long align8(long size)
    {
        return (size + 7) & ~7L;
    }

    int rows()
    {
        return rows;
    }

    /**
     * Memory the staged rows take: the pages in use (kept pages beyond them are reused, not
     * counted again), rows larger than a page, and the on-heap index.
     */
    long memoryBytes()
    {
        long bytes = (long) (page + 1) * pageBytes + (long) addresses.length * INDEX_BYTES_PER_ROW;
        for (ArrowBuf large : largePages) {
            bytes += large.capacity();
        }
        return bytes;
    }

    /**
     * Groups the staged rows by partition (a counting sort, so arrival order is kept within a
     * partition) and returns, for each partition {@code p}, the rows {@code starts[p]} up to
     * {@code starts[p + 1]} of {@link #groupedAddress}.
     */
    int[] groupByPartition(int partitionCount)
    {
        int[] starts = new int[partitionCount + 1];
        for (int i = 0; i < rows; i++) {
            starts[partitions[i] + 1]++;
        }
        for (int p = 0; p < partitionCount; p++) {
            starts[p + 1] += starts[p];
        }
        if (grouped.length < rows) {
            grouped = new long[addresses.length];
        }
        int[] next = Arrays.copyOf(starts, partitionCount);
        for (int i = 0; i < rows; i++) {
            grouped[next[partitions[i]]++] = addresses[i];
        }
        return starts;
    }

    /** Points {@code view} at the {@code index}-th row in partition order (after {@link #groupByPartition}). */
    void pointTo(UnsafeRow view, int index)
    {
        long address = grouped[index];
        view.pointTo(null, address + HEADER, (int) MemoryUtil.getLong(address));
    }

    /** Forgets the staged rows; keeps the regular pages for the next rows and releases the large ones. */
    void clear()
    {
        rows = 0;
        page = -1;
        cursor = 0;
        pageEnd = 0;
        largePages.forEach(ArrowBuf::close);
        largePages.clear();
    }

    @Override
    public void close()
    {
        clear();
        pages.forEach(ArrowBuf::close);
        pages.clear();
        addresses = new long[0];
        partitions = new int[0];
        grouped = new long[0];
    }
}
