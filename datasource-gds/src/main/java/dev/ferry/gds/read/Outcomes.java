package dev.ferry.gds.read;

/**
 * A row's filter result as the set of SQL outcomes it may have, one bit each: a definite result is
 * one bit, a filter {@link RowFilter} cannot evaluate is all three. AND, OR and NOT apply SQL's
 * three-valued logic to every pair of possible outcomes, so "may be true" is never lost.
 */
final class Outcomes
{
    static final byte TRUE = 1;
    static final byte FALSE = 2;
    static final byte NULL = 4;
    static final byte ANY = TRUE | FALSE | NULL;

    // Indexed by (left << 3) | right.
    private static final byte[] AND = new byte[64];
    private static final byte[] OR = new byte[64];
    private static final byte[] NOT = new byte[8];

    static {
        for (int left = 0; left < 8; left++) {
            for (int right = 0; right < 8; right++) {
                byte and = 0;
                byte or = 0;
                for (int a = 1; a <= NULL; a <<= 1) {
                    for (int b = 1; b <= NULL; b <<= 1) {
                        if ((left & a) != 0 && (right & b) != 0) {
                            and |= and(a, b);
                            or |= or(a, b);
                        }
                    }
                }
                AND[(left << 3) | right] = and;
                OR[(left << 3) | right] = or;
            }
            byte not = 0;
            if ((left & TRUE) != 0) {
                not |= FALSE;
            }
            if ((left & FALSE) != 0) {
                not |= TRUE;
            }
            if ((left & NULL) != 0) {
                not |= NULL;
            }
            NOT[left] = not;
        }
    }

    private Outcomes() {}

    static byte and(byte left, byte right)
    {
        return AND[(left << 3) | right];
    }

    static byte or(byte left, byte right)
    {
        return OR[(left << 3) | right];
    }

    static byte not(byte outcomes)
    {
        return NOT[outcomes];
    }

    // One definite outcome each: FALSE wins over NULL, NULL over TRUE.
    private static byte and(int a, int b)
    {
        if (a == FALSE || b == FALSE) {
            return FALSE;
        }
        return a == NULL || b == NULL ? NULL : TRUE;
    }

    // TRUE wins over NULL, NULL over FALSE.
    private static byte or(int a, int b)
    {
        if (a == TRUE || b == TRUE) {
            return TRUE;
        }
        return a == NULL || b == NULL ? NULL : FALSE;
    }
}
