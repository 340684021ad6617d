package dev.ferry.gds.decode.cuda;

import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static dev.ferry.gds.decode.cuda.KernelTestBytes.download;
import static dev.ferry.gds.decode.cuda.PageBytes.concat;
import static dev.ferry.gds.decode.cuda.PageBytes.counting;
import static dev.ferry.gds.decode.cuda.PageBytes.ints;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The host side of the one-launch device copy: the range table it uploads, the ranges it refuses, and a resident
 * chunk's page bodies moved with one {@code parquet_copy.cu} launch, never one copy per body: the bodies of an
 * uncompressed chunk into place; of a compressed one, the bodies stored as they are into place and only the compressed
 * bodies off nvCOMP's alignment into a staging buffer (the aligned ones nvCOMP reads where they lie).
 */
class TestDeviceRangeCopy
{
    private static final DeviceChunkDecode.ChunkName NAME = new DeviceChunkDecode.ChunkName("f.parquet", "c");

    @Test
    void oneLaunchUploadsTheTableOfTheRangesWithBytesAndFreesIt()
    {
        CountingKernels kernels = new CountingKernels();
        long source = kernels.allocate(64);
        kernels.upload(counting(0, 64), 0, 64, source);
        long target = kernels.allocate(64);
        kernels.upload(new byte[64], 0, 64, target);
        DeviceRangeCopy copy = new DeviceRangeCopy(kernels).add(source + 3, target + 1, 5).add(source, target + 20, 0).add(source + 40, target + 30, 17);
        assertEquals(2, copy.count(), "the empty range takes no block");
        copy.run();
        assertEquals(List.of(2), kernels.launches);
        byte[] expected = new byte[64];
        System.arraycopy(counting(0, 64), 3, expected, 1, 5);
        System.arraycopy(counting(0, 64), 40, expected, 30, 17);
        assertArrayEquals(expected, download(kernels, target, 64));
        kernels.free(source);
        kernels.free(target);
        assertEquals(0, kernels.allocatedBytes(), "the range table is freed");

        new DeviceRangeCopy(kernels).add(source, target, 0).run();
        assertEquals(List.of(2), kernels.launches, "no launch without bytes to copy");
    }

    @Test
    void aLongRangeIsCutIntoPiecesOfOneBlockEach()
    {
        CountingKernels kernels = new CountingKernels();
        int length = (int) (3 * DeviceRangeCopy.PIECE + 3_392);
        byte[] data = new byte[length + 16];
        new java.util.Random(18).nextBytes(data);
        long source = kernels.allocate(data.length);
        kernels.upload(data, 0, data.length, source);
        long target = kernels.allocate(data.length);
        kernels.upload(new byte[data.length], 0, data.length, target);
        assertEquals(1, new DeviceRangeCopy(kernels).add(source, target, DeviceRangeCopy.PIECE).count(), "one piece exactly");
        DeviceRangeCopy copy = new DeviceRangeCopy(kernels).add(source + 5, target + 13, length);
        assertEquals(4, copy.count(), "three whole pieces and the rest");
        copy.run();
        byte[] expected = new byte[data.length];
        System.arraycopy(data, 5, expected, 13, length);
        assertArrayEquals(expected, download(kernels, target, data.length));
        assertEquals(List.of(4), kernels.launches, "one launch of four blocks");
        kernels.free(source);
        kernels.free(target);
        assertEquals(0, kernels.allocatedBytes());
    }

    @Test
    void refusesNegativeLengthsAndTheNullAddress()
    {
        DeviceRangeCopy copy = new DeviceRangeCopy(new KernelEmulation());
        assertThrows(IllegalArgumentException.class, () -> copy.add(0x1000, 0x2000, -1));
        assertThrows(IllegalArgumentException.class, () -> copy.add(0, 0x2000, 8));
        assertThrows(IllegalArgumentException.class, () -> copy.add(0x1000, 0, 8));
        assertEquals(0, copy.count());
    }

