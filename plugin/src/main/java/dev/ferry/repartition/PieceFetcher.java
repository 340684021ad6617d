package dev.ferry.repartition;

import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.shuffle.DeviceReads;
import dev.ferry.shuffle.FerryShuffleRuntime;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.RouteUnavailableException;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.gpurdma.GpuRdmaDeviceFetcher;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.ipc.IpcDeviceFetcher;
import dev.ferry.shuffle.transport.ipc.IpcDeviceFetcher.Landed;
import dev.ferry.topology.route.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * A reduce task's fetch of its output partition's packed blocks from every map, into this
 * executor's GPU, each peer over the route {@link PieceRoutes} decides (logged once per JVM per
 * peer and route). Counts the bytes per route that carried them and, per decided route, the bytes
 * that passed through host memory on the way (a spilled block, a peer pair the backend refuses a
 * peer copy for, a device route the peer or this executor refuses, a route with no device data
 * path here).
 */
final class PieceFetcher
{
    private static final Logger LOG = LoggerFactory.getLogger(PieceFetcher.class);
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();
    /** Peer (executor id and place) and device route that refused in this JVM, with the reason: later tasks stage those blocks at once. */
    private static final Map<String, String> REFUSED = new ConcurrentHashMap<>();

    private final FerryShuffleRuntime shuffle;
    private final DeviceReads reads;
    private final Map<String, Long> bytesByRoute = new TreeMap<>();
    private final Map<String, Long> hostStagedByDecidedRoute = new TreeMap<>();
    private final Map<String, String> peerRoutes = new TreeMap<>();

    /** One map's block of this partition, in this executor's GPU, with its layout and the route that carried it. */
    record Piece(MapPieces map, PieceLayout layout, DeviceBuffer block, Route carried) {}

    /** Either every piece of the partition (and nothing lost), or no piece and the map outputs of the executors found gone. */
    record Fetched(List<Piece> pieces, List<LostMapOutputs> lost) {}

    PieceFetcher(FerryShuffleRuntime shuffle, DeviceReads reads)
    {
        this.shuffle = requireNonNull(shuffle, "shuffle is null");
        this.reads = requireNonNull(reads, "reads is null");
    }

    /**
     * Partition {@code partition}'s blocks of {@code maps} (maps without rows for it are skipped), in
     * map order; the caller owns them. If an executor turns out to be gone ({@link ExecutorGone}), no
     * block is returned (those fetched are freed) and the result names every map executor found gone:
     * the one whose fetch failed, and of the rest those the driver no longer has registered (asked, not
     * fetched from, once one loss means the partition runs again anyway).
     */
    Fetched fetch(int shuffleId, int partition, List<MapPieces> maps)
            throws IOException
    {
        Map<String, List<MapPieces>> byExecutor = new LinkedHashMap<>();
        for (MapPieces map : maps) {
            if (map.layout(partition).isPresent()) {
                byExecutor.computeIfAbsent(map.executorId(), key -> new ArrayList<>()).add(map);
            }
        }
        List<Piece> pieces = new ArrayList<>();
        List<LostMapOutputs> lost = new ArrayList<>();
        boolean success = false;
        try {
            for (List<MapPieces> group : byExecutor.values()) {
                String executorId = group.get(0).executorId();
                List<Integer> mapIndexes = group.stream().map(MapPieces::mapIndex).toList();
                if (!lost.isEmpty()) {
                    if (!executorId.equals(shuffle.executorId()) && !ExecutorGone.registered(executorId)) {
                        lost.add(new LostMapOutputs(executorId, mapIndexes, "the driver no longer has it registered"));
                    }
                    continue;
                }
                try {
                    fetchGroup(shuffleId, partition, group, pieces);
                }
                catch (IOException e) {
                    if (executorId.equals(shuffle.executorId())) {
                        throw e;
                    }
                    Optional<String> gone = ExecutorGone.after(executorId, e);
                    if (gone.isEmpty()) {
                        throw e;
                    }
                    LOG.warn("Device repartition {} on executor {}: executor {} is gone ({}): partition {} reports its maps {} lost instead of running the function",
                            shuffleId, shuffle.executorId(), executorId, gone.get(), partition, mapIndexes);
                    lost.add(new LostMapOutputs(executorId, mapIndexes, gone.get()));
                }
            }
            success = lost.isEmpty();
            if (!success) {
                return new Fetched(List.of(), lost);
            }
            return new Fetched(pieces, List.of());
        }
        finally {
            if (!success) {
                pieces.forEach(piece -> piece.block().close());
            }
        }
    }

