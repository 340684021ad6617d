package dev.ferry.shuffle.store;

/** The {@code spark.ferry.shuffle.stage} choice: where map outputs are kept. */
public enum ShuffleStage
{
    AUTO,
    DEVICE,
    HOST,
}
