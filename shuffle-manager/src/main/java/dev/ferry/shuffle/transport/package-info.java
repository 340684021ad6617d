/**
 * Ferry's shuffle transport, one tree laid out by route. At this root the SPI the shuffle uses
 * ({@link dev.ferry.shuffle.transport.ShuffleTransport}, {@link dev.ferry.shuffle.transport.BlockServer},
 * {@link dev.ferry.shuffle.transport.BlockSource}, ...) and the settings
 * ({@link dev.ferry.shuffle.transport.TransportConfigKeys}). The bottom layer: {@code wire} (frames
 * and messages), {@code auth} (Spark shared-secret handshake), {@code crypto} (AES-GCM streams) and
 * {@code metrics}; above it {@code server} (accept loop, connection handler, what a request holds)
 * and {@code client} (connections, pooled per peer). One package per route, each with its
 * server-side and client-side handler: {@code tcp} (inline bodies), {@code shm} (HOST_SHM,
 * HOST_STAGED), {@code ipc} (NVLINK, PCIE_P2P), {@code rdma} (RDMA, its verbs SPI with DiSNI and the
 * simulated NIC), {@code gpurdma} (GPUDIRECT_RDMA); {@code routing} on top picks a route per peer
 * and assembles the server. Routes import the layers below them; the layers below import no route.
 */
package dev.ferry.shuffle.transport;
