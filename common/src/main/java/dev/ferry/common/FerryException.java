package dev.ferry.common;

import static java.util.Objects.requireNonNull;

/** An error with a category, so callers and users know whose move it is. */
public class FerryException
        extends RuntimeException
{
    private final ErrorCategory category;

    public FerryException(ErrorCategory category, String message)
    {
        super(message);
        this.category = requireNonNull(category, "category is null");
    }

    public FerryException(ErrorCategory category, String message, Throwable cause)
    {
        super(message, cause);
        this.category = requireNonNull(category, "category is null");
    }

    public ErrorCategory category()
    {
        return category;
    }
}
