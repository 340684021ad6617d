package dev.ferry.examples.bench.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * What this machine can do without Ferry, measured in the same run: a host memcpy (one direct
 * buffer into another, what a same-node route at best costs) and a loopback TCP stream through
 * plain sockets (what a cross-node route is compared with where there is no real fabric).
 */
final class Baselines
{
    private Baselines() {}

    /**
     * Best GB/s of {@code runs} host copies of {@code blocks} blocks of {@code blockBytes} each, as
     * the routes move them (same sizes, one thread), each followed by the reader's pass over its
     * copy ({@link BlockConsumer}), as the routes' fetches are. The targets are allocated once and
     * reused, so the copies run into warm pages: the best case for memcpy, which no route's fresh
     * buffers get.
     */
    static double memcpyGBps(int blocks, int blockBytes, int runs)
    {
        ByteBuffer source = ByteBuffer.allocateDirect(blocks * blockBytes);
        long sourceAddress = MemoryUtil.getByteBufferAddress(source);
        BlockConsumer.fill(sourceAddress, (long) blocks * blockBytes, 0);
        ByteBuffer[] targets = new ByteBuffer[blocks];
        for (int block = 0; block < blocks; block++) {
            targets[block] = ByteBuffer.allocateDirect(blockBytes);
        }
        long best = Long.MAX_VALUE;
        long checksum = 0;
        for (int run = 0; run <= runs; run++) {
            long start = System.nanoTime();
            for (int block = 0; block < blocks; block++) {
                long offset = (long) block * blockBytes;
                MemoryUtil.copyMemory(sourceAddress + offset, MemoryUtil.getByteBufferAddress(targets[block]), blockBytes);
                checksum += BlockConsumer.consume(MemoryUtil.getByteBufferAddress(targets[block]), blockBytes, offset);
            }
            long elapsed = System.nanoTime() - start;
            if (run > 0) {
                best = Math.min(best, elapsed);
            }
        }
        if (checksum == 42) {
            // Keeps the JIT from dropping the reads; never true for the pattern.
            System.out.print("");
        }
        return (long) blocks * blockBytes / (double) best;
    }

    /** Best GB/s of {@code runs} transfers of {@code bytes} over a loopback socket, 64 KiB writes and reads. */
    static double loopbackTcpGBps(int bytes, int runs)
            throws IOException, InterruptedException
    {
        long best = Long.MAX_VALUE;
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            for (int run = 0; run <= runs; run++) {
                Thread sender = new Thread(() -> {
                    byte[] chunk = new byte[64 * 1024];
                    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort()); OutputStream out = socket.getOutputStream()) {
                        socket.setTcpNoDelay(true);
                        for (long sent = 0; sent < bytes; sent += chunk.length) {
                            out.write(chunk, 0, (int) Math.min(chunk.length, bytes - sent));
                        }
                    }
                    catch (IOException e) {
                        throw new IllegalStateException("Loopback sender failed", e);
                    }
                }, "bench-loopback-sender");
                sender.start();
                try (Socket socket = listener.accept(); InputStream in = socket.getInputStream()) {
                    long start = System.nanoTime();
                    byte[] chunk = new byte[64 * 1024];
                    long received = 0;
                    int read;
                    while ((read = in.read(chunk)) >= 0) {
                        received += read;
                    }
                    long elapsed = System.nanoTime() - start;
                    if (received != bytes) {
                        throw new IOException("Loopback baseline received " + received + " of " + bytes + " bytes");
                    }
                    if (run > 0) {
                        best = Math.min(best, elapsed);
                    }
                }
                sender.join();
            }
        }
        return bytes / (double) best;
    }
}
