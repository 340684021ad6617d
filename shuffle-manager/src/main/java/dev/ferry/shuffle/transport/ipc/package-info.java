/**
 * The device IPC routes (NVLINK, PCIE_P2P): GPU blocks exported as CUDA IPC handles by
 * {@link dev.ferry.shuffle.transport.ipc.IpcBlockServer} and copied by the reader
 * ({@link dev.ferry.shuffle.transport.ipc.IpcBlockFetcher}, {@link dev.ferry.shuffle.transport.ipc.DeviceBlockReader})
 * into host memory or a device landing buffer; a block the peer holds in host memory comes through
 * shared memory (HOST_STAGED).
 */
package dev.ferry.shuffle.transport.ipc;
