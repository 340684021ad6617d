package dev.ferry.shuffle.transport.rdma.verbs;

import java.io.IOException;

/** A verbs call failed: registration, connection, posting or polling. Checked, like DiSNI's IOExceptions. */
public class VerbsException
        extends IOException
{
    public VerbsException(String message)
    {
        super(message);
    }

    public VerbsException(String message, Throwable cause)
    {
        super(message, cause);
    }
}
