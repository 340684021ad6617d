package dev.ferry.gds.footer;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.gds.io.DiskRange;
import dev.ferry.gds.io.ParquetDataSource;
import dev.ferry.gds.io.PrefetchedRanges;
import dev.ferry.gds.io.SeamInputFile;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.SeekableInputStream;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.OptionalLong;

/**
 * Reads a footer through the seam: one tail read, which holds the whole footer unless it is larger
 * than {@code tailBytes}. The footer is validated ({@link FooterValidator}) before anyone sees it.
 */
public final class FooterReader
{
    private static final int TRAILER_BYTES = 8;
    private static final int PLAINTEXT_MAGIC = 0x31524150; // "PAR1", little-endian

    private FooterReader() {}

    public static ParquetMetadata read(ParquetDataSource source, ParquetReadOptions options, int tailBytes, PrefetchedRanges prefetched)
            throws IOException
    {
        if (source.size() < 12) {
            throw new CorruptParquetException(source.id(), "file of " + source.size() + " bytes is too short to be Parquet (at least 12 bytes: magic, footer length, magic)");
        }
        ByteBuffer tail = source.readTail(tailBytes);
        prefetched.add(new DiskRange(source.size() - tail.remaining(), tail.remaining()), tail);
        SeamInputFile file = new SeamInputFile(source, prefetched);
        ParquetMetadata footer;
        OptionalLong fileRows;
        long footerStart;
        try (SeekableInputStream stream = file.newStream()) {
            footer = ParquetFileReader.readFooter(file, options, stream);
            ByteBuffer trailer = tail.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            trailer.position(trailer.limit() - TRAILER_BYTES);
            long footerLength = trailer.getInt() & 0xFFFFFFFFL;
            footerStart = source.size() - TRAILER_BYTES - footerLength;
            fileRows = trailer.getInt() == PLAINTEXT_MAGIC ? OptionalLong.of(fileRows(stream, footerStart)) : OptionalLong.empty();
        }
        catch (ParquetCryptoRuntimeException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot read " + source.id() + ": it is encrypted and no decryption keys are configured ("
                    + describe(e) + ")", e);
        }
        catch (IOException | RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot read the footer: " + describe(e), e);
        }
        FooterValidator.validate(source.id(), footer, footerStart, fileRows);
        return footer;
    }

    // The footer's own num_rows, which parquet-mr's metadata drops; the row groups are skipped, not parsed a second time.
    private static long fileRows(SeekableInputStream stream, long footerStart)
            throws IOException
    {
        stream.seek(footerStart);
        FileMetaData metadata = Util.readFileMetaData((InputStream) stream, true);
        return metadata.getNum_rows();
    }

    static String describe(Throwable error)
    {
        String message = error.getMessage();
        return error.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
