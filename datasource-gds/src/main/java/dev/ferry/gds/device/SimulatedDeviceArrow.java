package dev.ferry.gds.device;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.simulated.SimulatedBackend;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.BufferLedger;
import org.apache.arrow.memory.ReferenceManager;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.types.DataType;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * An Arrow allocator whose buffers are simulated device memory: each Arrow allocation is a buffer
 * from the target device's allocator (the simulated backend's shared-memory arena), addressed
 * through the mapping the backend keeps of it. A CPU decoder handed this allocator writes its
 * decoded values straight into (simulated) device memory, with no host buffer and no copy in
 * between: on the simulated backend this is the device decoder's output path, the stand-in for
 * kernels writing device memory. {@link #column} then turns a decoded vector into a
 * {@link DeviceColumn} over the same bytes (new handles, no copy).
 *
 * <p>Only the simulated backend's device memory is host-addressable; any other backend is refused
 * (CUDA device memory is written by kernels, the host backend has no device memory).
 */
public final class SimulatedDeviceArrow
        implements AutoCloseable
{
    private final BufferAllocator allocator;

    public SimulatedDeviceArrow(DeviceTarget target)
    {
        requireNonNull(target, "target is null");
        if (!isSimulated(target.runtime())) {
            throw new IllegalArgumentException("Arrow buffers in device memory are host-addressable on the simulated backend only, not on '"
                    + target.runtime().backendName() + "'");
        }
        dev.ferry.device.memory.BufferAllocator device = target.runtime().deviceAllocator(target.device());
        AllocationManager.Factory factory = new AllocationManager.Factory()
        {
            @Override
            public AllocationManager create(BufferAllocator accounting, long size)
            {
                DeviceBuffer buffer = device.allocate(size);
                try {
                    return new DeviceAllocation(accounting, buffer);
                }
                catch (RuntimeException e) {
                    buffer.close();
                    throw e;
                }
            }

            @Override
            public ArrowBuf empty()
            {
                return new ArrowBuf(ReferenceManager.NO_OP, null, 0, 0);
            }
        };
        this.allocator = new RootAllocator(RootAllocator.configBuilder().allocationManagerFactory(factory).maxAllocation(Long.MAX_VALUE).build());
    }

    /**
     * The bytes of {@code buffer}, a buffer of the simulated backend's device memory, as a host view:
     * what a kernel reads and writes on the simulated backend (no copy, not a crossing).
     */
    public static ByteBuffer view(DeviceBuffer buffer)
    {
        ByteBuffer mapping = ByteBufferMemory.of(buffer.memory()).buffer().duplicate();
        long offset = buffer.memoryOffset();
        mapping.position(Math.toIntExact(offset)).limit(Math.toIntExact(offset + buffer.length()));
        return mapping.slice();
    }

    public static boolean isSimulated(DeviceRuntime runtime)
    {
        return SimulatedBackend.NAME.equals(runtime.backendName());
    }

    /** The Arrow allocator to decode into: every buffer it hands out lies in the target's (simulated) device memory. */
    public BufferAllocator allocator()
    {
        return allocator;
    }

    /**
     * A device column over the buffers of {@code vector}, which was allocated from {@link #allocator()}:
     * each of its buffers (validity, offsets, values) becomes a new handle on the device bytes it was
     * written into. The column holds its own references; the caller closes {@code vector} afterwards.
     */
    public DeviceColumn column(FieldVector vector, DataType type, DeviceTarget target)
    {
        return ArrowDeviceUpload.column(vector, type, (index, source, length) -> {
            if (source.getReferenceManager() instanceof BufferLedger ledger && ledger.getAllocationManager() instanceof DeviceAllocation allocation) {
                long offset = source.memoryAddress() - allocation.address;
                return allocation.buffer.slice(offset, Math.max(length, source.capacity()));
            }
            if (length == 0) {
                // Arrow's empty buffer (a vector of no rows): still a device allocation, as an upload makes.
                return target.runtime().deviceAllocator(target.device()).allocate(8);
            }
            throw new IllegalStateException("buffer " + index + " of column " + vector.getName() + " is not in simulated device memory: "
                    + "the vector was not allocated from this allocator");
        });
    }

    /** Closes the Arrow allocator; device columns made by {@link #column} keep their bytes until they are closed. */
    @Override
    public void close()
    {
        allocator.close();
    }

    /** One Arrow allocation: a device buffer of the simulated backend and the host address of its mapping. */
    private static final class DeviceAllocation
            extends AllocationManager
    {
        private final DeviceBuffer buffer;
        private final long address;

        DeviceAllocation(BufferAllocator accounting, DeviceBuffer buffer)
        {
            super(accounting);
            this.buffer = buffer;
            ByteBuffer mapping = ByteBufferMemory.of(buffer.memory()).buffer();
            this.address = MemoryUtil.getByteBufferAddress(mapping) + buffer.memoryOffset();
        }

        @Override
        public long getSize()
        {
            return buffer.length();
        }

        @Override
        protected long memoryAddress()
        {
            return address;
        }

        @Override
        protected void release0()
        {
            buffer.close();
        }
    }
}
