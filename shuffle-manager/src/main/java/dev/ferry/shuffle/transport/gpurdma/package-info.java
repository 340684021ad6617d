/**
 * GPUDIRECT_RDMA: GPU blocks whose device memory the server registers with its NIC
 * ({@link dev.ferry.shuffle.transport.gpurdma.GpuRdmaBlockServer}), READ straight into host memory
 * here ({@link dev.ferry.shuffle.transport.gpurdma.GpuRdmaBlockFetcher}); a block the peer holds in
 * host memory is READ from there and counted RDMA_HOST_STAGED. Never run on a real NIC with GPU
 * peer memory: tested on the simulated NIC.
 */
package dev.ferry.shuffle.transport.gpurdma;
