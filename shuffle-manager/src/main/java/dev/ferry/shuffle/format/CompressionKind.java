package dev.ferry.shuffle.format;

/**
 * How the buffers of a shuffled Arrow batch are compressed; LZ4 frame and ZSTD come with Spark.
 * {@link #AUTO} is a setting, not a codec: each map task resolves it to LZ4 or ZSTD from its node's
 * link ({@code dev.ferry.shuffle.CodecForLink}); the codec of every batch is in its IPC
 * message, so a reader takes batches of both.
 */
public enum CompressionKind
{
    NONE,
    LZ4,
    ZSTD,
    AUTO,
}
