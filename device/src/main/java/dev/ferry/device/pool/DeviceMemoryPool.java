package dev.ferry.device.pool;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.device.DeviceConfigKeys;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.memory.AllocationListener;
import dev.ferry.device.memory.BufferAllocator;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * One device's memory pool: a child allocator capped at {@code spark.ferry.device.memoryLimit}
 * whose allocations spill instead of failing. When an allocation does not fit, the registered
 * {@link SpillCallback}s are asked for room in order; if that is not enough, the allocation waits
 * for other owners to release memory, up to a deadline, and only then fails, naming the pool.
 *
 * <p>Thread-safe.
 */
public final class DeviceMemoryPool
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(DeviceMemoryPool.class);

    private final String name;
    private final BufferAllocator allocator;
    private final long waitMillis;
    private final List<SpillCallback> callbacks = new CopyOnWriteArrayList<>();
    private final Object released = new Object();
    private final AtomicLong spills = new AtomicLong();
    private final AtomicLong spilledBytes = new AtomicLong();
    private final AtomicLong spillNanos = new AtomicLong();
    private final AtomicLong waits = new AtomicLong();
    private final ThreadLocal<RuntimeException> spillFailure = new ThreadLocal<>();

    /**
     * @param limit bytes this pool may hold; 0 means whatever the device root allows
     * @param waitMillis how long an allocation waits for releases after spilling did not help
     */
    public DeviceMemoryPool(DeviceRuntime runtime, int device, long limit, long waitMillis)
    {
        requireNonNull(runtime, "runtime is null");
        BufferAllocator root = runtime.deviceAllocator(device);
        this.name = "pool-device-" + device;
        this.allocator = root.newChildAllocator(name, limit > 0 ? limit : root.limit(), new SpillingListener());
        if (waitMillis < 0) {
            throw new IllegalArgumentException("waitMillis must not be negative: " + waitMillis);
        }
        this.waitMillis = waitMillis;
    }

    /** The pool {@code spark.ferry.device.memoryLimit} and {@code spark.ferry.device.pool.waitMillis} describe. */
    public static DeviceMemoryPool create(DeviceRuntime runtime, int device, ConfigSource config)
    {
        return new DeviceMemoryPool(runtime, device, DeviceConfigKeys.MEMORY_LIMIT.get(config), DeviceConfigKeys.POOL_WAIT_MILLIS.get(config));
    }

    public void addSpillCallback(SpillCallback callback)
    {
        callbacks.add(requireNonNull(callback, "callback is null"));
    }

    public void removeSpillCallback(SpillCallback callback)
    {
        callbacks.remove(callback);
    }

    public BufferAllocator allocator()
    {
        return allocator;
    }

    /** Allocates {@code size} bytes, spilling and then waiting as needed. */
    public DeviceBuffer allocate(long size)
    {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        boolean waited = false;
        while (true) {
            spillFailure.remove();
            try {
                return allocator.allocate(size);
            }
            catch (DeviceOutOfMemoryException e) {
                RuntimeException failure = spillFailure.get();
                spillFailure.remove();
                if (failure != null) {
                    throw new FerryException(ErrorCategory.INSUFFICIENT_RESOURCES, "Cannot allocate " + size + " bytes in " + name + ": spilling failed: " + failure.getMessage(), failure);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new DeviceOutOfMemoryException(e.getMessage() + "\n  " + name + " spilled what it could and waited " + waitMillis + " ms for releases", size);
                }
                if (!waited) {
                    waits.incrementAndGet();
                    waited = true;
                }
                awaitRelease(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(50)));
            }
        }
    }

    private void awaitRelease(long nanos)
    {
        synchronized (released) {
            try {
                TimeUnit.NANOSECONDS.timedWait(released, nanos);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FerryException(ErrorCategory.INSUFFICIENT_RESOURCES, "Interrupted while waiting for device memory in " + name, e);
            }
        }
    }

    public long allocatedBytes()
    {
        return allocator.allocatedBytes();
    }

    public long spillCount()
    {
        return spills.get();
    }

    public long spilledBytes()
    {
        return spilledBytes.get();
    }

    public long spillMillis()
    {
        return TimeUnit.NANOSECONDS.toMillis(spillNanos.get());
    }

    /** Allocations that had to wait for another owner's release. */
    public long waitCount()
    {
        return waits.get();
    }

    /** Closes the pool's allocator; a leak report if buffers are still open. */
    @Override
    public void close()
    {
        allocator.close();
    }

    private final class SpillingListener
            implements AllocationListener
    {
        @Override
        public boolean onFailedAllocation(BufferAllocator failed, long size, String details)
        {
            long start = System.nanoTime();
            long freed = 0;
            try {
                for (SpillCallback callback : callbacks) {
                    if (freed >= size) {
                        break;
                    }
                    long got = callback.spill(size - freed);
                    if (got > 0) {
                        log.debug("{} spilled {} bytes for an allocation of {}", callback.name(), got, size);
                        freed += got;
                    }
                }
            }
            catch (RuntimeException e) {
                // Listeners must not throw; the failure reaches the caller through allocate().
                log.warn("Spilling for an allocation of {} bytes in {} failed", size, name, e);
                spillFailure.set(e);
                return false;
            }
            finally {
                if (freed > 0) {
                    spills.incrementAndGet();
                    spilledBytes.addAndGet(freed);
                    spillNanos.addAndGet(System.nanoTime() - start);
                }
            }
            return freed > 0;
        }

        @Override
        public void onRelease(BufferAllocator allocator, long size)
        {
            synchronized (released) {
                released.notifyAll();
            }
        }
    }
}
