package dev.ferry.device.pool;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/** The disk tier's files. Failures are {@code FerryException}s naming the file. */
public interface SpillFileStore
{
    /** Writes all of {@code data}'s remaining bytes to a new file; on failure nothing is left behind. */
    Path write(String name, ByteBuffer data);

    /** Reads back exactly {@code length} bytes written to {@code file}. */
    ByteBuffer read(Path file, long length);

    void delete(Path file);

    long usedBytes();
}
