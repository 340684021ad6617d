package dev.ferry.shuffle.transport.crypto;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import dev.ferry.shuffle.transport.TestBytes;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The encrypted record streams: round trips across record sizes, and every kind of tampering refused. */
class TestGcmStreams
{
    private static final DirectionKey KEY = new DirectionKey(TestBytes.bytes(1, 16), TestBytes.bytes(2, 4));
    private static final DirectionKey OTHER = new DirectionKey(TestBytes.bytes(3, 16), TestBytes.bytes(2, 4));

    private static byte[] seal(byte[] plaintext, int... flushesAt)
            throws IOException
    {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        GcmOutputStream out = new GcmOutputStream(wire, KEY);
        int from = 0;
        for (int at : flushesAt) {
            out.write(plaintext, from, at - from);
            out.flush();
            from = at;
        }
        out.write(plaintext, from, plaintext.length - from);
        out.flush();
        return wire.toByteArray();
    }

    private static byte[] open(byte[] wire, DirectionKey key)
            throws IOException
    {
        return new GcmInputStream(new ByteArrayInputStream(wire), key).readAllBytes();
    }

    @Test
    void roundTripsAcrossRecords()
            throws IOException
    {
        byte[] plaintext = TestBytes.bytes(5, 300_000);
        byte[] wire = seal(plaintext, 1, 17, 70_000);
        assertArrayEquals(plaintext, open(wire, KEY));
        // At least seven records (three flushes, then 64 KiB records), each with its 4-byte length and 16-byte tag.
        assertTrue(wire.length >= plaintext.length + 7 * 20, "records and tags: " + wire.length);
        assertEquals(-1, TestBytes.indexOf(wire, Arrays.copyOfRange(plaintext, 1000, 1016)), "no plaintext in the ciphertext");
    }

    @Test
    void tamperingWrongKeysReorderingAndHugeLengthsAreRefused()
    {
        byte[] plaintext = TestBytes.bytes(6, 100_000);
        byte[][] wire = new byte[1][];
        try {
            wire[0] = seal(plaintext, 50_000);
        }
        catch (IOException e) {
            throw new AssertionError(e);
        }
        byte[] flipped = wire[0].clone();
        flipped[100] ^= 1;
        assertTrue(assertThrows(IOException.class, () -> open(flipped, KEY)).getMessage().contains("failed authentication"));
        assertThrows(IOException.class, () -> open(wire[0], OTHER));
        // Swap the first record behind the others: each record is authentic, but not in that place.
        int first = ByteBuffer.wrap(wire[0]).getInt(0) + 4;
        byte[] swapped = new byte[wire[0].length];
        System.arraycopy(wire[0], first, swapped, 0, wire[0].length - first);
        System.arraycopy(wire[0], 0, swapped, wire[0].length - first, first);
        assertThrows(IOException.class, () -> open(swapped, KEY));
        byte[] huge = ByteBuffer.allocate(8).putInt(700 << 20).array();
        assertTrue(assertThrows(IOException.class, () -> open(huge, KEY)).getMessage().contains("outside"));
        byte[] cut = Arrays.copyOf(wire[0], wire[0].length - 5);
        assertThrows(IOException.class, () -> new DataInputStream(new GcmInputStream(new ByteArrayInputStream(cut), KEY)).readFully(new byte[plaintext.length]));
    }

    @Test
    void keysNeverPrint()
    {
        assertFalse(KEY.toString().matches(".*[0-9a-f]{8}.*"), KEY.toString());
    }
}
