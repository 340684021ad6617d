package dev.ferry.shuffle.transport.rdma.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * Access flags of a memory region, as {@code ibv_reg_mr} takes them. The bit values are the
 * ones libibverbs uses; the DiSNI provider reads DiSNI's own (non-final) constants at run time
 * instead of trusting these.
 */
public enum Access
{
    LOCAL_WRITE(1),
    REMOTE_WRITE(2),
    REMOTE_READ(4);

    private final int bit;

    Access(int bit)
    {
        this.bit = bit;
    }

    public int bit()
    {
        return bit;
    }

    /** What a READ source needs: remote peers may read it. */
    public static Set<Access> remoteReadable()
    {
        return EnumSet.of(REMOTE_READ);
    }

    /** What a READ sink needs on InfiniBand and RoCE: the local NIC writes into it. */
    public static Set<Access> readSink()
    {
        return EnumSet.of(LOCAL_WRITE);
    }

    /**
     * Checks the rule {@code ibv_reg_mr} enforces: remote write needs local write too.
     *
     * @throws VerbsException when the combination is refused
     */
    public static void checkCombination(Set<Access> access)
            throws VerbsException
    {
        if (access.isEmpty()) {
            throw new VerbsException("A memory region needs at least one access flag");
        }
        if (access.contains(REMOTE_WRITE) && !access.contains(LOCAL_WRITE)) {
            throw new VerbsException("Invalid argument: REMOTE_WRITE access requires LOCAL_WRITE (ibv_reg_mr)");
        }
    }
}
