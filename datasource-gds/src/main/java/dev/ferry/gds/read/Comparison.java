package dev.ferry.gds.read;

/** A pushed comparison, applied to the sign of compare(row value, literal). */
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
}
