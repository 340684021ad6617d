package dev.ferry.gds.io;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Deferred decompression at the codec seam, for the device decoder. parquet-mr's page reader
 * decompresses each page inside {@code readPage()} through the reader's codec factory
 * ({@link BoundedCodecFactory}); while a {@link Window} is open (the device decoder reading one
 * column chunk's pages, on the reader's thread) the factory does not decompress a compressed body
 * but keeps a copy of its compressed bytes here and hands parquet-mr a body that decompresses on
 * the CPU only if someone reads it ({@link DeferredBody}). The device decoder takes the compressed
 * bytes ({@link Window#compressed}) for one host-to-device crossing and decompresses on the device;
 * a chunk it then refuses is read on the CPU through the deferred bodies, each decompressed once.
 *
 * <p>Which bodies parquet-mr hands the codec: a v1 page's whole body (levels and values), a
 * dictionary page's body, and a v2 page's data section when its {@code is_compressed} flag is set
 * (its levels are never compressed and never reach the codec). UNCOMPRESSED chunks never open a
 * deferred body. One capture belongs to one reader (one task); a window defers only the pages
 * decompressed on the thread that opened it, and is used by that thread alone.
 */
public final class CompressedPageCapture
{
    /** A page body as stored: its codec, compressed bytes and the size the page header says it decompresses to. */
    public record CompressedBody(CompressionCodecName codec, byte[] bytes, int uncompressedSize) {}

    /** How the factory decompresses a body on the CPU (bounded as for every other page). */
    interface CpuDecompression
    {
        BytesInput decompress(BytesInput compressed, int uncompressedSize)
                throws IOException;
    }

    private volatile Window open;
    private long deferred;
    private long decompressedOnCpu;

    /** Opens the window for one column chunk's pages; the caller closes it before the next chunk. */
    public Window open()
    {
        if (open != null) {
            throw new IllegalStateException("a page capture window is already open");
        }
        Window window = new Window(Thread.currentThread());
        open = window;
        return window;
    }

    // Only the thread that opened the window defers: pages another thread decompresses meanwhile (none in
    // one task's reader today) are decompressed at once as always.
    boolean capturing()
    {
        Window window = open;
        return window != null && window.owner == Thread.currentThread();
    }

    /** Bodies deferred so far (the device decoder took them or someone read them on the CPU). */
    public long deferredBodies()
    {
        return deferred;
    }

    /** Deferred bodies that were decompressed on the CPU after all (a chunk the device refused). */
    public long decompressedOnCpu()
    {
        return decompressedOnCpu;
    }

    BytesInput defer(CompressionCodecName codec, BytesInput compressed, int uncompressedSize, CpuDecompression cpu)
            throws IOException
    {
        Window window = open;
        if (window == null || window.owner != Thread.currentThread()) {
            throw new IllegalStateException("no page capture window is open on this thread");
        }
        // A copy: the reader's fetched range is released with the row group, the deferred body may be read later.
        CompressedBody body = new CompressedBody(codec, compressed.toByteArray(), uncompressedSize);
        BytesInput deferredBody = BytesInput.from(new DeferredBody(body, cpu), uncompressedSize);
        window.bodies.put(deferredBody, body);
        deferred++;
        return deferredBody;
    }

    /** The pages of one column chunk read while it was open. */
    public final class Window
            implements AutoCloseable
    {
        private final Map<BytesInput, CompressedBody> bodies = new IdentityHashMap<>();
        private final Thread owner;
        private boolean closed;

        private Window(Thread owner)
        {
            this.owner = owner;
        }

        /** The compressed form of {@code body} if it is a deferred body of this window, else empty (it was not compressed). */
        public Optional<CompressedBody> compressed(BytesInput body)
        {
            return Optional.ofNullable(bodies.get(body));
        }

        /** Stops deferring; bodies already deferred stay answerable by {@link #compressed}. */
        @Override
        public void close()
        {
            if (!closed) {
                closed = true;
                if (open == this) {
                    open = null;
                }
            }
        }
    }

    /**
     * The decompressed bytes of one deferred body, produced on the first read. parquet-mr reads a
     * stream body exactly once ({@code toByteArray} / {@code writeAllTo}); a second read finds the
     * stream at its end and fails loudly (an {@code EOFException}), so a body is never decompressed twice.
     */
    private final class DeferredBody
            extends InputStream
    {
        private final CompressedBody body;
        private final CpuDecompression cpu;
        private byte[] bytes;
        private int position;

        DeferredBody(CompressedBody body, CpuDecompression cpu)
        {
            this.body = requireNonNull(body, "body is null");
            this.cpu = requireNonNull(cpu, "cpu is null");
        }

        private byte[] bytes()
        {
            if (bytes == null) {
                try {
                    BytesInput decompressed = cpu.decompress(BytesInput.from(body.bytes()), body.uncompressedSize());
                    bytes = decompressed.toByteArray();
                }
                catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                decompressedOnCpu++;
            }
            return bytes;
        }

        @Override
        public int read()
        {
            byte[] all = bytes();
            return position < all.length ? all[position++] & 0xFF : -1;
        }

        @Override
        public int read(byte[] target, int offset, int length)
        {
            byte[] all = bytes();
            if (length == 0) {
                return 0;
            }
            if (position >= all.length) {
                return -1;
            }
            int count = Math.min(length, all.length - position);
            System.arraycopy(all, position, target, offset, count);
            position += count;
            return count;
        }

        @Override
        public int available()
        {
            return bytes == null ? 0 : bytes.length - position;
        }
    }
}
