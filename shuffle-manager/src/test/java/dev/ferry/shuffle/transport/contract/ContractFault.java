package dev.ferry.shuffle.transport.contract;

/** The faults the contract suite puts between a serving peer and a reader, one per endpoint pair. */
public enum ContractFault
{
    NONE,
    /** No fault: a proxy between reader and server records every byte both ways, what the sockets carry. */
    CAPTURE,
    /** The serving peer dies while the block is on its way. */
    PEER_DIES,
    /** The transfer stops early: part of the block arrives, then the stream or queue pair ends. */
    CUT_SHORT,
    /** One byte of the block is flipped in flight. */
    FLIP_BYTE,
    /** The block's memory region is deregistered before the reader's READ arrives (one-sided routes only). */
    STALE_KEY;

    /** For families whose faults the NIC injects: the proxy on the control connection gets only {@link #CAPTURE}. */
    public ContractFault captureOnly()
    {
        return this == CAPTURE ? CAPTURE : NONE;
    }
}
