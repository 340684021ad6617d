package dev.ferry.shuffle.transport;

import java.util.Optional;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.pool.BlockLease;

/**
 * This executor's GPU-resident map outputs, lent without a copy for the device routes (NVLINK,
 * PCIE_P2P, GPUDIRECT_RDMA). A block that is not on the GPU any more (spilled to host memory or
 * disk) is not lent: it is served from {@link BlockSource} through host memory.
 */
public interface DeviceBlockSource
{
    /** The device runtime the blocks live in (to export IPC handles and register memory with the NIC). */
    DeviceRuntime runtime();

    /** The block's device buffer, held until the lease closes; empty when it is not on the GPU or not here. */
    Optional<BlockLease> borrow(ShuffleBlockRef block);
}
