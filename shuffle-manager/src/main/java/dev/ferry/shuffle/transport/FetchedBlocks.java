package dev.ferry.shuffle.transport;

import java.util.List;

import dev.ferry.shuffle.store.BlockBytes;

import static java.util.Objects.requireNonNull;

/**
 * The answer to one fetch: the blocks in request order, and the route that carried them (for
 * metrics and logs); {@code blockRoutes}, when not empty, the route of each block where they differ
 * (a device route whose peer had spilled some blocks off its GPU sends those through host memory).
 */
public record FetchedBlocks(String route, List<BlockBytes> blocks, List<String> blockRoutes)
        implements AutoCloseable
{
    public FetchedBlocks
    {
        requireNonNull(route, "route is null");
        blocks = List.copyOf(blocks);
        blockRoutes = List.copyOf(blockRoutes);
        if (!blockRoutes.isEmpty() && blockRoutes.size() != blocks.size()) {
            throw new IllegalArgumentException(blockRoutes.size() + " block routes for " + blocks.size() + " blocks");
        }
    }

    public FetchedBlocks(String route, List<BlockBytes> blocks)
    {
        this(route, blocks, List.of());
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
