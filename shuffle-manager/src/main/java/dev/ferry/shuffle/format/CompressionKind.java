package dev.ferry.shuffle.format;

/** How the buffers of a shuffled Arrow batch are compressed; LZ4 frame and ZSTD come with Spark. */
public enum CompressionKind
{
    NONE,
    LZ4,
    ZSTD,
}
