package dev.ferry.shuffle.transport.wire;

/**
 * How a {@link FetchRequest} asks the server to answer, one byte on the wire. Each value is served
 * by one route package's handler; ids are part of the protocol and never reused.
 */
public enum FetchRoute
{
    /** Each block's bytes in the stream ({@link BlockResponse}): TCP, IPOIB_TCP. */
    INLINE(0),
    /** Each block published in shared memory ({@link ShmLocation}): HOST_SHM, HOST_STAGED. */
    SHARED_MEMORY(1),
    /** Each GPU block's CUDA IPC handle ({@link IpcLocation}); a block the peer holds in host memory through shared memory: NVLINK, PCIE_P2P. */
    DEVICE_IPC(2),
    /** Each block registered with the server's NIC ({@link RemoteSlices} of host memory): RDMA, RDMA_HOST_STAGED. */
    RDMA(3),
    /** Each GPU block's device memory registered with the NIC ({@link RemoteSlices} of device memory, or of host memory for a spilled block): GPUDIRECT_RDMA. */
    GPUDIRECT_RDMA(4);

    private final byte id;

    FetchRoute(int id)
    {
        this.id = (byte) id;
    }

    public byte id()
    {
        return id;
    }

    /** The route with this id; an id that names none is a malformed request. */
    public static FetchRoute fromId(byte id)
    {
        for (FetchRoute route : values()) {
            if (route.id == id) {
                return route;
            }
        }
        throw new IllegalArgumentException("Unknown fetch route " + id);
    }
}
