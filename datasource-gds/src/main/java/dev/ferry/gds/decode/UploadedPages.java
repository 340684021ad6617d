package dev.ferry.gds.decode;

import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.device.DeviceTarget;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A row group's pages where one column's decompressed pages are also copied into the target's
 * device memory as the decoder reads them, then dropped: the upload the {@code cuda} decoder makes
 * of a chunk it decodes (one host-to-device crossing per page byte, counted by the runtime), made on
 * the simulated backend too, so simulation counts the bytes hardware would carry. The decoder reads
 * the host copies it is handed; every other column reads the row group's own store.
 */
final class UploadedPages
        extends OneColumnReplacedPages
{
    private final DeviceTarget target;

    UploadedPages(PageReadStore store, ColumnDescriptor column, DeviceTarget target)
    {
        super(store, column);
        this.target = requireNonNull(target, "target is null");
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
            @Override
            public DictionaryPage readDictionaryPage()
            {
                DictionaryPage page = ReplayedPages.copy(raw.readDictionaryPage());
                if (page != null) {
                    upload(List.of(page.getBytes()));
                }
                return page;
            }

            @Override
            public long getTotalValueCount()
            {
                return raw.getTotalValueCount();
            }

            @Override
            public DataPage readPage()
            {
                DataPage read = raw.readPage();
                if (read == null) {
                    return null;
                }
                DataPage page = ReplayedPages.copy(read);
                if (page instanceof DataPageV1 v1) {
                    upload(List.of(v1.getBytes()));
                }
                else if (page instanceof DataPageV2 v2) {
                    upload(List.of(v2.getRepetitionLevels(), v2.getDefinitionLevels(), v2.getData()));
                }
                return page;
            }
        };
    }

    private void upload(List<BytesInput> parts)
    {
        long size = 0;
        for (BytesInput part : parts) {
            size += part.size();
        }
        if (size == 0) {
            return;
        }
        try (DeviceBuffer buffer = target.runtime().deviceAllocator(target.device()).allocate(size)) {
            long offset = 0;
            for (BytesInput part : parts) {
                ByteBuffer bytes = ByteBuffer.wrap(part.toByteArray());
                int length = bytes.remaining();
                target.stream().copyFromHost(bytes, buffer, offset);
                offset += length;
            }
            target.stream().synchronize();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
