package dev.ferry.gds.aggregate;

/** The aggregate functions a gds scan computes partially; Spark finishes each with the same function (COUNT with SUM). */
public enum AggregateKind
{
    COUNT_STAR,
    COUNT,
    SUM,
    MIN,
    MAX
}
