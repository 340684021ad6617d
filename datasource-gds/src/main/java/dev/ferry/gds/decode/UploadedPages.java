package dev.ferry.gds.decode;

import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.decode.cuda.HostPageDecompression;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.device.SimulatedDeviceArrow;
import dev.ferry.gds.io.CompressedPageCapture;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.compression.CompressionCodecFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * A row group's pages where one column's page bodies are uploaded into the target's device memory
 * as the decoder reads them: the upload the {@code cuda} decoder makes of a chunk it decodes (one
 * host-to-device crossing per stored byte, counted by the runtime), made on the simulated backend
 * too, so simulation counts the bytes hardware would carry. With the reader's codec seam
 * ({@link CompressedPageCapture}) a compressed body crosses compressed and is decompressed where
 * nvCOMP would decompress it, from (simulated) device memory into device memory, by the CPU; the
 * decoder then reads the decompressed body out of device memory, as the kernels would. The CPU
 * never decompresses such a body on the host side. Without the seam (or for bodies that were never
 * compressed) the bodies are uploaded as they are. Every other column reads the row group's own store.
 */
final class UploadedPages
        extends OneColumnReplacedPages
{
    private final DeviceTarget target;
    private final Optional<CompressedPageCapture> capture;
    private final String file;
    private final String columnName;
    private final Supplier<CompressionCodecFactory> codecs;

    /** {@code codecs}: the CPU codecs standing in for nvCOMP, owned by the caller. */
    UploadedPages(PageReadStore store, ColumnDescriptor column, DeviceTarget target, Optional<CompressedPageCapture> capture, String file,
            Supplier<CompressionCodecFactory> codecs)
    {
        super(store, column);
        this.codecs = requireNonNull(codecs, "codecs is null");
        this.target = requireNonNull(target, "target is null");
        this.capture = requireNonNull(capture, "capture is null");
        this.file = requireNonNull(file, "file is null");
        this.columnName = String.join(".", column.getPath());
    }

    @Override
    PageReader columnPages()
    {
        PageReader raw = store.getPageReader(column);
        if (raw == null) {
            return null;
        }
        return new PageReader()
        {
            private int dataPages;

            @Override
            public DictionaryPage readDictionaryPage()
            {
                Read<DictionaryPage> read = read(raw::readDictionaryPage);
                DictionaryPage page = read.page();
                if (page == null) {
                    return null;
                }
                return new DictionaryPage(body(read.window(), page.getBytes(), "the dictionary page"), page.getUncompressedSize(), page.getDictionarySize(),
                        page.getEncoding());
            }

            @Override
            public long getTotalValueCount()
            {
                return raw.getTotalValueCount();
            }

            @Override
            public DataPage readPage()
            {
                Read<DataPage> read = read(raw::readPage);
                DataPage page = read.page();
                if (page == null) {
                    return null;
                }
                String name = "data page " + dataPages++;
                if (page instanceof DataPageV1 v1) {
                    return new DataPageV1(body(read.window(), v1.getBytes(), name), v1.getValueCount(), v1.getUncompressedSize(), v1.getStatistics(),
                            v1.getRlEncoding(), v1.getDlEncoding(), v1.getValueEncoding());
                }
                if (page instanceof DataPageV2 v2 && !v2.isCompressed()) {
                    BytesInput repetition = body(read.window(), v2.getRepetitionLevels(), name);
                    BytesInput definition = body(read.window(), v2.getDefinitionLevels(), name);
                    BytesInput data = body(read.window(), v2.getData(), name);
                    return DataPageV2.uncompressed(v2.getRowCount(), v2.getNullCount(), v2.getValueCount(), repetition, definition, v2.getDataEncoding(), data,
                            v2.getStatistics());
                }
                throw new IllegalStateException("cannot upload a " + page);
            }
        };
    }

    private record Read<P>(P page, Optional<CompressedPageCapture.Window> window) {}

    // The page read with the codec seam deferring its bodies' decompression (when the reader has the seam).
    private <P> Read<P> read(Supplier<P> next)
    {
        if (capture.isEmpty()) {
            return new Read<>(next.get(), Optional.empty());
        }
        CompressedPageCapture.Window window = capture.get().open();
        try {
            return new Read<>(next.get(), Optional.of(window));
        }
        finally {
            window.close();
        }
    }

    /** {@code body} uploaded as stored; a compressed one decompressed in device memory. Returns the bytes the decoder reads. */
    private BytesInput body(Optional<CompressedPageCapture.Window> window, BytesInput body, String page)
    {
        Optional<CompressedPageCapture.CompressedBody> compressed = window.flatMap(open -> open.compressed(body));
        try {
            if (compressed.isEmpty()) {
                byte[] bytes = body.toByteArray();
                upload(bytes).close();
                return BytesInput.from(bytes);
            }
            CompressedPageCapture.CompressedBody stored = compressed.get();
            try (DeviceBuffer uploaded = upload(stored.bytes());
                    DeviceBuffer decoded = target.runtime().deviceAllocator(target.device()).allocate(Math.max(1, stored.uncompressedSize()))) {
                // nvCOMP's part, by the CPU: from device memory (the uploaded body) into device memory.
                byte[] input = new byte[stored.bytes().length];
                SimulatedDeviceArrow.view(uploaded).get(input);
                byte[] output = HostPageDecompression.decompress(codecs.get(), stored.codec(), input, stored.uncompressedSize());
                SimulatedDeviceArrow.view(decoded).put(output);
                // The decoder reads the decoded body where the kernels would, in device memory.
                byte[] read = new byte[stored.uncompressedSize()];
                SimulatedDeviceArrow.view(decoded).get(read);
                return BytesInput.from(read);
            }
        }
        catch (IOException e) {
            throw new CorruptParquetException(file, "column " + columnName + ": " + page + " does not decompress (simulated device decompression): " + e.getMessage(), e);
        }
    }

    private DeviceBuffer upload(byte[] bytes)
    {
        DeviceBuffer buffer = target.runtime().deviceAllocator(target.device()).allocate(Math.max(1, bytes.length));
        boolean success = false;
        try {
            if (bytes.length > 0) {
                target.stream().copyFromHost(ByteBuffer.wrap(bytes), buffer, 0);
                target.stream().synchronize();
            }
            success = true;
            return buffer;
        }
        finally {
            if (!success) {
                buffer.close();
            }
        }
    }
}
