package dev.ferry.gds.io;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BoundedCodecFactoryTest
{
    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    void pagesWithinTheLimitDecompressAndLargerClaimsAreRefused()
            throws IOException
    {
        CompressionCodecFactory codecs = parquetMrCodecs();
        byte[] page = "twelve bytes".repeat(10).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        BytesInput compressed = BytesInput.copy(codecs.getCompressor(CompressionCodecName.SNAPPY).compress(BytesInput.from(page)));
        BoundedCodecFactory bounded = new BoundedCodecFactory(codecs, page.length);
        assertArrayEquals(page, bounded.getDecompressor(CompressionCodecName.SNAPPY).decompress(compressed, page.length).toByteArray());
        IOException refused = assertThrows(IOException.class,
                () -> bounded.getDecompressor(CompressionCodecName.SNAPPY).decompress(compressed, Integer.MAX_VALUE));
        assertTrue(refused.getMessage().contains("spark.ferry.gds.io.maxPageBytes"), refused.getMessage());
    }

    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    void pagesReadWhileACaptureWindowIsOpenStayCompressedAndDecompressOnceIfRead()
            throws IOException
    {
        CompressionCodecFactory codecs = parquetMrCodecs();
        byte[] page = "deferred page ".repeat(100).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] compressed = BytesInput.copy(codecs.getCompressor(CompressionCodecName.SNAPPY).compress(BytesInput.from(page))).toByteArray();
        BoundedCodecFactory bounded = new BoundedCodecFactory(codecs, 1 << 20);
        CompressedPageCapture capture = bounded.capture();
        BytesInput deferred;
        CompressedPageCapture.Window window = capture.open();
        try {
            deferred = bounded.getDecompressor(CompressionCodecName.SNAPPY).decompress(BytesInput.from(compressed), page.length);
            // Uncompressed chunks are never deferred; the size checks still run for deferred bodies.
            BytesInput plain = bounded.getDecompressor(CompressionCodecName.UNCOMPRESSED).decompress(BytesInput.from(page), page.length);
            assertTrue(window.compressed(plain).isEmpty());
            assertThrows(IOException.class, () -> bounded.getDecompressor(CompressionCodecName.SNAPPY).decompress(BytesInput.from(compressed), 2 << 20));
            assertThrows(IllegalStateException.class, capture::open, "one window at a time");
            // Another thread's pages are not deferred by this thread's window.
            BytesInput[] otherThread = new BytesInput[1];
            Thread other = new Thread(() -> {
                try {
                    otherThread[0] = BytesInput.from(bounded.getDecompressor(CompressionCodecName.SNAPPY).decompress(BytesInput.from(compressed), page.length).toByteArray());
                }
                catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            other.start();
            try {
                other.join();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            assertArrayEquals(page, otherThread[0].toByteArray());
            assertEquals(0, capture.decompressedOnCpu(), "the other thread's page was decompressed at once, not deferred");
        }
        finally {
            window.close();
        }
        assertEquals(page.length, deferred.size());
        CompressedPageCapture.CompressedBody body = window.compressed(deferred).orElseThrow();
        assertEquals(CompressionCodecName.SNAPPY, body.codec());
        assertEquals(page.length, body.uncompressedSize());
        assertArrayEquals(compressed, body.bytes());
        assertEquals(1, capture.deferredBodies());
        assertEquals(0, capture.decompressedOnCpu(), "nothing decompressed until read");
        assertArrayEquals(page, deferred.toByteArray());
        assertEquals(1, capture.decompressedOnCpu());
        // A body is read once: a second read fails loudly instead of decompressing again.
        assertThrows(IOException.class, deferred::toByteArray);
        assertEquals(1, capture.decompressedOnCpu());
        // With the window closed pages decompress at once again.
        BytesInput eager = bounded.getDecompressor(CompressionCodecName.SNAPPY).decompress(BytesInput.from(compressed), page.length);
        assertTrue(window.compressed(eager).isEmpty());
        assertArrayEquals(page, eager.toByteArray());
        assertEquals(1, capture.deferredBodies());
    }

    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    void brotliPagesDecompressAndWrongSizesAreRefused()
            throws IOException
    {
        CompressionCodecFactory codecs = parquetMrCodecs();
        byte[] page = "brotli page bytes ".repeat(50).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        com.aayushatharva.brotli4j.Brotli4jLoader.ensureAvailability();
        BytesInput compressed = BytesInput.from(com.aayushatharva.brotli4j.encoder.Encoder.compress(page));
        BoundedCodecFactory bounded = new BoundedCodecFactory(codecs, 1 << 20);
        assertArrayEquals(page, bounded.getDecompressor(CompressionCodecName.BROTLI).decompress(compressed, page.length).toByteArray());
        IOException shorter = assertThrows(IOException.class, () -> bounded.getDecompressor(CompressionCodecName.BROTLI).decompress(compressed, page.length - 1));
        assertTrue(shorter.getMessage().contains("more than"), shorter.getMessage());
        IOException longer = assertThrows(IOException.class, () -> bounded.getDecompressor(CompressionCodecName.BROTLI).decompress(compressed, page.length + 1));
        assertTrue(longer.getMessage().contains("decompressed to " + page.length), longer.getMessage());
        IOException tooLarge = assertThrows(IOException.class, () -> bounded.getDecompressor(CompressionCodecName.BROTLI).decompress(compressed, 2 << 20));
        assertTrue(tooLarge.getMessage().contains("spark.ferry.gds.io.maxPageBytes"), tooLarge.getMessage());
    }
    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    void zstdPagesDecompressWithPooledContextsAndBadPagesAreRefused()
            throws IOException
    {
        CompressionCodecFactory codecs = parquetMrCodecs();
        BoundedCodecFactory bounded = new BoundedCodecFactory(codecs, 1 << 20);
        byte[] page = "zstd page bytes ".repeat(200).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] frame = com.github.luben.zstd.Zstd.compress(page, 3);
        byte[] corrupt = frame.clone();
        for (int index = frame.length / 2; index < frame.length; index++) {
            corrupt[index] = (byte) ~corrupt[index];
        }
        for (int round = 0; round < 3; round++) {
            // Pages through the same pooled contexts, before and after failures that must not poison them.
            for (int repeat = 0; repeat < 20; repeat++) {
                byte[] other = ("page " + repeat + " ").repeat(100 + repeat).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                assertArrayEquals(other, bounded.getDecompressor(CompressionCodecName.ZSTD)
                        .decompress(BytesInput.from(com.github.luben.zstd.Zstd.compress(other, 1)), other.length).toByteArray());
            }
            assertArrayEquals(page, bounded.getDecompressor(CompressionCodecName.ZSTD).decompress(BytesInput.from(frame), page.length).toByteArray());
            IOException shorter = assertThrows(IOException.class,
                    () -> bounded.getDecompressor(CompressionCodecName.ZSTD).decompress(BytesInput.from(frame), page.length - 1));
            assertTrue(shorter.getMessage().contains("ZSTD"), shorter.getMessage());
            IOException longer = assertThrows(IOException.class,
                    () -> bounded.getDecompressor(CompressionCodecName.ZSTD).decompress(BytesInput.from(frame), page.length + 1));
            // The frame records its content size, so the claim is refused before an array is taken.
            assertTrue(longer.getMessage().contains("holds a frame of " + page.length + " bytes"), longer.getMessage());
            assertThrows(IOException.class, () -> bounded.getDecompressor(CompressionCodecName.ZSTD).decompress(BytesInput.from(corrupt), page.length));
        }
    }

    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteBuffer: the page's own array
    void pagesGivenBackAreDecompressedIntoTheSameArray()
            throws IOException
    {
        CompressionCodecFactory codecs = parquetMrCodecs();
        BoundedCodecFactory bounded = new BoundedCodecFactory(codecs, 1 << 20);
        for (CompressionCodecName codec : new CompressionCodecName[] {CompressionCodecName.SNAPPY, CompressionCodecName.ZSTD}) {
            byte[] first = "first page ".repeat(300).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            byte[] second = "second, shorter ".repeat(100).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            java.nio.ByteBuffer one = bounded.getDecompressor(codec).decompress(compress(codecs, codec, first), first.length).toByteBuffer();
            assertArrayEquals(first, AbstractParquetDataSourceTest.bytes(one), codec.name());
            bounded.pageArrays().giveBack(one.array());
            java.nio.ByteBuffer two = bounded.getDecompressor(codec).decompress(compress(codecs, codec, second), second.length).toByteBuffer();
            // The same array, and the page is exactly the new bytes: the longer old page's tail is past its limit.
            org.junit.jupiter.api.Assertions.assertSame(one.array(), two.array(), codec.name());
            assertArrayEquals(second, AbstractParquetDataSourceTest.bytes(two), codec.name());
            // ...and no decoder can see it: the buffer ends where the page does (parquet-mr's dictionaries slice to capacity).
            assertEquals(second.length, two.capacity(), codec.name());
            bounded.pageArrays().giveBack(two.array());
        }
    }

    @Test
    void aClaimTheCodecsOwnHeaderContradictsIsRefusedBeforeAnArrayIsTaken()
            throws IOException
    {
        CompressionCodecFactory codecs = parquetMrCodecs();
        BoundedCodecFactory bounded = new BoundedCodecFactory(codecs, 512L << 20);
        byte[] page = "a small page ".repeat(1000).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] oneShotZstd = com.github.luben.zstd.Zstd.compress(page, 3);
        // SNAPPY's length header, a zstd frame's content size, a streamed zstd frame's (parquet-mr's) block headers.
        for (CompressionCodecName codec : new CompressionCodecName[] {CompressionCodecName.SNAPPY, CompressionCodecName.ZSTD, CompressionCodecName.ZSTD}) {
            BytesInput compressed = codec == CompressionCodecName.ZSTD && oneShotZstd != null ? BytesInput.from(oneShotZstd) : compress(codecs, codec, page);
            if (codec == CompressionCodecName.ZSTD) {
                oneShotZstd = null;
            }
            long allocated = bounded.pageArrays().allocated();
            IOException refused = assertThrows(IOException.class, () -> bounded.getDecompressor(codec).decompress(compressed, 500_000_000));
            assertTrue(refused.getMessage().contains("500000000"), refused.getMessage());
            assertEquals(allocated, bounded.pageArrays().allocated(), codec + ": no page array was taken for the claim");
        }
    }

    @Test
    void gzipAndLz4ClaimsPastWhatTheirFormatsExpandToAreRefused()
            throws IOException
    {
        CompressionCodecFactory codecs = parquetMrCodecs();
        BoundedCodecFactory bounded = new BoundedCodecFactory(codecs, 512L << 20);
        byte[] page = "a page that compresses ".repeat(500).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (CompressionCodecName codec : new CompressionCodecName[] {CompressionCodecName.GZIP, CompressionCodecName.LZ4_RAW}) {
            BytesInput compressed = compress(codecs, codec, page);
            assertEquals(page.length, bounded.getDecompressor(codec).decompress(compressed, page.length).size(), codec.name());
            IOException refused = assertThrows(IOException.class, () -> bounded.getDecompressor(codec).decompress(compressed, 500_000_000));
            assertTrue(refused.getMessage().contains("cannot decompress to the 500000000 bytes its header claims"), refused.getMessage());
        }
    }

    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    void aZstdFrameWithoutItsContentSizeIsBoundedByItsBlockHeaders()
            throws IOException
    {
        CompressionCodecFactory codecs = parquetMrCodecs();
        BoundedCodecFactory bounded = new BoundedCodecFactory(codecs, 1 << 20);
        byte[] page = "streamed zstd ".repeat(300).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (com.github.luben.zstd.ZstdOutputStream stream = new com.github.luben.zstd.ZstdOutputStream(out)) {
            stream.write(page);
        }
        BytesInput frame = BytesInput.from(out.toByteArray());
        assertArrayEquals(page, bounded.getDecompressor(CompressionCodecName.ZSTD).decompress(frame, page.length).toByteArray());
        IOException longer = assertThrows(IOException.class, () -> bounded.getDecompressor(CompressionCodecName.ZSTD).decompress(frame, page.length + 1));
        assertTrue(longer.getMessage().contains("decompressed to " + page.length), longer.getMessage());
        // One compressed block regenerates at most 128 KiB: a claim past that is refused before an array is taken.
        long allocated = bounded.pageArrays().allocated();
        IOException past = assertThrows(IOException.class, () -> bounded.getDecompressor(CompressionCodecName.ZSTD).decompress(frame, 1 << 19));
        assertTrue(past.getMessage().contains("decompresses to at most 131072 bytes by its blocks' headers"), past.getMessage());
        assertEquals(allocated, bounded.pageArrays().allocated());
    }

    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteBuffer: the page's buffer
    void pagesOfTheOtherCodecsHaveExactlyTheirCapacity()
            throws IOException
    {
        CompressionCodecFactory codecs = parquetMrCodecs();
        BoundedCodecFactory bounded = new BoundedCodecFactory(codecs, 1 << 20);
        byte[] fetched = "page one|page two".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        // An uncompressed page served as a view of a larger fetched range.
        java.nio.ByteBuffer view = java.nio.ByteBuffer.wrap(fetched, 0, 8);
        java.nio.ByteBuffer page = bounded.getDecompressor(CompressionCodecName.UNCOMPRESSED).decompress(BytesInput.from(view), 8).toByteBuffer();
        assertEquals(8, page.capacity());
        byte[] gzip = "gzip page ".repeat(50).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.nio.ByteBuffer unzipped = bounded.getDecompressor(CompressionCodecName.GZIP).decompress(compress(codecs, CompressionCodecName.GZIP, gzip), gzip.length)
                .toByteBuffer();
        assertEquals(gzip.length, unzipped.capacity());
        assertArrayEquals(gzip, AbstractParquetDataSourceTest.bytes(unzipped));
    }

    private static CompressionCodecFactory parquetMrCodecs()
    {
        return HadoopReadOptions.builder(new Configuration()).build().getCodecFactory();
    }

    private static BytesInput compress(CompressionCodecFactory codecs, CompressionCodecName codec, byte[] page)
            throws IOException
    {
        return BytesInput.copy(codecs.getCompressor(codec).compress(BytesInput.from(page)));
    }
}
