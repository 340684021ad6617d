package dev.ferry.gds.decode.cuda;

import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One flat column chunk's pages (decompressed) laid end to end in one byte array, the single upload
 * the device decoder makes, with where each page's levels and values sit in it. Only the page
 * framing is read on the host (v1: the 4-byte length before the definition levels; v2: the header's
 * lengths; a dictionary-encoded page's leading bit-width byte); levels and values are decoded by
 * the kernels. {@link #refusal} says why a chunk stays on the CPU (BIT_PACKED levels, an encoding
 * the kernels do not read, PLAIN and dictionary data pages in one chunk).
 */
// Deprecated encodings (PLAIN_DICTIONARY, BIT_PACKED) still appear in files.
@SuppressWarnings("deprecation")
public final class ChunkPages
{
    /** Where one data page's parts sit in {@link #bytes}, and its value (row) count. */
    public record DataPageLayout(int index, int valueCount, int levelsOffset, int levelsLength, int valuesOffset, int valuesLength) {}

    private final byte[] bytes;
    private final int dictionaryOffset;
    private final int dictionaryLength;
    private final int dictionarySize;
    private final boolean dictionaryEncoded;
    private final List<DataPageLayout> pages;
    private final Optional<String> refusal;

    private ChunkPages(byte[] bytes, int dictionaryOffset, int dictionaryLength, int dictionarySize, boolean dictionaryEncoded, List<DataPageLayout> pages,
            Optional<String> refusal)
    {
        this.bytes = bytes;
        this.dictionaryOffset = dictionaryOffset;
        this.dictionaryLength = dictionaryLength;
        this.dictionarySize = dictionarySize;
        this.dictionaryEncoded = dictionaryEncoded;
        this.pages = List.copyOf(pages);
        this.refusal = refusal;
    }

    /**
     * Lays out {@code dictionary} (may be null) and {@code dataPages} of a flat column whose maximum
     * definition level is {@code maxDefinition} (0 or 1).
     */
    public static ChunkPages of(DictionaryPage dictionary, List<DataPage> dataPages, int maxDefinition)
    {
        requireNonNull(dataPages, "dataPages is null");
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        int dictionaryOffset = 0;
        int dictionaryLength = 0;
        int dictionarySize = 0;
        if (dictionary != null) {
            if (dictionary.getEncoding() != Encoding.PLAIN && dictionary.getEncoding() != Encoding.PLAIN_DICTIONARY) {
                return refused("dictionary page encoded " + dictionary.getEncoding());
            }
            byte[] page = bytes(() -> dictionary.getBytes().toByteArray());
            dictionaryOffset = all.size();
            dictionaryLength = page.length;
            dictionarySize = dictionary.getDictionarySize();
            all.writeBytes(page);
        }
        List<DataPageLayout> layouts = new ArrayList<>();
        Boolean dictionaryEncoded = null;
        for (DataPage page : dataPages) {
            Encoding values;
            int levelsOffset;
            int levelsLength;
            int valuesOffset;
            int valuesLength;
            if (page instanceof DataPageV1 v1) {
                values = v1.getValueEncoding();
                byte[] body = bytes(() -> v1.getBytes().toByteArray());
                int start = all.size();
                int levelBytes = 0;
                levelsLength = 0;
                if (maxDefinition > 0) {
                    if (v1.getDlEncoding() != Encoding.RLE) {
                        return refused("definition levels encoded " + v1.getDlEncoding());
                    }
                    if (body.length < 4) {
                        return refused("data page " + layouts.size() + " too short for its definition-level length");
                    }
                    levelsLength = (body[0] & 0xFF) | (body[1] & 0xFF) << 8 | (body[2] & 0xFF) << 16 | (body[3] & 0xFF) << 24;
                    if (levelsLength < 0 || levelsLength > body.length - 4) {
                        // The CPU decoder reports such a page with its offset; the device path does not guess.
                        return refused("data page " + layouts.size() + " definition levels of " + Integer.toUnsignedString(levelsLength)
                                + " bytes in a page of " + body.length);
                    }
                    levelBytes = 4 + levelsLength;
                }
                levelsOffset = start + (maxDefinition > 0 ? 4 : 0);
                valuesOffset = start + levelBytes;
                valuesLength = body.length - levelBytes;
                all.writeBytes(body);
            }
            else if (page instanceof DataPageV2 v2) {
                if (v2.isCompressed()) {
                    return refused("data page v2 still compressed");
                }
                values = v2.getDataEncoding();
                byte[] levels = bytes(() -> v2.getDefinitionLevels().toByteArray());
                byte[] data = bytes(() -> v2.getData().toByteArray());
                levelsOffset = all.size();
                levelsLength = levels.length;
                all.writeBytes(levels);
                valuesOffset = all.size();
                valuesLength = data.length;
                all.writeBytes(data);
            }
            else {
                return refused("data page of type " + page.getClass().getSimpleName());
            }
            boolean pageDictionary;
            if (values == Encoding.PLAIN) {
                pageDictionary = false;
            }
            else if (values == Encoding.PLAIN_DICTIONARY || values == Encoding.RLE_DICTIONARY) {
                pageDictionary = true;
                if (dictionary == null) {
                    return refused("dictionary-encoded data page without a dictionary page");
                }
            }
            else {
                return refused("data page encoding " + values);
            }
            if (dictionaryEncoded != null && dictionaryEncoded != pageDictionary) {
                return refused("dictionary and PLAIN data pages in one chunk");
            }
            dictionaryEncoded = pageDictionary;
            if (all.size() < 0) {
                return refused("column chunk over 2 GiB");
            }
            layouts.add(new DataPageLayout(layouts.size(), page.getValueCount(), levelsOffset, levelsLength, valuesOffset, valuesLength));
        }
        return new ChunkPages(all.toByteArray(), dictionaryOffset, dictionaryLength, dictionarySize, dictionaryEncoded != null && dictionaryEncoded, layouts,
                Optional.empty());
    }

    private static ChunkPages refused(String reason)
    {
        return new ChunkPages(new byte[0], 0, 0, 0, false, List.of(), Optional.of(reason));
    }

    private interface BytesSupplier
    {
        byte[] get()
                throws IOException;
    }

    private static byte[] bytes(BytesSupplier supplier)
    {
        try {
            return supplier.get();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Optional<String> refusal()
    {
        return refusal;
    }

    public byte[] bytes()
    {
        return bytes;
    }

    public int dictionaryOffset()
    {
        return dictionaryOffset;
    }

    public int dictionaryLength()
    {
        return dictionaryLength;
    }

    public int dictionarySize()
    {
        return dictionarySize;
    }

    public boolean dictionaryEncoded()
    {
        return dictionaryEncoded;
    }

    public List<DataPageLayout> pages()
    {
        return pages;
    }

    public long rowCount()
    {
        long rows = 0;
        for (DataPageLayout page : pages) {
            rows += page.valueCount();
        }
        return rows;
    }
}
