package dev.ferry.gds.io;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PageArraysTest
{
    @Test
    void anArrayGivenBackServesTheNextPageThatFits()
    {
        PageArrays pool = new PageArrays();
        byte[] first = pool.take(1_000_000);
        assertTrue(first.length >= 1_000_000);
        pool.giveBack(first);
        assertSame(first, pool.take(999_000), "a slightly smaller page reuses the array");
        assertNotSame(first, pool.take(1_000_000), "the array is out again, so the next page gets a new one");
        assertEquals(1, pool.reused());
        assertEquals(2, pool.allocated());
    }

    @Test
    void onlyArraysThePoolLentAndThatAreStillOutAreTakenBack()
    {
        PageArrays pool = new PageArrays();
        // Someone else's array (a view of the fetched chunk bytes, say) must never be handed out as a page.
        pool.giveBack(new byte[2_000_000]);
        pool.giveBack(null);
        byte[] lent = pool.take(10);
        pool.giveBack(lent);
        pool.giveBack(lent);
        assertSame(lent, pool.take(10));
        assertNotSame(lent, pool.take(10), "an array given back twice is in the idle list once");
        assertEquals(1, pool.reused());
    }

    @Test
    void tooLargeAPageForEveryIdleArrayGetsANewOneAndTheLargerArraysAreKept()
    {
        PageArrays pool = new PageArrays();
        byte[][] small = new byte[9][];
        for (int index = 0; index < small.length; index++) {
            small[index] = pool.take(100);
        }
        byte[] large = pool.take(5_000_000);
        for (byte[] array : small) {
            pool.giveBack(array);
        }
        pool.giveBack(large);
        assertSame(large, pool.take(4_000_000), "a full idle list makes room for a larger array");
        assertThrows(IllegalArgumentException.class, () -> pool.take(-1));
    }
}