    @Test
    void anUncompressedResidentChunkMovesItsBodiesInOneLaunch()
    {
        CountingKernels kernels = new CountingKernels();
        // Junk stands where the Thrift headers are: a v1 page of 3 ints, a v2 page of 2 (no levels: required).
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        read.writeBytes(counting(100, 5));
        int first = read.size();
        read.writeBytes(ints(1, 2, 3));
        read.writeBytes(counting(110, 7));
        int second = read.size();
        read.writeBytes(ints(4, 5));
        read.writeBytes(counting(120, 3));
        List<PageDescriptor> pages = List.of(
                page(0, PageDescriptor.PageType.DATA_V1, first, 12, 12, 3, 0, false),
                page(1, PageDescriptor.PageType.DATA_V2, second, 8, 8, 2, 0, false));
        long resident = KernelTestBytes.upload(kernels, read.toByteArray());
        ChunkPages chunkPages = ChunkPages.resident(pages, CompressionCodecName.UNCOMPRESSED, 0);
        try (DeviceChunkDecode chunk = new DeviceChunkDecode(kernels, NAME, DeviceValueKind.FIXED4, 0, 0, chunkPages, resident)) {
            assertEquals(List.of(2), kernels.launches, "both bodies in one launch (the v2 page's empty levels take no block)");
            assertEquals(0, kernels.bodyCopiesFrom(resident, read.size()), "no body copied on its own");
            DeviceChunkDecode.Batch batch = chunk.batch(0, 5);
            assertArrayEquals(ints(1, 2, 3, 4, 5), download(kernels, batch.buffers().get(1), 20));
            assertEquals(0, chunk.uploadedBytes());
            batch.buffers().forEach(kernels::free);
        }
        kernels.free(resident);
        assertEquals(0, kernels.allocatedBytes());
    }

    @Test
    void aSnappyResidentChunkStagesOnlyItsMisalignedBodiesInTheLaunchThatPlacesTheV2Levels()
            throws IOException
    {
        CountingKernels kernels = new CountingKernels();
        // Optional ints: a v1 page (4-byte levels length, RLE run of 3 x 1, 3 ints) compressed whole, at an offset off
        // nvCOMP's alignment; a v2 page with its levels (RLE run of 2 x 1) stored as they are and its 2 ints compressed,
        // starting on the alignment.
        byte[] v1Body = Snappy.compress(concat(new byte[] {2, 0, 0, 0, 6, 1}, ints(7, 8, 9)));
        byte[] v2Levels = {4, 1};
        byte[] v2Values = Snappy.compress(ints(10, 11));
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        read.writeBytes(counting(100, 9));
        int first = read.size();
        read.writeBytes(v1Body);
        read.writeBytes(counting(110, 4));
        int aligned = (read.size() + v2Levels.length + ChunkPages.COMPRESSED_ALIGNMENT - 1) / ChunkPages.COMPRESSED_ALIGNMENT * ChunkPages.COMPRESSED_ALIGNMENT;
        read.writeBytes(counting(120, aligned - v2Levels.length - read.size()));
        int second = read.size();
        read.writeBytes(v2Levels);
        read.writeBytes(v2Values);
        List<PageDescriptor> pages = List.of(
                page(0, PageDescriptor.PageType.DATA_V1, first, v1Body.length, 18, 3, 0, false),
                page(1, PageDescriptor.PageType.DATA_V2, second, v2Levels.length + v2Values.length, v2Levels.length + 8, 2, v2Levels.length, true));
        long resident = KernelTestBytes.upload(kernels, read.toByteArray());
        assertEquals(0, resident % ChunkPages.COMPRESSED_ALIGNMENT, "the emulation allocates as cuMemAlloc does");
        ChunkPages chunkPages = ChunkPages.resident(pages, CompressionCodecName.SNAPPY, 1);
        try (DeviceChunkDecode chunk = new DeviceChunkDecode(kernels, NAME, DeviceValueKind.FIXED4, 0, 1, chunkPages, resident)) {
            assertEquals(List.of(2), kernels.launches, "the misaligned v1 body staged and the v2 levels placed, in one launch");
            assertEquals(List.of(resident + first, resident + second), kernels.copiedFrom.stream().sorted().toList(), "the aligned v2 values are not copied");
            assertEquals(List.of(resident + aligned), kernels.decompressedFrom.stream().filter(in -> in >= resident && in < resident + read.size()).toList(),
                    "nvCOMP reads the aligned body where the read put it");
            assertEquals(1, chunk.bodiesDecompressedInPlace());
            assertEquals(1, chunk.bodiesStaged());
            assertEquals(v1Body.length, chunk.stagedBytes());
            assertEquals(0, kernels.bodyCopiesFrom(resident, read.size()), "no body copied on its own");
            DeviceChunkDecode.Batch batch = chunk.batch(0, 5);
            assertEquals(0, batch.nullCount());
            assertArrayEquals(ints(7, 8, 9, 10, 11), download(kernels, batch.buffers().get(1), 20));
            batch.buffers().forEach(kernels::free);
        }
        kernels.free(resident);
        assertEquals(0, kernels.allocatedBytes());
    }

