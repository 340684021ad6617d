package dev.ferry.device.simulated;

import com.sun.nio.file.ExtendedOpenOption;
import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.cufile.DeviceFile;
import dev.ferry.device.cufile.ReadPath;
import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.host.PosixFileEngine;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.ChannelReadEngine;
import dev.ferry.device.spi.FileReadEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.Math.toIntExact;

/**
 * The simulated GPU's storage path: an O_DIRECT descriptor ({@link ExtendedOpenOption#DIRECT})
 * reading straight into the shared-memory arena, the analogue of cuFile DMA into device memory.
 * Where the filesystem refuses O_DIRECT (tmpfs, some overlays) the file is read through the page
 * cache instead, and the verdict says so.
 */
final class DirectFileEngine
        extends ChannelReadEngine
{
    static final AtomicLong POSIX_FALLBACKS = new AtomicLong();
    private static final Logger log = LoggerFactory.getLogger(DirectFileEngine.class);

    private DirectFileEngine(FileChannel channel, int alignment, ReadPathVerdict verdict)
    {
        super(channel, verdict, alignment);
    }

    static FileReadEngine open(Path path)
    {
        String filesystem = "unknown";
        try {
            FileStore store = Files.getFileStore(path);
            filesystem = store.type();
            int alignment = (int) Math.max(DeviceFile.DIRECT_IO_ALIGNMENT, store.getBlockSize());
            FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
            return new DirectFileEngine(channel, alignment, new ReadPathVerdict(ReadPath.TRUE_DIRECT,
                    "simulated GPU: O_DIRECT reads on " + filesystem + " land in simulated device memory without a page-cache copy"));
        }
        catch (NoSuchFileException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open file " + path + " for device reads: no such file", e);
        }
        catch (IOException | UnsupportedOperationException e) {
            POSIX_FALLBACKS.incrementAndGet();
            String reason = "O_DIRECT open refused on " + filesystem + " filesystem (" + e + "); reading through the page cache";
            log.info("Device reads of {} fall back to POSIX: {}", path, reason);
            try {
                return PosixFileEngine.open(path, new ReadPathVerdict(ReadPath.POSIX, reason));
            }
            catch (IOException posixFailure) {
                posixFailure.addSuppressed(e);
                throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open file " + path + " for device reads: " + posixFailure, posixFailure);
            }
        }
    }

    @Override
    public boolean isAligned(NativeMemory memory, long offset)
    {
        ByteBuffer buffer = ByteBufferMemory.of(memory).buffer();
        return offset <= buffer.capacity() && buffer.alignmentOffset(toIntExact(offset), alignment()) == 0;
    }

    @Override
    public long read(long fileOffset, long length, NativeMemory target, long targetOffset)
            throws IOException
    {
        return readInto(ByteBufferMemory.of(target).window(targetOffset, length), fileOffset);
    }
}
