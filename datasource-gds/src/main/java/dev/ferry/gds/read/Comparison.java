package dev.ferry.gds.read;

/**
 * A pushed comparison, applied to the sign of compare(row value, literal): the one place a comparison is
 * dispatched, for every column type's row loop ({@link ColumnValues#compareRows} and its hot-case overrides).
 */
enum Comparison
{
    EQ, LT, LE, GT, GE;

    boolean holds(int sign)
    {
        switch (this) {
            case EQ:
                return sign == 0;
            case LT:
                return sign < 0;
            case LE:
                return sign <= 0;
            case GT:
                return sign > 0;
            case GE:
                return sign >= 0;
        }
        throw new IllegalStateException("Unknown comparison " + this);
    }

    /** A non-null row's outcome ({@link Outcomes#TRUE} or {@link Outcomes#FALSE}) given the sign of compare(row value, literal). */
    byte outcome(int sign)
    {
        return holds(sign) ? Outcomes.TRUE : Outcomes.FALSE;
    }
}
