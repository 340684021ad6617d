package dev.ferry.shuffle.transport.auth;

import java.io.IOException;

/** A peer failed authentication, or authentication could not be completed with it; the message names the peer. */
public final class AuthenticationException
        extends IOException
{
    public AuthenticationException(String message, Throwable cause)
    {
        super(message, cause);
    }
}
