package dev.ferry.gds.plan;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.gds.io.AbstractParquetDataSource;
import dev.ferry.gds.io.CorruptParquetException;
import dev.ferry.gds.io.DiskRange;
import dev.ferry.gds.io.PrefetchedRanges;
import dev.ferry.gds.io.SeamInputFile;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.SeekableInputStream;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Reads a footer through the seam: one tail read, which holds the whole footer unless it is larger than {@code tailBytes}. */
public final class FooterReader
{
    private FooterReader() {}

    public static ParquetMetadata read(AbstractParquetDataSource source, ParquetReadOptions options, int tailBytes, PrefetchedRanges prefetched)
            throws IOException
    {
        if (source.size() < 12) {
            throw new CorruptParquetException(source.id(), "file of " + source.size() + " bytes is too short to be Parquet (at least 12 bytes: magic, footer length, magic)");
        }
        ByteBuffer tail = source.readTail(tailBytes);
        prefetched.add(new DiskRange(source.size() - tail.remaining(), tail.remaining()), tail);
        SeamInputFile file = new SeamInputFile(source, prefetched);
        try (SeekableInputStream stream = file.newStream()) {
            return ParquetFileReader.readFooter(file, options, stream);
        }
        catch (ParquetCryptoRuntimeException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot read " + source.id() + ": it is encrypted and no decryption keys are configured ("
                    + describe(e) + ")", e);
        }
        catch (IOException | RuntimeException e) {
            throw new CorruptParquetException(source.id(), "cannot read the footer: " + describe(e), e);
        }
    }

    static String describe(Throwable error)
    {
        String message = error.getMessage();
        return error.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