    /** The pieces of one executor's maps, appended to {@code pieces} in map order. */
    private void fetchGroup(int shuffleId, int partition, List<MapPieces> group, List<Piece> pieces)
            throws IOException
    {
        PieceRoutes.Choice choice = PieceRoutes.choose(reads, shuffle.executorId(), group.get(0));
        peerRoutes.put(group.get(0).executorId(), choice.route() + ": " + choice.reason());
        if (LOGGED.add(group.get(0).executorId() + "/" + choice.route())) {
            LOG.info("Device repartition on executor {}: pieces of executor {} over {} ({})", shuffle.executorId(), group.get(0).executorId(), choice.route(),
                    choice.reason());
        }
        List<ShuffleBlockRef> refs = group.stream().map(map -> new ShuffleBlockRef(shuffleId, map.mapId(), partition)).toList();
        List<Landed> landed = landOrStage(choice, group.get(0).peer(), refs);
        for (int i = 0; i < group.size(); i++) {
            Landed one = landed.get(i);
            pieces.add(new Piece(group.get(i), group.get(i).layout(partition).orElseThrow(), one.buffer(), one.carried()));
            bytesByRoute.merge(one.carried().name(), one.buffer().length(), Long::sum);
            hostStagedByDecidedRoute.merge(choice.route().name(), passedHost(one.carried()) ? one.buffer().length() : 0L, Long::sum);
        }
    }

    /**
     * {@link #land}; a device route that turns out not to work with this peer (an IPC handle this
     * process cannot open, GPU memory a NIC refuses to register) is not retried on the device path:
     * the blocks come through the shuffle transport and host memory instead, logged once with the
     * reason and counted as host-staged bytes of the decided route; later tasks of this JVM stage
     * that peer's blocks at once.
     */
    private List<Landed> landOrStage(PieceRoutes.Choice choice, PeerAddress peer, List<ShuffleBlockRef> refs)
            throws IOException
    {
        String key = peer.executorId() + "@" + peer.topologyInfo() + "/" + choice.route();
        String refusedBefore = choice.path() == PieceRoutes.Path.LOCAL_STORE ? null : REFUSED.get(key);
        if (refusedBefore != null) {
            peerRoutes.merge(peer.executorId(), "; fell back to " + Route.HOST_STAGED + " (refused before): " + refusedBefore, String::concat);
            return throughTransport(peer, refs);
        }
        try {
            return land(choice, peer, refs);
        }
        catch (IOException e) {
            Optional<RouteUnavailableException> refused = RouteUnavailableException.in(e);
            if (refused.isEmpty()) {
                throw new IOException("Device repartition: fetching " + refs.size() + " blocks of executor " + peer.executorId() + " over " + choice.route() + ": "
                        + e.getMessage(), e);
            }
            if (REFUSED.putIfAbsent(key, refused.get().getMessage()) == null) {
                LOG.warn("Device repartition on executor {}: {} does not work with executor {} ({}); its blocks come through the shuffle transport and host memory",
                        shuffle.executorId(), choice.route(), peer.executorId(), refused.get().getMessage());
            }
            peerRoutes.merge(peer.executorId(), "; fell back to " + Route.HOST_STAGED + ": " + refused.get().getMessage(), String::concat);
            return throughTransport(peer, refs);
        }
    }

    private List<Landed> land(PieceRoutes.Choice choice, PeerAddress peer, List<ShuffleBlockRef> refs)
            throws IOException
    {
        DeviceLanding landing = reads.landing();
        switch (choice.path()) {
            case LOCAL_STORE:
                return fromOwnStore(refs);
            case IPC:
                return IpcDeviceFetcher.fetch(reads.stream(), peer, refs, choice.route(), reads.reader(), landing, reads.staged(), shuffle.allocator(), reads.counters());
            case GPUDIRECT_RDMA:
                return GpuRdmaDeviceFetcher.fetch(reads.stream(), peer, refs, reads.verbs().orElseThrow(), landing, shuffle.allocator(), reads.counters());
            case TRANSPORT_STAGED:
                return throughTransport(peer, refs);
        }
        throw new IllegalStateException("Unhandled path " + choice.path());
    }

