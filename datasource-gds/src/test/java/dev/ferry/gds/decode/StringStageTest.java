package dev.ferry.gds.decode;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class StringStageTest
{
    @Test
    void stagesExactlyTheValuesBytesWhateverTheirLengthAndPlace()
    {
        Random random = new Random(21);
        StringStage stage = new StringStage();
        try (BufferAllocator allocator = new RootAllocator(); VarCharVector vector = new VarCharVector("v", allocator)) {
            for (int batch = 0; batch < 3; batch++) {
                stage.reset();
                ByteArrayOutputStream expected = new ByteArrayOutputStream();
                for (int value = 0; value < 5000; value++) {
                    // Sources of every size, values at their ends (no bytes after them) and inside, lengths 0..100.
                    byte[] source = new byte[1 + random.nextInt(120)];
                    random.nextBytes(source);
                    int length = random.nextInt(Math.min(source.length, 101));
                    int offset = random.nextBoolean() ? source.length - length : random.nextInt(source.length - length + 1);
                    stage.add(source, offset, length);
                    expected.write(source, offset, length);
                    assertEquals(expected.size(), stage.end());
                }
                vector.allocateNew(16, 1);
                stage.flush(vector);
                byte[] flushed = new byte[stage.end()];
                vector.getDataBuffer().getBytes(0, flushed);
                assertArrayEquals(expected.toByteArray(), flushed, "batch " + batch);
                vector.clear();
            }
        }
    }
}
