package dev.ferry.device.cuda;

import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The pointer arithmetic the CUDA backend relies on for host copies and pinned views. Runs
 * without a GPU: it touches only JavaCPP's core natives, never the CUDA presets.
 */
public class TestHostPointers
{
    @Test
    public void pointersAndViewsAddressTheSameBytes()
    {
        ByteBuffer direct = ByteBuffer.allocateDirect(64);
        for (int i = 0; i < 64; i++) {
            direct.put(i, (byte) i);
        }
        Pointer base = HostPointers.at(direct);
        Pointer shifted = HostPointers.at(direct.position(10));
        assertEquals(base.address() + 10, shifted.address());
        assertEquals(0, shifted.position());

        ByteBuffer view = HostPointers.view(new AddressPointer(base.address() + 20), 5);
        assertEquals(5, view.remaining());
        for (int i = 0; i < 5; i++) {
            assertEquals((byte) (20 + i), view.get(i));
        }
        view.put(0, (byte) 99);
        assertEquals((byte) 99, direct.get(20), "the view writes through to the same memory");
        assertThrows(IllegalArgumentException.class, () -> HostPointers.at(ByteBuffer.allocate(8)));
    }
}
