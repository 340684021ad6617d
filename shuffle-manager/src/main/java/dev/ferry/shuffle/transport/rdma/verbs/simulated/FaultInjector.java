package dev.ferry.shuffle.transport.rdma.verbs.simulated;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ferry.shuffle.transport.InjectedFault;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Decides which READ a simulated NIC spoils with its {@link InjectedFault}: the first one it serves,
 * once per NIC, or, with a once-file, once across every process that shares the file (the first to
 * create it wins), so a multi-executor test sees exactly one fault and its rerun sees none.
 * Every injection is logged as a warning, so a fault never passes unnoticed.
 */
public final class FaultInjector
{
    private static final Logger LOG = LoggerFactory.getLogger(FaultInjector.class);

    private final InjectedFault fault;
    private final Optional<Path> onceFile;
    private final AtomicBoolean fired = new AtomicBoolean();

    public FaultInjector(InjectedFault fault, Optional<Path> onceFile)
    {
        this.fault = requireNonNull(fault, "fault is null");
        this.onceFile = requireNonNull(onceFile, "onceFile is null");
    }

    public static FaultInjector none()
    {
        return new FaultInjector(InjectedFault.NONE, Optional.empty());
    }

    public InjectedFault fault()
    {
        return fault;
    }

    /** The fault to apply to the READ now being served by {@code nic}: {@link InjectedFault#NONE} except the one chosen. */
    InjectedFault next(String nic, long wrId, int rkey, long address, int length)
    {
        if (fault == InjectedFault.NONE || fired.get() || !fired.compareAndSet(false, true)) {
            return InjectedFault.NONE;
        }
        if (onceFile.isPresent()) {
            try {
                Files.createFile(onceFile.get());
            }
            catch (FileAlreadyExistsException e) {
                return InjectedFault.NONE;
            }
            catch (IOException e) {
                LOG.warn("Test fault injection: cannot create once-file {} ({}); not injecting {}", onceFile.get(), e.getMessage(), fault);
                return InjectedFault.NONE;
            }
        }
        LOG.warn("Test fault injection (spark.ferry.transport.test.faultInjection): simulated NIC {} injects {} into READ wr {} (rkey 0x{}, address 0x{}, {} bytes)",
                nic, fault, wrId, Integer.toHexString(rkey), Long.toHexString(address), length);
        return fault;
    }

    @Override
    public String toString()
    {
        return fault + onceFile.map(path -> " once across processes (" + path + ")").orElse(" once");
    }
}
