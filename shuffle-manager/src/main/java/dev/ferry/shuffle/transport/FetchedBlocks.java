package dev.ferry.shuffle.transport;

import java.util.List;

import dev.ferry.shuffle.store.BlockBytes;

import static java.util.Objects.requireNonNull;

/**
 * The answer to one fetch: the blocks in request order, and the route that carried them (for
 * metrics and logs); {@code blockRoutes}, when not empty, the route of each block where they differ
 * (a device route whose peer had spilled some blocks off its GPU sends those through host memory);
 * {@code fallbacks}, the per-peer route fallback steps this fetch took before it got the blocks
 * (e.g. {@code GPUDIRECT_RDMA->RDMA_HOST_STAGED}), for the exchange's metrics.
 */
public record FetchedBlocks(String route, List<BlockBytes> blocks, List<String> blockRoutes, List<String> fallbacks)
        implements AutoCloseable
{
    public FetchedBlocks
    {
        requireNonNull(route, "route is null");
        blocks = List.copyOf(blocks);
        blockRoutes = List.copyOf(blockRoutes);
        fallbacks = List.copyOf(fallbacks);
        if (!blockRoutes.isEmpty() && blockRoutes.size() != blocks.size()) {
            throw new IllegalArgumentException(blockRoutes.size() + " block routes for " + blocks.size() + " blocks");
        }
    }

    public FetchedBlocks(String route, List<BlockBytes> blocks, List<String> blockRoutes)
    {
        this(route, blocks, blockRoutes, List.of());
    }

    public FetchedBlocks(String route, List<BlockBytes> blocks)
    {
        this(route, blocks, List.of(), List.of());
    }

    /** The same blocks (their ownership moves to the result), with the fallback steps {@code steps} taken to get them. */
    public FetchedBlocks withFallbacks(List<String> steps)
    {
        return steps.isEmpty() ? this : new FetchedBlocks(route, blocks, blockRoutes, steps);
    }

    /** The route that carried block {@code index}. */
    public String routeOf(int index)
    {
        return blockRoutes.isEmpty() ? route : blockRoutes.get(index);
    }

    @Override
    public void close()
    {
        blocks.forEach(BlockBytes::close);
    }
}
