package dev.ferry.shuffle.format;

import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;

/** The writer's codec for a {@link CompressionKind}, and the reader's factory for any codec id found on the wire. */
public final class BufferCodecs
        implements CompressionCodec.Factory
{
    public static final BufferCodecs READER = new BufferCodecs();

    private BufferCodecs() {}

    public static CompressionCodec forWriting(CompressionKind kind, long minCompressBytes, int zstdLevel)
    {
        switch (kind) {
            case NONE:
                return NoCompressionCodec.INSTANCE;
            case LZ4:
                return new Lz4FrameCodec(minCompressBytes);
            case ZSTD:
                return new ZstdCodec(minCompressBytes, zstdLevel);
            case AUTO:
                throw new IllegalArgumentException("Compression 'auto' is resolved to lz4 or zstd by the map task before it writes (CodecForLink)");
        }
        throw new IllegalArgumentException("Unhandled compression " + kind);
    }

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType codecType)
    {
        switch (codecType) {
            case NO_COMPRESSION:
                return NoCompressionCodec.INSTANCE;
            case LZ4_FRAME:
                return new Lz4FrameCodec(0);
            case ZSTD:
                return new ZstdCodec(0, 1);
        }
        throw new IllegalArgumentException("Unhandled Arrow codec " + codecType);
    }

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType codecType, int compressionLevel)
    {
        return createCodec(codecType);
    }
}
