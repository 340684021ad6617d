package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * A GPU buffer the server exported for a same-node peer to open, with the fields of the device
 * module's {@code IpcHandle}: the backend that exported it, the exporter's pid (opening in the
 * exporting process is refused, as CUDA refuses it), the device, where the bytes start inside the
 * exported allocation and how many there are, the lease file importers hold, and the backend's
 * payload (the 64-byte CUDA handle; for the simulated backend its shared-memory file and offset).
 * Wire: string backend, long exporterPid, int device, long offset, long length, string leasePath,
 * bytes payload.
 */
public final class IpcLocation
        implements Location
{
    /** Longest backend name and lease path, in UTF-8 bytes. */
    public static final int MAX_TEXT_BYTES = 4096;
    /** Longest backend payload (a CUDA IPC handle is 64 bytes). */
    public static final int MAX_PAYLOAD_BYTES = 1024;

    private final String backend;
    private final long exporterPid;
    private final int device;
    private final long offset;
    private final long length;
    private final String leasePath;
    private final byte[] payload;

    public IpcLocation(String backend, long exporterPid, int device, long offset, long length, String leasePath, byte[] payload)
    {
        this.backend = requireNonNull(backend, "backend is null");
        this.exporterPid = exporterPid;
        this.device = device;
        this.offset = offset;
        this.length = length;
        this.leasePath = requireNonNull(leasePath, "leasePath is null");
        this.payload = requireNonNull(payload, "payload is null").clone();
        if (backend.isEmpty() || utf8(backend).length > MAX_TEXT_BYTES || utf8(leasePath).length > MAX_TEXT_BYTES || device < 0 || offset < 0 || length <= 0
                || payload.length > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("Malformed IPC location: backend of " + backend.length() + " characters, device " + device + ", offset " + offset
                    + ", length " + length + ", payload " + payload.length + " bytes");
        }
    }

    public String backend()
    {
        return backend;
    }

    public long exporterPid()
    {
        return exporterPid;
    }

    public int device()
    {
        return device;
    }

    public long offset()
    {
        return offset;
    }

    public long length()
    {
        return length;
    }

    public String leasePath()
    {
        return leasePath;
    }

    public byte[] payload()
    {
        return payload.clone();
    }

    @Override
    public Kind kind()
    {
        return Kind.IPC;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(backend) + Long.BYTES + Integer.BYTES + Long.BYTES + Long.BYTES + Encoding.encodedLength(leasePath)
                + Encoding.encodedLength(payload);
    }

    @Override
    public void encode(ByteBuffer target)
    {
        Encoding.writeString(target, backend);
        target.putLong(exporterPid);
        target.putInt(device);
        target.putLong(offset);
        target.putLong(length);
        Encoding.writeString(target, leasePath);
        Encoding.writeBytes(target, payload);
    }

    public static IpcLocation decode(ByteBuffer source)
    {
        String backend = Encoding.readString(source, MAX_TEXT_BYTES, "IPC backend");
        Encoding.need(source, Long.BYTES + Integer.BYTES + Long.BYTES + Long.BYTES, "IPC exporter, device and range");
        long exporterPid = source.getLong();
        int device = source.getInt();
        long offset = source.getLong();
        long length = source.getLong();
        String leasePath = Encoding.readString(source, MAX_TEXT_BYTES, "IPC lease path");
        byte[] payload = Encoding.readBytes(source, MAX_PAYLOAD_BYTES, "IPC payload");
        return new IpcLocation(backend, exporterPid, device, offset, length, leasePath, payload);
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof IpcLocation that && backend.equals(that.backend) && exporterPid == that.exporterPid && device == that.device && offset == that.offset
                && length == that.length && leasePath.equals(that.leasePath) && Arrays.equals(payload, that.payload);
    }

    @Override
    public int hashCode()
    {
        int hash = backend.hashCode();
        hash = 31 * hash + Long.hashCode(exporterPid);
        hash = 31 * hash + device;
        hash = 31 * hash + Long.hashCode(offset);
        hash = 31 * hash + Long.hashCode(length);
        hash = 31 * hash + leasePath.hashCode();
        return 31 * hash + Arrays.hashCode(payload);
    }

    @Override
    public String toString()
    {
        // The payload opens the exporter's memory: never logged.
        return "IpcLocation[backend=" + backend + ", exporterPid=" + exporterPid + ", device=" + device + ", offset=" + offset + ", length=" + length
                + ", payload=" + payload.length + " bytes]";
    }

    private static byte[] utf8(String value)
    {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
