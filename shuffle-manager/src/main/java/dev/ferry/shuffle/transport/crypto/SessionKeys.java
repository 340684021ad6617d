package dev.ferry.shuffle.transport.crypto;

import static java.util.Objects.requireNonNull;

/** The keys one side of an authenticated connection encrypts with ({@code send}) and decrypts with ({@code receive}). */
public record SessionKeys(DirectionKey send, DirectionKey receive)
{
    public SessionKeys
    {
        requireNonNull(send, "send is null");
        requireNonNull(receive, "receive is null");
        if (send.equals(receive)) {
            throw new IllegalArgumentException("Both directions of a connection must not share a key");
        }
    }
}
