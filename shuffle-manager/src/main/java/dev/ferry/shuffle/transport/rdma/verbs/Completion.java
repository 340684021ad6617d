package dev.ferry.shuffle.transport.rdma.verbs;

import static java.util.Objects.requireNonNull;

/**
 * One polled work completion. Only {@code wrId} and {@code status} are trustworthy on an error
 * (DiSNI's {@code NatPollCqCall} copies nothing else and the verbs spec leaves the opcode
 * undefined), so this record carries nothing more than those and the byte count of a success.
 */
public record Completion(long wrId, CompletionStatus status, int byteLength)
{
    public Completion
    {
        requireNonNull(status, "status is null");
    }

    public boolean isSuccess()
    {
        return status == CompletionStatus.SUCCESS;
    }

    @Override
    public String toString()
    {
        return "completion of wr " + WorkRequestIds.describe(wrId) + ": " + status + (isSuccess() ? " (" + byteLength + " bytes)" : "");
    }
}
