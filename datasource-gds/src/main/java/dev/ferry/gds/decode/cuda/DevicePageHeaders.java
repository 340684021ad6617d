package dev.ferry.gds.decode.cuda;

import java.util.List;

/**
 * The page headers of column chunks that sit in the kernels' memory, walked on the device: one
 * launch for the chunks of a row group, the descriptors read back (the only bytes that cross to the
 * host: framing, counted), never the page bodies.
 */
public final class DevicePageHeaders
{
    /** One chunk to walk: {@code length} stored bytes at {@code address}, which the file holds from {@code fileOffset}; its data pages must hold {@code valueCount} values. */
    public record Chunk(String column, long fileOffset, long address, long length, long valueCount) {}

    /** One chunk's pages in file order (index pages left out), and the bytes read back to describe them. */
    public record Walked(List<PageDescriptor> pages, long framingBytes) {}

    private DevicePageHeaders() {}

    /**
     * Walks every chunk's page headers in one launch ({@code parquet_headers.cu}); a header that is
     * malformed, runs past its chunk, or pages whose value counts do not add up to the chunk's are a
     * {@code CorruptParquetException} naming {@code file}, the column and the file offset of the page.
     * Each page's uncompressed size is at most {@code maxPageBytes}.
     */
    public static List<Walked> walk(DecodeKernels kernels, String file, List<Chunk> chunks, long maxPageBytes)
    {
        throw new UnsupportedOperationException("contract only: parquet_headers.cu and its walk are on the hdr branch");
    }
}
