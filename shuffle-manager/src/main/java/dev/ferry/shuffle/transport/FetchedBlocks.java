package dev.ferry.shuffle.transport;

import java.util.List;

import dev.ferry.shuffle.store.BlockBytes;

import static java.util.Objects.requireNonNull;

/** The answer to one fetch: the blocks in request order, and the route that carried them (for metrics and logs). */
public record FetchedBlocks(String route, List<BlockBytes> blocks)
        implements AutoCloseable
{
    public FetchedBlocks
    {
        requireNonNull(route, "route is null");
        blocks = List.copyOf(blocks);
    }

    @Override
    public void close()
    {
        blocks.forEach(BlockBytes::close);
    }
}
