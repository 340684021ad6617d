package dev.ferry.gds.read;

import dev.ferry.gds.decode.PageChecks;
import dev.ferry.gds.io.SeamInputFile;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.io.SeekableInputStream;

import java.io.IOException;

import static java.util.Objects.requireNonNull;

/**
 * Where a column chunk's N-th data page starts in the file, for error messages only: parquet-mr's
 * pages do not carry their offsets, so on an error the chunk's page headers are walked again from the
 * chunk's start (from the fetched ranges, which still hold the row group). Nothing is read on the
 * happy path.
 */
final class PageOffsets
        implements PageChecks.PageLocator
{
    private final SeamInputFile file;

    PageOffsets(SeamInputFile file)
    {
        this.file = requireNonNull(file, "file is null");
    }

    @Override
    public long dataPageOffset(long chunkStart, long chunkSize, int dataPage)
    {
        try (SeekableInputStream stream = file.newStream()) {
            stream.seek(chunkStart);
            int seen = 0;
            while (stream.getPos() < chunkStart + chunkSize) {
                long at = stream.getPos();
                PageHeader header = Util.readPageHeader(stream);
                if ((header.getType() == PageType.DATA_PAGE || header.getType() == PageType.DATA_PAGE_V2) && ++seen == dataPage) {
                    return at;
                }
                stream.seek(stream.getPos() + header.getCompressed_page_size());
            }
            return -1;
        }
        catch (IOException | RuntimeException e) {
            // The headers that led to the error may be the damage itself: the message goes without the offset.
            return -1;
        }
    }
}
