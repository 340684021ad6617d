package dev.ferry.shuffle.transport.tcp;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;

import dev.ferry.transport.protocol.FrameCodec;
import dev.ferry.transport.protocol.Message;
import dev.ferry.transport.protocol.MessageChannel;

import static java.util.Objects.requireNonNull;

/**
 * The transport building blocks' {@link MessageChannel} over the very streams the shuffle protocol
 * continues on, for the authentication handshake before the first shuffle frame: nothing the peer
 * sends after its last handshake message can be buffered away from the shuffle reader. Restores
 * the socket's read timeout after each receive. Closing it closes nothing (the connection's owner does).
 */
final class StreamMessageChannel
        implements MessageChannel
{
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final long maxFrameBytes;
    private final String peer;

    StreamMessageChannel(Socket socket, InputStream in, OutputStream out, long maxFrameBytes)
    {
        this.socket = requireNonNull(socket, "socket is null");
        this.in = new DataInputStream(requireNonNull(in, "in is null"));
        this.out = requireNonNull(out, "out is null");
        this.maxFrameBytes = maxFrameBytes;
        this.peer = String.valueOf(socket.getRemoteSocketAddress());
    }

    @Override
    public String peer()
    {
        return peer;
    }

    @Override
    public void send(Message message)
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
        int previous = socket.getSoTimeout();
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
        finally {
            socket.setSoTimeout(previous);
        }
    }

    @Override
    public void close()
    {
    }
}
