package dev.ferry.gds.io;

import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.io.ParquetFileRange;
import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SeamInputStreamTest
{
    private static final byte[] DATA = new byte[100_000];

    static {
        for (int index = 0; index < DATA.length; index++) {
            DATA[index] = (byte) (index * 31 + 7);
        }
    }

    @Test
    void vectoredRangesInsideOnePlannedRequestAreViewsOfItsBuffer()
            throws Exception
    {
        TestingParquetDataSource source = new TestingParquetDataSource(DATA, new ReadPlanning(64, 1 << 20, 1 << 20), Optional.empty());
        DiskRange request = new DiskRange(1000, 20_000);
        ByteBuffer fetched = source.planRead(Map.of(request, request)).get(request);
        PrefetchedRanges prefetched = new PrefetchedRanges();
        prefetched.add(request, fetched);
        SeamInputStream stream = new SeamInputStream(source, prefetched);
        assertTrue(stream.readVectoredAvailable(new HeapByteBufferAllocator()));

        // Two runs of adjacent chunks, as parquet-mr asks for them, plus one range nothing prefetched.
        List<ParquetFileRange> ranges = List.of(new ParquetFileRange(1000, 5000), new ParquetFileRange(6000, 15_000), new ParquetFileRange(50_000, 100));
        stream.readVectored(ranges, new HeapByteBufferAllocator());
        for (ParquetFileRange range : ranges) {
            ByteBuffer bytes = range.getDataReadFuture().get();
            assertArrayEquals(java.util.Arrays.copyOfRange(DATA, (int) range.getOffset(), (int) range.getOffset() + range.getLength()),
                    AbstractParquetDataSourceTest.bytes(bytes), range.toString());
        }
        // No copy: the first two share the fetched buffer's memory; codecs read its array directly.
        assertSame(fetched.array(), ranges.get(0).getDataReadFuture().get().array());
        assertSame(fetched.array(), ranges.get(1).getDataReadFuture().get().array());
        assertEquals(1, source.counters().unplannedReads(), "only the range outside the plan was read on demand");
        assertEquals(0, stream.getPos(), "vectored reads leave the stream's position alone");
    }

    @Test
    void aVectoredRangeBeyondTheFileFailsNamingIt()
    {
        TestingParquetDataSource source = new TestingParquetDataSource(DATA, new ReadPlanning(64, 1 << 20, 1 << 20), Optional.empty());
        SeamInputStream stream = new SeamInputStream(source, new PrefetchedRanges());
        EOFException beyond = assertThrows(EOFException.class,
                () -> stream.readVectored(List.of(new ParquetFileRange(DATA.length - 10, 11)), new HeapByteBufferAllocator()));
        assertTrue(beyond.getMessage().contains("memory:test"), beyond.getMessage());
        assertThrows(EOFException.class, () -> stream.readVectored(List.of(new ParquetFileRange(-1, 5)), new HeapByteBufferAllocator()));
    }
}
