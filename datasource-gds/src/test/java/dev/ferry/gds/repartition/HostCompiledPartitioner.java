package dev.ferry.gds.repartition;

import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.partition.LaunchingPartitioner;
import dev.ferry.gds.decode.cuda.HostKernelServer;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code spark_partition.cu} itself, compiled for the host into a {@link HostKernelServer} and run
 * once per (block, thread) of the grids {@link LaunchingPartitioner} launches on a GPU. The buffers
 * are simulated device memory: each launch mirrors its buffer arguments into the server, runs, and
 * writes them back (test plumbing, read through the arena directly, so no runtime copy counter moves).
 */
final class HostCompiledPartitioner
        extends LaunchingPartitioner
        implements AutoCloseable
{
    private static final String NAME = "host_partition_kernels";
    private static final String DISPATCH = """
            if (kernel == "ferry_murmur3_seed") GRID(ferry_murmur3_seed((int) k[0], A(1, unsigned int*)))
            else if (kernel == "ferry_murmur3_fixed") GRID(ferry_murmur3_fixed(A(0, const unsigned char*), A(1, const unsigned char*), (int) k[2], (int) k[3], A(4, unsigned int*)))
            else if (kernel == "ferry_murmur3_bytes") GRID(ferry_murmur3_bytes(A(0, const int*), A(1, const unsigned char*), A(2, const unsigned char*), (int) k[3], A(4, unsigned int*)))
            else if (kernel == "ferry_partition_ids") GRID(ferry_partition_ids(A(0, const unsigned int*), (int) k[1], (int) k[2], A(3, int*)))
            else if (kernel == "ferry_partition_clear") GRID(ferry_partition_clear((int) k[0], A(1, unsigned int*)))
            else if (kernel == "ferry_partition_histogram") GRID(ferry_partition_histogram(A(0, const int*), (int) k[1], (int) k[2], (int) k[3], A(4, unsigned int*), A(5, unsigned int*)))
            else if (kernel == "ferry_partition_scan_chunks") GRID(ferry_partition_scan_chunks(A(0, unsigned int*), (int) k[1], (int) k[2], A(3, unsigned int*)))
            else if (kernel == "ferry_partition_starts") GRID(ferry_partition_starts(A(0, const unsigned int*), (int) k[1], A(2, int*)))
            else if (kernel == "ferry_partition_scatter") GRID(ferry_partition_scatter(A(0, const int*), (int) k[1], (int) k[2], (int) k[3], A(4, unsigned int*), A(5, const int*), A(6, int*)))
            else if (kernel == "ferry_partition_null_counts") GRID(ferry_partition_null_counts(A(0, const unsigned char*), A(1, const int*), (int) k[2], A(3, unsigned int*)))
            else if (kernel == "ferry_gather_fixed") GRID(ferry_gather_fixed(A(0, const unsigned char*), (int) k[1], A(2, const int*), (int) k[3], (int) k[4], A(5, unsigned char*)))
            else if (kernel == "ferry_gather_bits") GRID(ferry_gather_bits(A(0, const unsigned char*), A(1, const int*), (int) k[2], (int) k[3], A(4, unsigned char*)))
            else if (kernel == "ferry_gather_string_lengths") GRID(ferry_gather_string_lengths(A(0, const int*), A(1, const int*), (int) k[2], A(3, unsigned int*)))
            else if (kernel == "ferry_partition_sum_chunks") GRID(ferry_partition_sum_chunks(A(0, const unsigned int*), (int) k[1], (int) k[2], A(3, unsigned long long*)))
            else if (kernel == "ferry_partition_sum_starts") GRID(ferry_partition_sum_starts(A(0, unsigned long long*), (int) k[1]))
            else if (kernel == "ferry_partition_sum_write") GRID(ferry_partition_sum_write(A(0, const unsigned int*), (int) k[1], (int) k[2], A(3, const unsigned long long*), A(4, int*), A(5, unsigned int*)))
            else if (kernel == "ferry_partition_string_bounds") GRID(ferry_partition_string_bounds(A(0, const int*), A(1, const int*), (int) k[2], A(3, int*)))
            else if (kernel == "ferry_gather_string_offsets") GRID(ferry_gather_string_offsets(A(0, const int*), (int) k[1], (int) k[2], A(3, int*)))
            else if (kernel == "ferry_gather_string_bytes") GRID(ferry_gather_string_bytes(A(0, const int*), A(1, const unsigned char*), A(2, const int*), (int) k[3], (int) k[4], A(5, const int*), A(6, unsigned char*)))
            """;

    private final HostKernelServer server;
    private long launches;

    static Optional<Path> build(Path directory)
            throws IOException, InterruptedException, URISyntaxException
    {
        return HostKernelServer.build(directory, NAME, List.of("spark_partition.cu"), DISPATCH);
    }

    HostCompiledPartitioner()
    {
        server = new HostKernelServer(NAME);
    }

    @Override
    public String describe()
    {
        return "spark_partition.cu compiled for the host";
    }

    long launches()
    {
        return launches;
    }

    long allocatedBytes()
    {
        return server.allocatedBytes();
    }

    @Override
    protected void run(String kernel, int grid, int block, Object... arguments)
    {
        List<Object> values = new ArrayList<>();
        List<long[]> mirrors = new ArrayList<>();
        List<DeviceBuffer> buffers = new ArrayList<>();
        try {
            for (Object argument : arguments) {
                if (argument instanceof DeviceBuffer buffer) {
                    int length = Math.toIntExact(buffer.length());
                    long address = server.allocate(length);
                    mirrors.add(new long[] {address});
                    buffers.add(buffer);
                    byte[] bytes = new byte[length];
                    window(buffer).get(0, bytes);
                    server.upload(bytes, 0, length, address);
                    values.add(address);
                }
                else {
                    values.add(argument == null ? 0L : argument);
                }
            }
            server.launchGrid(kernel, grid, block, values.toArray());
            launches++;
            for (int i = 0; i < buffers.size(); i++) {
                int length = Math.toIntExact(buffers.get(i).length());
                byte[] bytes = new byte[length];
                server.download(mirrors.get(i)[0], bytes, 0, length);
                window(buffers.get(i)).put(0, bytes);
            }
        }
        finally {
            mirrors.forEach(mirror -> server.free(mirror[0]));
        }
    }

    private static ByteBuffer window(DeviceBuffer buffer)
    {
        return ByteBufferMemory.of(buffer.memory()).window(buffer.memoryOffset(), buffer.length());
    }

    @Override
    public void close()
    {
        server.close();
    }
}
