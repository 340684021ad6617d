package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

/**
 * The wire layout shared by responses that answer a block with an opaque handle
 * ({@link ShmBlockResponse}, {@link IpcBlockResponse}): {@code long requestId}, {@code int index},
 * {@code int length} and the handle's {@code length} bytes, which end the message.
 */
final class BlockHandleCodec
{
    private static final int MAX_HANDLE_BYTES = 4096;

    /** Builds a response from its decoded fields. */
    @FunctionalInterface
    interface Factory<T>
    {
        T create(long requestId, int index, byte[] handle);
    }

    private BlockHandleCodec() {}

    /** Checks the fields of a response named {@code what} (e.g. "IPC") and returns a private copy of its handle. */
    static byte[] checkedCopy(String what, int index, byte[] handle)
    {
        if (index < 0 || handle.length == 0 || handle.length > MAX_HANDLE_BYTES) {
            throw new IllegalArgumentException("Invalid " + what + " block response: index " + index + ", handle of " + handle.length + " bytes");
        }
        return handle.clone();
    }

    static int encodedLength(byte[] handle)
    {
        return Long.BYTES + Integer.BYTES + Integer.BYTES + handle.length;
    }

    static void encode(ByteBuffer target, long requestId, int index, byte[] handle)
    {
        target.putLong(requestId);
        target.putInt(index);
        target.putInt(handle.length);
        target.put(handle);
    }

    static <T> T decode(ByteBuffer source, String what, Factory<T> factory)
    {
        long requestId = source.getLong();
        int index = source.getInt();
        int length = source.getInt();
        if (length != source.remaining()) {
            throw new IllegalArgumentException(Character.toUpperCase(what.charAt(0)) + what.substring(1) + " block response claims a " + length
                    + "-byte handle in " + source.remaining() + " bytes");
        }
        byte[] handle = new byte[length];
        source.get(handle);
        return factory.create(requestId, index, handle);
    }

    /** Value equality of two handle responses (a record would compare the handle arrays by identity). */
    static boolean sameResponse(long requestId, int index, byte[] handle, long otherRequestId, int otherIndex, byte[] otherHandle)
    {
        return requestId == otherRequestId && index == otherIndex && java.util.Arrays.equals(handle, otherHandle);
    }

    static int responseHash(long requestId, int index, byte[] handle)
    {
        return (Long.hashCode(requestId) * 31 + index) * 31 + java.util.Arrays.hashCode(handle);
    }
}