    /** This executor's own blocks: a device-to-device copy out of the store (the lease ends with it); a block spilled off the GPU comes up from host memory. */
    private List<Landed> fromOwnStore(List<ShuffleBlockRef> refs)
            throws IOException
    {
        List<Landed> landed = new ArrayList<>(refs.size());
        boolean success = false;
        try (DeviceStream stream = reads.landing().runtime().newStream(reads.landing().device())) {
            for (ShuffleBlockRef ref : refs) {
                Optional<BlockLease> lease = reads.store().borrow(ref.shuffleId(), ref.mapId(), ref.reduceId());
                if (lease.isPresent()) {
                    try (BlockLease held = lease.get()) {
                        DeviceBuffer target = reads.landing().allocate(held.length());
                        landed.add(new Landed(ref, target, Route.LOCAL));
                        stream.copy(held.buffer(), 0, target, 0, held.length());
                        stream.synchronize();
                    }
                    continue;
                }
                Optional<BlockBytes> host = reads.store().open(ref.shuffleId(), ref.mapId(), ref.reduceId());
                if (host.isEmpty()) {
                    throw new IOException("Block " + ref + " is not in the device store of executor " + shuffle.executorId() + " (its map output was removed)");
                }
                try (BlockBytes bytes = host.get()) {
                    landed.add(upload(ref, bytes, stream));
                }
            }
            success = true;
            return landed;
        }
        finally {
            if (!success) {
                landed.forEach(Landed::close);
            }
        }
    }

    /** Through the shuffle transport (counted there on the route it took) into host memory, then uploaded here: HOST_STAGED. */
    private List<Landed> throughTransport(PeerAddress peer, List<ShuffleBlockRef> refs)
            throws IOException
    {
        FetchedBlocks fetched = shuffle.transport().fetch(peer, refs, shuffle.allocator());
        List<Landed> landed = new ArrayList<>(refs.size());
        boolean success = false;
        try (DeviceStream stream = reads.landing().runtime().newStream(reads.landing().device())) {
            if (fetched.blocks().size() != refs.size()) {
                throw new IOException("Asked " + peer + " for " + refs.size() + " blocks over " + fetched.route() + ", got " + fetched.blocks().size());
            }
            for (int i = 0; i < refs.size(); i++) {
                landed.add(upload(refs.get(i), fetched.blocks().get(i), stream));
            }
            success = true;
            return landed;
        }
        finally {
            fetched.blocks().forEach(BlockBytes::close);
            if (!success) {
                landed.forEach(Landed::close);
            }
        }
    }

    private Landed upload(ShuffleBlockRef ref, BlockBytes bytes, DeviceStream stream)
    {
        DeviceBuffer target = reads.landing().allocate(Math.max(bytes.length(), 1));
        boolean success = false;
        try {
            stream.copyFromHost(bytes.buffer().nioBuffer(0, Math.toIntExact(bytes.length())), target, 0);
            stream.synchronize();
            success = true;
            return new Landed(ref, target, Route.HOST_STAGED);
        }
        finally {
            if (!success) {
                target.close();
            }
        }
    }

    private static boolean passedHost(Route carried)
    {
        return carried == Route.HOST_STAGED || carried == Route.RDMA_HOST_STAGED;
    }

    /** Bytes of the fetched blocks by the route that carried them. */
    Map<String, Long> bytesByRoute()
    {
        return bytesByRoute;
    }

    /** Per decided route, the bytes of its blocks that passed through host memory (0 where every block stayed on the device path). */
    Map<String, Long> hostStagedByDecidedRoute()
    {
        return hostStagedByDecidedRoute;
    }

    /** Per map executor, the route and why. */
    Map<String, String> peerRoutes()
    {
        return peerRoutes;
    }
}
