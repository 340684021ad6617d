package dev.ferry.shuffle.format;

import java.io.IOException;

/** A shuffle block whose bytes are not what the map task wrote; the reader turns it into a fetch failure. */
public final class CorruptBlockException
        extends IOException
{
    public CorruptBlockException(String message)
    {
        super(message);
    }

    public CorruptBlockException(String message, Throwable cause)
    {
        super(message, cause);
    }
}
