package dev.ferry.device.cufile;

import java.util.Objects;

import static java.util.Objects.requireNonNull;

/** The read path decided for a file and the reason, so every fallback can be logged and counted. */
public final class ReadPathVerdict
{
    private final ReadPath path;
    private final String reason;

    public ReadPathVerdict(ReadPath path, String reason)
    {
        this.path = requireNonNull(path, "path is null");
        this.reason = requireNonNull(reason, "reason is null");
    }

    public ReadPath path()
    {
        return path;
    }

    public String reason()
    {
        return reason;
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof ReadPathVerdict && path == ((ReadPathVerdict) other).path && reason.equals(((ReadPathVerdict) other).reason);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(path, reason);
    }

    @Override
    public String toString()
    {
        return path + " (" + reason + ")";
    }
}
