package dev.ferry.gds.decode;

import dev.ferry.gds.io.PageArrays;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static java.util.Objects.requireNonNull;

/**
 * A flat column chunk's pages, one at a time, from parquet-mr's page reader (which decompresses
 * them), as heap byte buffers the value loops index as arrays. The current data page's array goes
 * back to {@link PageArrays} when the next page is asked for: values are copied out, never
 * referenced, so it may hold the next page.
 */
final class PageSource
{
    private PageReader pages;
    private PageArrays pageArrays;
    private byte[] pageArray;

    /** Starts a chunk, giving back the previous chunk's last page if the reads stopped on its last value. */
    void start(PageReader pageReader, PageArrays arrays)
    {
        giveBack();
        this.pages = requireNonNull(pageReader, "pageReader is null");
        this.pageArrays = requireNonNull(arrays, "pageArrays is null");
    }

    /** The chunk's dictionary page, or null. */
    DictionaryPage dictionaryPage()
    {
        return pages.readDictionaryPage();
    }

    /** The next data page, or null at the end of the chunk; the previous page's array is given back. */
    DataPage next()
    {
        giveBack();
        return pages.readPage();
    }

    /** {@code bytes} as a little-endian heap buffer whose array is given back with the current page. */
    // BytesInput.toByteBuffer() is deprecated only for a variant with a releaser, which heap pages do not need.
    @SuppressWarnings("deprecation")
    ByteBuffer pageBytes(BytesInput bytes)
    {
        ByteBuffer buffer;
        try {
            buffer = heap(bytes.toByteBuffer()).order(ByteOrder.LITTLE_ENDIAN);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read a data page", e);
        }
        pageArray = buffer.array();
        return buffer;
    }

    // The loops index page bytes as an array; pages parquet-mr decompressed are heap buffers already.
    static ByteBuffer heap(ByteBuffer buffer)
    {
        if (buffer.hasArray()) {
            return buffer;
        }
        ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
        copy.put(buffer.duplicate());
        copy.flip();
        return copy;
    }

    private void giveBack()
    {
        if (pageArray != null) {
            pageArrays.giveBack(pageArray);
            pageArray = null;
        }
    }
}
