package dev.ferry.shuffle.transport.rdma.verbs;

import java.util.Set;

/**
 * A device's protection domain: one per device per process (as DiSNI's endpoint provider keeps
 * it), so a region registered here is readable through every connection of the device.
 */
public interface ProtectionDomain
{
    /**
     * Registers {@code memory} with {@code access}, split into regions of at most the device's
     * largest region size (2 GiB - 1 on DiSNI).
     *
     * @throws VerbsException when the NIC refuses: bad flags, device memory without peer memory
     *         support, no pinnable memory left (memlock), or the provider cannot take this kind of memory
     */
    Registration register(RegistrableMemory memory, Set<Access> access)
            throws VerbsException;
}
