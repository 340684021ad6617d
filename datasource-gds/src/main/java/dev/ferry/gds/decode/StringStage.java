package dev.ferry.gds.decode;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;

import java.util.Arrays;

/**
 * A batch's string bytes, gathered with System.arraycopy and moved into the Arrow data buffer in one
 * copy per batch: a heap-to-off-heap Unsafe copy per value cost more than the bytes themselves for
 * short strings (JFR: half of q3's decode time). Kept across batches so its array is reused.
 */
final class StringStage
{
    private byte[] stage = new byte[0];
    // Where the next string's bytes go, which is also the next Arrow offset.
    private int end;

    void reset()
    {
        end = 0;
    }

    /** The offset after the bytes staged so far. */
    int end()
    {
        return end;
    }

    void add(byte[] bytes, int offset, int length)
    {
        int next = end + length;
        if (next > stage.length) {
            if (next < 0) {
                throw new IllegalStateException("more than 2 GiB of string bytes in one batch");
            }
            stage = Arrays.copyOf(stage, (int) Math.min(Integer.MAX_VALUE - 8, Math.max((long) next, 2L * stage.length + 1024)));
        }
        System.arraycopy(bytes, offset, stage, end, length);
        end = next;
    }

    /** Moves the batch's staged bytes into {@code vector}'s data buffer (grown to fit) in one copy. */
    void flush(BaseVariableWidthVector vector)
    {
        if (end == 0) {
            return;
        }
        if (end > vector.getDataBuffer().capacity()) {
            vector.reallocDataBuffer(end);
        }
        MemoryUtil.copyToMemory(stage, 0, vector.getDataBufferAddress(), end);
    }
}
