package dev.ferry.shuffle.transport.rdma.verbs;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** The verbs layer chosen for this executor, or none, with the reason either way. */
public record VerbsSelection(Optional<VerbsProvider> provider, String reason)
{
    public VerbsSelection
    {
        requireNonNull(provider, "provider is null");
        requireNonNull(reason, "reason is null");
    }
}
