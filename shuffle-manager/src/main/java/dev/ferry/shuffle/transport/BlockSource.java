package dev.ferry.shuffle.transport;

import java.io.IOException;
import java.util.Optional;

import dev.ferry.shuffle.store.BlockBytes;

/** What a block server serves from: this executor's map outputs. */
@FunctionalInterface
public interface BlockSource
{
    Optional<BlockBytes> open(ShuffleBlockRef block)
            throws IOException;
}
