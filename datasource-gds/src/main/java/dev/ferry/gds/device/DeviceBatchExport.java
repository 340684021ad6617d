package dev.ferry.gds.device;

import dev.ferry.device.DeviceMemoryExport;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import org.apache.arrow.memory.util.MemoryUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_BUFFERS;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_CHILDREN;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_LENGTH;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_NULL_COUNT;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_N_BUFFERS;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_N_CHILDREN;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_SIZE;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARROW_DEVICE_CPU;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARROW_DEVICE_CUDA;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.DEVICE_ARRAY_SIZE;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.DEVICE_ID;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.DEVICE_TYPE;
import static java.util.Objects.requireNonNull;

/**
 * Hands a {@link DeviceBatch} to a consumer as an {@code ArrowDeviceArray}: a struct-typed parent
 * array with one child per column, built in native memory.
 * <ul>
 * <li>On the {@code cuda} backend the buffer pointers are the columns' device addresses
 * ({@code ARROW_DEVICE_CUDA}, {@code device_id} the GPU ordinal): the batch never leaves the GPU.</li>
 * <li>Elsewhere no device address can be lent ({@link DeviceRuntime#exportForRdma} is the runtime's only
 * way to one, and only cuda memory has one): the columns are copied back to host memory and handed over as
 * {@code ARROW_DEVICE_CPU}. The reason is logged once per JVM and every such batch is counted
 * ({@link #hostFallbacks()}).</li>
 * </ul>
 * The parent and every child carry a real {@code release} callback ({@link ReleaseCallbacks}): a
 * consumer that is done calls {@code array->release(array)}, from any thread, which frees the
 * children, the host copies and the device address leases and sets {@code release} to NULL, as the
 * C Data Interface specifies. The parent struct itself stays this object's until {@link #close()},
 * which calls {@code release} first if no consumer did. Where the release callback cannot be
 * installed (see {@link ReleaseCallbacks#unavailableReason()}), export is refused with the reason.
 */
