package dev.ferry.gds.decode;

import static java.util.Objects.requireNonNull;

/**
 * A decoder's answer for one column chunk: it decodes it, or it does not and {@code reason} says
 * why in words a user reads in the scan's counters ("nested column", "encoding DELTA_BINARY_PACKED").
 */
public record DecodeSupport(boolean supported, String reason)
{
    private static final DecodeSupport DECODES = new DecodeSupport(true, "");

    public DecodeSupport
    {
        requireNonNull(reason, "reason is null");
        if (!supported && reason.isEmpty()) {
            throw new IllegalArgumentException("a refused chunk needs a reason");
        }
    }

    public static DecodeSupport decodes()
    {
        return DECODES;
    }

    public static DecodeSupport refused(String reason)
    {
        return new DecodeSupport(false, reason);
    }
}
