/**
 * RDMA (and RDMA_HOST_STAGED): blocks registered with the server's NIC by
 * {@link dev.ferry.shuffle.transport.rdma.RdmaBlockServer} and READ one-sidedly by
 * {@link dev.ferry.shuffle.transport.rdma.RdmaBlockFetcher}, queue pairs admitted only over the
 * authenticated stream ({@link dev.ferry.shuffle.transport.rdma.VerbsBlocks}); the verbs SPI and its
 * DiSNI and simulated implementations below, in {@code rdma.verbs}.
 */
package dev.ferry.shuffle.transport.rdma;
