package dev.ferry.topology.probe.nvml;

import static java.util.Objects.requireNonNull;

/** An NVML call returned an error code. */
public final class NvmlCallException
        extends RuntimeException
{
    private final String function;
    private final int code;

    public NvmlCallException(String function, int code, String description)
    {
        super(function + " failed: " + requireNonNull(description, "description is null") + " (" + code + ")");
        this.function = requireNonNull(function, "function is null");
        this.code = code;
    }

    public String function()
    {
        return function;
    }

    /** The {@code nvmlReturn_t} value, e.g. 3 for {@code NVML_ERROR_NOT_SUPPORTED}. */
    public int code()
    {
        return code;
    }
}
