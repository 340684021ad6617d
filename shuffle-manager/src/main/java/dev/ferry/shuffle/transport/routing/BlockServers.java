package dev.ferry.shuffle.transport.routing;

import java.io.IOException;
import java.net.InetAddress;

import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.DeviceBlockSource;
import dev.ferry.shuffle.transport.TransportConfigKeys;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.gpurdma.GpuRdmaBlockServer;
import dev.ferry.shuffle.transport.ipc.IpcBlockServer;
import dev.ferry.shuffle.transport.rdma.RdmaBlockServer;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import dev.ferry.shuffle.transport.shm.ShmBlockServer;
import dev.ferry.shuffle.transport.shm.ShmBlockWriter;
import dev.ferry.shuffle.transport.tcp.InlineBlockServer;
import dev.ferry.shuffle.transport.wire.FetchRoute;

import static java.util.Objects.requireNonNull;

/**
 * An executor's block server with the routes its parts allow: TCP always; with shared memory
 * HOST_SHM / HOST_STAGED and NVLINK / PCIE_P2P; with a NIC RDMA and GPUDIRECT_RDMA. A device route
 * answers a block from GPU memory where the device store has it there, else from host memory (the
 * location says which). The one place that knows which route packages serve which
 * {@link FetchRoute}.
 */
public final class BlockServers
{
    private BlockServers() {}

    /** A server of {@code source}'s blocks, configured by the builder and bound by {@link Builder#start}. */
    public static Builder builder(BlockSource source)
    {
        return new Builder(source);
    }

    /** Required: {@link #bind} and {@link #maxFrameBytes}; each route beyond TCP is on where its part is given. */
    public static final class Builder
    {
        private final BlockSource source;
        private InetAddress bindAddress;
        private int port = -1;
        private long maxFrameBytes = -1;
        private ShmBlockWriter shmWriter;
        private VerbsBlocks verbs;
        private TcpAuth auth = TcpAuth.none();
        private DeviceBlockSource deviceBlocks;
        private int maxConnections = TransportConfigKeys.SERVER_MAX_CONNECTIONS.defaultValue();

        private Builder(BlockSource source)
        {
            this.source = requireNonNull(source, "source is null");
        }

        /** Where to listen ({@code port} 0: any free port); an executor binds its own address, as Spark's block transfer service does. */
        public Builder bind(InetAddress address, int port)
        {
            this.bindAddress = requireNonNull(address, "address is null");
            this.port = port;
            return this;
        }

        /** The longest block frame this server sends (its readers' limit). */
        public Builder maxFrameBytes(long bytes)
        {
            this.maxFrameBytes = bytes;
            return this;
        }

        /** Same-node peers' HOST_SHM / HOST_STAGED requests (null: none). */
        public Builder sharedMemory(ShmBlockWriter writer)
        {
            this.shmWriter = writer;
            return this;
        }

        /** Other nodes' RDMA READs of blocks registered with this NIC (null: none). */
        public Builder verbs(VerbsBlocks nic)
        {
            this.verbs = nic;
            return this;
        }

        /** With authentication enabled, a connection is served only after its peer proved it holds Spark's shared secret. */
        public Builder auth(TcpAuth tcpAuth)
        {
            this.auth = requireNonNull(tcpAuth, "auth is null");
            return this;
        }

        /** GPU-resident blocks lent for the NVLINK, PCIE_P2P and GPUDIRECT_RDMA routes (null: none). */
        public Builder deviceBlocks(DeviceBlockSource blocks)
        {
            this.deviceBlocks = blocks;
            return this;
        }

        /** Connections open at once (each has a thread); one more is closed as soon as it is accepted, counted and logged (throttled). */
        public Builder maxConnections(int connections)
        {
            this.maxConnections = connections;
            return this;
        }

        /** Binds at once and starts accepting. */
        public TcpBlockServer start()
                throws IOException
        {
            if (bindAddress == null || maxFrameBytes < 0) {
                throw new IllegalStateException("A block server needs bind() and maxFrameBytes()");
            }
            TcpBlockServer.Builder server = TcpBlockServer.builder(source)
                    .bind(bindAddress, port)
                    .maxFrameBytes(maxFrameBytes)
                    .auth(auth)
                    .deviceBlocks(deviceBlocks)
                    .maxConnections(maxConnections)
                    .route(FetchRoute.INLINE, new InlineBlockServer());
            // The device routes are served wherever their host fallback is, device blocks or not: a reader
            // whose topology picked one for this executor gets each block's real place (host memory
            // when this executor's store is on host), and counts the route that carried it.
            if (shmWriter != null) {
                ShmBlockServer shm = new ShmBlockServer(shmWriter);
                server.route(FetchRoute.SHARED_MEMORY, shm).route(FetchRoute.DEVICE_IPC, new IpcBlockServer(shm));
            }
            if (verbs != null) {
                RdmaBlockServer rdma = new RdmaBlockServer(verbs);
                server.route(FetchRoute.RDMA, rdma).route(FetchRoute.GPUDIRECT_RDMA, new GpuRdmaBlockServer(verbs, rdma)).admissions(verbs);
            }
            return server.start();
        }
    }
}
