package dev.ferry.gds.decode.cuda;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Page bodies built by hand for the device decoder's host-side tests: PLAIN ints, parts laid end to end, filler bytes that count up. */
final class PageBytes
{
    private PageBytes() {}

    /** {@code values} as PLAIN INT32: 4 little-endian bytes each. */
    static byte[] ints(int... values)
    {
        ByteBuffer buffer = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int value : values) {
            buffer.putInt(value);
        }
        return buffer.array();
    }

    static byte[] concat(byte[]... parts)
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** {@code count} bytes {@code first, first + 1, ...}: filler that shows where a copy took its bytes from. */
    static byte[] counting(int first, int count)
    {
        byte[] bytes = new byte[count];
        for (int i = 0; i < count; i++) {
            bytes[i] = (byte) (first + i);
        }
        return bytes;
    }
}