    @Test
    void aResidentChunkWhoseCompressedBodiesAreAllAlignedCopiesNothing()
            throws IOException
    {
        CountingKernels kernels = new CountingKernels();
        // Required ints: two v1 pages compressed whole, each starting on nvCOMP's alignment.
        byte[] firstBody = Snappy.compress(ints(1, 2, 3));
        byte[] secondBody = Snappy.compress(ints(4, 5));
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        read.writeBytes(counting(100, ChunkPages.COMPRESSED_ALIGNMENT));
        int first = read.size();
        read.writeBytes(firstBody);
        read.writeBytes(counting(110, 2 * ChunkPages.COMPRESSED_ALIGNMENT - read.size() % ChunkPages.COMPRESSED_ALIGNMENT));
        int second = read.size();
        read.writeBytes(secondBody);
        List<PageDescriptor> pages = List.of(
                page(0, PageDescriptor.PageType.DATA_V1, first, firstBody.length, 12, 3, 0, true),
                page(1, PageDescriptor.PageType.DATA_V1, second, secondBody.length, 8, 2, 0, true));
        long resident = KernelTestBytes.upload(kernels, read.toByteArray());
        ChunkPages chunkPages = ChunkPages.resident(pages, CompressionCodecName.SNAPPY, 0);
        try (DeviceChunkDecode chunk = new DeviceChunkDecode(kernels, NAME, DeviceValueKind.FIXED4, 0, 0, chunkPages, resident)) {
            assertEquals(List.of(), kernels.launches, "no copy launch");
            assertEquals(List.of(resident + first, resident + second), kernels.decompressedFrom, "both bodies decompressed where they lie");
            assertEquals(2, chunk.bodiesDecompressedInPlace());
            assertEquals(0, chunk.bodiesStaged());
            assertEquals(0, chunk.stagedBytes());
            DeviceChunkDecode.Batch batch = chunk.batch(0, 5);
            assertArrayEquals(ints(1, 2, 3, 4, 5), download(kernels, batch.buffers().get(1), 20));
            batch.buffers().forEach(kernels::free);
        }
        kernels.free(resident);
        assertEquals(0, kernels.allocatedBytes(), "no staging buffer left");
    }

    private static PageDescriptor page(int index, PageDescriptor.PageType type, long bodyOffset, int compressedSize, int uncompressedSize, int values,
            int definitionLength, boolean compressed)
    {
        return new PageDescriptor(index, type, bodyOffset - 3, bodyOffset, compressedSize, uncompressedSize, values, Encoding.PLAIN, Encoding.RLE, Encoding.RLE,
                definitionLength, 0, 0, values, compressed, false);
    }

    /** The emulation, recording the range count and sources of each one-launch copy, the source of each single copy, and nvCOMP's inputs. */
    private static final class CountingKernels
            extends KernelEmulation
    {
        final List<Integer> launches = new ArrayList<>();
        final List<Long> copySources = new ArrayList<>();
        final List<Long> copiedFrom = new ArrayList<>();
        final List<Long> decompressedFrom = new ArrayList<>();

        @Override
        public void copyRanges(long ranges, int count)
        {
            launches.add(count);
            copiedFrom.addAll(CopyRangeTable.sources(this, ranges, count));
            super.copyRanges(ranges, count);
        }

        @Override
        public String[] decompress(CompressionCodecName codec, long[] in, long[] inBytes, long[] out, long[] outBytes)
        {
            for (long address : in) {
                decompressedFrom.add(address);
            }
            return super.decompress(codec, in, inBytes, out, outBytes);
        }

        @Override
        public void copy(long source, long target, long length)
        {
            copySources.add(source);
            super.copy(source, target, length);
        }

        long bodyCopiesFrom(long resident, long length)
        {
            return copySources.stream().filter(source -> source >= resident && source < resident + length).count();
        }
    }
}
