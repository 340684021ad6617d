package dev.ferry.shuffle.transport.rdma.verbs;

import static java.util.Objects.requireNonNull;

/** Whether a verbs provider can be used in this JVM, and why (or why not): decided once, then cached. */
public record VerbsAvailability(boolean available, String reason)
{
    public VerbsAvailability
    {
        requireNonNull(reason, "reason is null");
    }
}