public final class DeviceBatchExport
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(DeviceBatchExport.class);
    private static final AtomicLong HOST_FALLBACKS = new AtomicLong();
    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();

    /** Freed by the release callback: children, pointer arrays, host copies. */
    private final List<Long> nativeAllocations = new ArrayList<>();
    private final List<DeviceMemoryExport> leases = new ArrayList<>();
    /** The parent struct: freed only by {@link #close()}, after its release callback has run. */
    private long parentStruct;
    private boolean dataReleased;
    private final long address;
    private final int deviceType;
    private final long deviceId;
    private final String reason;
    private boolean closed;

    private DeviceBatchExport(DeviceRuntime runtime, DeviceBatch batch, boolean verificationCopy)
    {
        boolean cuda = !verificationCopy && "cuda".equals(runtime.backendName());
        String why = verificationCopy ? "verification copy: the columns copied back from '" + runtime.backendName() + "' device memory to host memory"
                + " through the device runtime (D->H), for a check; not the consumer's path"
                : cuda ? "cuda backend: columns stay in GPU memory, buffer pointers are device addresses"
                : "backend '" + runtime.backendName() + "' lends no device address for its memory (only cuda device memory has one), so the columns were copied"
                        + " back to host memory and handed over as ARROW_DEVICE_CPU";
        boolean success = false;
        try {
            List<Long> pointers = new ArrayList<>();
            if (cuda) {
                try {
                    for (DeviceColumn column : batch.columns()) {
                        for (DeviceBuffer buffer : column.buffers()) {
                            DeviceMemoryExport lease = runtime.exportForRdma(buffer);
                            leases.add(lease);
                            pointers.add(lease.address());
                        }
                    }
                }
                catch (RuntimeException e) {
                    closeLeases();
                    pointers.clear();
                    cuda = false;
                    why = "cuda backend refused a device address (" + e.getMessage() + "), so the columns were copied back to host memory";
                }
            }
            if (verificationCopy) {
                pointers.addAll(hostCopies(runtime, batch));
            }
            else if (!cuda) {
                pointers.addAll(hostCopies(runtime, batch));
                HOST_FALLBACKS.incrementAndGet();
                if (FALLBACK_LOGGED.compareAndSet(false, true)) {
                    log.warn("gds device batches: {} (logged once; counted per batch in DeviceBatchExport.hostFallbacks())", why);
                }
            }
            this.deviceType = cuda ? ARROW_DEVICE_CUDA : ARROW_DEVICE_CPU;
            this.deviceId = cuda ? batch.device() : -1;
            this.reason = why;
            this.address = structs(batch, pointers);
            installReleaseCallbacks(batch.columns().size());
            success = true;
        }
        finally {
            if (!success) {
                close();
            }
        }
    }

    public static DeviceBatchExport export(DeviceRuntime runtime, DeviceBatch batch)
    {
        requireNonNull(runtime, "runtime is null");
        requireNonNull(batch, "batch is null");
        String unavailable = ReleaseCallbacks.unavailableReason();
        if (unavailable != null) {
            throw new UnsupportedOperationException("Cannot hand the gds batch over as an ArrowDeviceArray: " + unavailable);
        }
        return new DeviceBatchExport(runtime, batch, false);
    }

    /**
     * The batch's columns copied back to host memory (one D->H per buffer through {@code runtime}'s stream,
     * on every backend) and described as an {@code ARROW_DEVICE_CPU} array in the same layout as
     * {@link #export}'s: for a check that reads every value of batches a consumer took as device pointers.
     * Not counted in {@link #hostFallbacks()}: it is not a consumer's path.
     */
    public static DeviceBatchExport verificationCopy(DeviceRuntime runtime, DeviceBatch batch)
    {
        requireNonNull(runtime, "runtime is null");
        requireNonNull(batch, "batch is null");
        String unavailable = ReleaseCallbacks.unavailableReason();
        if (unavailable != null) {
            throw new UnsupportedOperationException("Cannot describe the verification copy as an ArrowDeviceArray: " + unavailable);
        }
        return new DeviceBatchExport(runtime, batch, true);
    }

    /** Whether the struct's release callback has run (a consumer released it, or {@link #close()} did). */
    public boolean released()
    {
        return closed || ReleaseCallbacks.isReleased(address);
    }

    /** Batches handed over from host copies in this JVM because no device address could be lent. */
    public static long hostFallbacks()
    {
        return HOST_FALLBACKS.get();
    }

    /** The address of the {@code struct ArrowDeviceArray}. */
    public long address()
    {
        if (closed) {
            throw new IllegalStateException("The exported batch was closed");
        }
        return address;
    }

    public int deviceType()
    {
        return deviceType;
    }

    public long deviceId()
    {
        return deviceId;
    }

    /** Why the batch was handed over with this device type. */
    public String reason()
    {
        return reason;
    }

    private List<Long> hostCopies(DeviceRuntime runtime, DeviceBatch batch)
    {
        List<Long> pointers = new ArrayList<>();
        try (DeviceStream stream = runtime.newStream(batch.device())) {
            for (DeviceColumn column : batch.columns()) {
                for (int i = 0; i < column.buffers().size(); i++) {
                    long length = column.lengths().get(i);
                    long host = allocate(Math.max(8, length));
                    if (length > 0) {
                        stream.copyToHost(column.buffers().get(i), 0, MemoryUtil.directBuffer(host, (int) length));
                    }
                    pointers.add(host);
                }
            }
            stream.synchronize();
        }
        return pointers;
    }

    /** The parent ArrowDeviceArray and one ArrowArray per column, pointing at {@code pointers} (each column's buffers in order). */
    private long structs(DeviceBatch batch, List<Long> pointers)
    {
        List<DeviceColumn> columns = batch.columns();
        long parent = MemoryUtil.allocateMemory(DEVICE_ARRAY_SIZE);
        MemoryUtil.setMemory(parent, DEVICE_ARRAY_SIZE, (byte) 0);
        parentStruct = parent;
        long parentBuffers = allocate(8);
        long children = allocate(8L * Math.max(1, columns.size()));
        MemoryUtil.putLong(parentBuffers, 0);
        fill(parent, batch.rows(), 0, 1, columns.size(), parentBuffers, children);
        MemoryUtil.putLong(parent + DEVICE_ID, deviceId);
        MemoryUtil.putInt(parent + DEVICE_TYPE, deviceType);
        int next = 0;
        for (int c = 0; c < columns.size(); c++) {
            DeviceColumn column = columns.get(c);
            long child = allocate(ARRAY_SIZE);
            long buffers = allocate(8L * column.buffers().size());
            for (int b = 0; b < column.buffers().size(); b++) {
                MemoryUtil.putLong(buffers + 8L * b, pointers.get(next++));
            }
            fill(child, batch.rows(), column.nullCount(), column.buffers().size(), 0, buffers, 0);
            MemoryUtil.putLong(children + 8L * c, child);
        }
        return parent;
    }

    /**
     * Children first: a child's release only marks it released (its memory is in {@link #nativeAllocations}),
     * the native release of the parent calls each child's before the parent's own, which frees everything.
     */
    private void installReleaseCallbacks(int columns)
    {
        long children = MemoryUtil.getLong(parentStruct + ARRAY_CHILDREN);
        for (int c = 0; c < columns; c++) {
            ReleaseCallbacks.install(MemoryUtil.getLong(children + 8L * c), () -> {});
        }
        ReleaseCallbacks.install(parentStruct, this::releaseData);
    }

    private synchronized void releaseData()
    {
        if (dataReleased) {
            return;
        }
        dataReleased = true;
        closeLeases();
        nativeAllocations.forEach(MemoryUtil::freeMemory);
        nativeAllocations.clear();
    }

    private static void fill(long array, long length, long nullCount, long buffers, long childCount, long bufferPointers, long childPointers)
    {
        // offset, dictionary, release and private_data stay zero (allocate clears)
        MemoryUtil.putLong(array + ARRAY_LENGTH, length);
        MemoryUtil.putLong(array + ARRAY_NULL_COUNT, nullCount);
        MemoryUtil.putLong(array + ARRAY_N_BUFFERS, buffers);
        MemoryUtil.putLong(array + ARRAY_N_CHILDREN, childCount);
        MemoryUtil.putLong(array + ARRAY_BUFFERS, bufferPointers);
        MemoryUtil.putLong(array + ARRAY_CHILDREN, childPointers);
    }

    private long allocate(long bytes)
    {
        long address = MemoryUtil.allocateMemory(bytes);
        nativeAllocations.add(address);
        MemoryUtil.setMemory(address, bytes, (byte) 0);
        return address;
    }

    private void closeLeases()
    {
        leases.forEach(DeviceMemoryExport::close);
        leases.clear();
    }

    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        if (parentStruct != 0) {
            if (!ReleaseCallbacks.isReleased(parentStruct)) {
                ReleaseCallbacks.release(parentStruct);
            }
            MemoryUtil.freeMemory(parentStruct);
            parentStruct = 0;
        }
        // A failure before the callbacks were installed leaves the data to free here.
        releaseData();
    }
}
