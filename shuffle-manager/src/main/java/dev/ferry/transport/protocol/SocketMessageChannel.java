package dev.ferry.transport.protocol;

import dev.ferry.conf.ConfigSource;
import dev.ferry.transport.TransportConfigKeys;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * A {@link MessageChannel} over a blocking socket. Sends and receives may run on different threads;
 * two senders (or two receivers) must not. Malformed input fails the receive with the peer named.
 */
public final class SocketMessageChannel
        implements MessageChannel
{
    private final Socket socket;
    private final String peer;
    private final long maxFrameBytes;
    private final DataInputStream in;
    private final OutputStream out;

    public SocketMessageChannel(Socket socket, long maxFrameBytes)
            throws IOException
    {
        this.socket = requireNonNull(socket, "socket is null");
        this.peer = String.valueOf(socket.getRemoteSocketAddress());
        this.maxFrameBytes = maxFrameBytes;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new BufferedOutputStream(socket.getOutputStream());
        socket.setTcpNoDelay(true);
    }

    /** A channel with the frame limit {@code spark.ferry.transport.maxFrameBytes}. */
    public static SocketMessageChannel fromConfig(Socket socket, ConfigSource config)
            throws IOException
    {
        return new SocketMessageChannel(socket, TransportConfigKeys.MAX_FRAME_BYTES.get(config));
    }

    @Override
    public String peer()
    {
        return peer;
    }

    @Override
    public synchronized void send(Message message)
            throws IOException
    {
        ByteBuffer frame = FrameCodec.encode(message);
        out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
        out.flush();
    }

    @Override
    public Message receive(Duration timeout)
            throws IOException
    {
        socket.setSoTimeout(Math.toIntExact(Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()))));
        try {
            int frameLength = in.readInt();
            FrameCodec.checkFrameLength(frameLength, maxFrameBytes);
            byte[] frame = new byte[frameLength];
            in.readFully(frame);
            return FrameCodec.decodeFrameBody(ByteBuffer.wrap(frame));
        }
        catch (SocketTimeoutException e) {
            throw new IOException("No message from " + peer + " within " + timeout.toMillis() + " ms", e);
        }
        catch (EOFException e) {
            throw new IOException("Connection from " + peer + " closed", e);
        }
        catch (IllegalArgumentException e) {
            throw new IOException("Malformed message from " + peer + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close()
            throws IOException
    {
        socket.close();
    }
}
