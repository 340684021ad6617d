package dev.ferry.shuffle.reader;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A fake TCP transport for the reader's tests: a fetch answers every block with the bytes
 * {@link #bytesOf} gives it, in buffers of the fetch's own allocator (so the tests' allocators see
 * every block freed). A test hooks in before the answer (to hold, watch or fail the fetch) and after
 * it (to fail it late, or to add fallback steps); a fetch that fails frees the buffers it made.
 */
abstract class AnsweringTransport
        implements ShuffleTransport
{
    /** The bytes block {@code ref} is answered with. */
    abstract byte[] bytesOf(ShuffleBlockRef ref);

    /** Runs as a fetch starts; throwing fails it before any buffer is made. */
    void beforeAnswer(PeerAddress peer, List<ShuffleBlockRef> blocks)
            throws IOException
    {}

    /** The fetch's answer, given the blocks made; a runtime exception here frees them and fails the fetch. */
    FetchedBlocks answer(FetchedBlocks fetched)
    {
        return fetched;
    }

    @Override
    public final String routeName()
    {
        return "TCP";
    }

    @Override
    public final FetchedBlocks fetch(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator target)
            throws IOException
    {
        beforeAnswer(peer, blocks);
        List<BlockBytes> fetched = new ArrayList<>();
        try {
            for (ShuffleBlockRef ref : blocks) {
                byte[] bytes = bytesOf(ref);
                ArrowBuf buffer = target.buffer(bytes.length);
                buffer.setBytes(0, bytes);
                fetched.add(new BlockBytes(buffer, bytes.length));
            }
            return answer(new FetchedBlocks("TCP", fetched));
        }
        catch (RuntimeException e) {
            fetched.forEach(BlockBytes::close);
            throw e;
        }
    }

    @Override
    public void close() {}
}
