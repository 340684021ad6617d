package dev.ferry.shuffle.transport;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Idle landing buffers are kept by size class up to the retained bytes, handed back once each, and drained whole. */
class TestIdleLandingBuffers
{
    @Test
    void sizeClassesArePowersOfTwoFrom64KiB()
    {
        assertEquals(64 << 10, IdleLandingBuffers.sizeClass(1));
        assertEquals(64 << 10, IdleLandingBuffers.sizeClass(64 << 10));
        assertEquals(128 << 10, IdleLandingBuffers.sizeClass((64 << 10) + 1));
        assertEquals(32 << 20, IdleLandingBuffers.sizeClass(32 << 20));
    }

    @Test
    void keepsUpToTheRetainedBytesAndHandsEachBufferBackOnceInItsSizeClass()
    {
        IdleLandingBuffers<String> idle = new IdleLandingBuffers<>(192 << 10);
        assertTrue(idle.keep("a", 64 << 10));
        assertTrue(idle.keep("b", 128 << 10));
        assertFalse(idle.keep("c", 64 << 10), "a third would pass the 192 KiB retained");
        assertEquals(192 << 10, idle.idleBytes());
        assertNull(idle.take(256 << 10), "no buffer of another size class");
        assertSame("b", idle.take(128 << 10));
        assertNull(idle.take(128 << 10), "each buffer handed out once");
        assertEquals(64 << 10, idle.idleBytes());
        assertEquals(List.of("a"), idle.drain());
        assertEquals(0, idle.idleBytes());
        assertNull(idle.take(64 << 10));
        assertThrows(IllegalArgumentException.class, () -> new IdleLandingBuffers<>(-1));
    }
}
