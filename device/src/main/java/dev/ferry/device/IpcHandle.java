package dev.ferry.device;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Base64;

import static java.util.Objects.requireNonNull;

/**
 * A serializable name for a device buffer exported by one process, for another process on the same
 * host to open: the analogue of {@code cudaIpcMemHandle_t} plus what Ferry adds around it (the
 * exporter's pid, so opening in the exporting process is refused as CUDA refuses it, and the lease
 * file through which importers keep the memory alive until they close).
 *
 * <p>{@link #toBytes()} / {@link #fromBytes(byte[])} give a versioned wire form; the
 * {@code payload} is backend-specific (a shared-memory file and offset for the simulated
 * backend, the 64-byte CUDA handle for the CUDA backend).
 */
public final class IpcHandle
        implements Serializable
{
    private static final long serialVersionUID = 1L;
    private static final int MAGIC = 0x46495043; // "FIPC"
    private static final int VERSION = 1;
    private static final int MAX_PAYLOAD = 4096;

    private final String backend;
    private final long exporterPid;
    private final int device;
    private final long offset;
    private final long length;
    private final String leasePath;
    private final byte[] payload;

    public IpcHandle(String backend, long exporterPid, int device, long offset, long length, String leasePath, byte[] payload)
    {
        this.backend = requireNonNull(backend, "backend is null");
        this.exporterPid = exporterPid;
        this.device = device;
        this.offset = offset;
        this.length = length;
        this.leasePath = requireNonNull(leasePath, "leasePath is null");
        this.payload = requireNonNull(payload, "payload is null").clone();
        if (device < 0 || offset < 0 || length <= 0 || payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("Malformed IPC handle: device " + device + ", offset " + offset + ", length " + length + ", payload " + payload.length + " bytes");
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

    /** Where the exported bytes start inside the exported allocation. */
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

    public byte[] toBytes()
    {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(backend);
            out.writeLong(exporterPid);
            out.writeInt(device);
            out.writeLong(offset);
            out.writeLong(length);
            out.writeUTF(leasePath);
            out.writeInt(payload.length);
            out.write(payload);
            out.flush();
            return bytes.toByteArray();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Decodes {@link #toBytes()}; anything malformed is a clear error, never a partial handle. */
    public static IpcHandle fromBytes(byte[] bytes)
    {
        requireNonNull(bytes, "bytes is null");
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            if (in.readInt() != MAGIC) {
                throw malformed("bad magic", null);
            }
            int version = in.readInt();
            if (version != VERSION) {
                throw malformed("unsupported version " + version, null);
            }
            String backend = in.readUTF();
            long pid = in.readLong();
            int device = in.readInt();
            long offset = in.readLong();
            long length = in.readLong();
            String leasePath = in.readUTF();
            int payloadLength = in.readInt();
            if (payloadLength < 0 || payloadLength > MAX_PAYLOAD) {
                throw malformed("payload length " + payloadLength, null);
            }
            byte[] payload = in.readNBytes(payloadLength);
            if (payload.length != payloadLength || in.available() != 0) {
                throw malformed("truncated or trailing bytes", null);
            }
            return new IpcHandle(backend, pid, device, offset, length, leasePath, payload);
        }
        catch (IOException | IllegalArgumentException e) {
            throw malformed(e.getMessage(), e);
        }
    }

    public String toBase64()
    {
        return Base64.getEncoder().encodeToString(toBytes());
    }

    public static IpcHandle fromBase64(String text)
    {
        try {
            return fromBytes(Base64.getDecoder().decode(requireNonNull(text, "text is null")));
        }
        catch (IllegalArgumentException e) {
            throw malformed("not base64: " + e.getMessage(), e);
        }
    }

    private static FerryException malformed(String why, Throwable cause)
    {
        return new FerryException(ErrorCategory.USER_ERROR, "Malformed IPC handle: " + why, cause);
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof IpcHandle && Arrays.equals(toBytes(), ((IpcHandle) other).toBytes());
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(toBytes());
    }

    @Override
    public String toString()
    {
        return "IPC handle (" + backend + ", exporter pid " + exporterPid + ", device " + device + ", offset " + offset + ", " + length + " bytes)";
    }
}
