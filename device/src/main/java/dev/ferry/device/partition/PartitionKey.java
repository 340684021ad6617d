package dev.ferry.device.partition;

import static java.util.Objects.requireNonNull;

/** A key: column {@code column} of the batch, hashed as {@code kind}. Keys hash in the order given. */
public record PartitionKey(int column, PartitionKeyKind kind)
{
    public PartitionKey
    {
        requireNonNull(kind, "kind is null");
    }
}
