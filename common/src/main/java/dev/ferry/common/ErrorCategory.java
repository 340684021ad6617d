package dev.ferry.common;

/** Who has to act on an error: the user, Ferry's developers, the operator, or the world outside. */
public enum ErrorCategory
{
    /** Bad input or configuration: a malformed file, an unknown option value. */
    USER_ERROR,
    /** A bug in Ferry: a broken invariant. */
    INTERNAL_ERROR,
    /** Out of memory, disk or device capacity. */
    INSUFFICIENT_RESOURCES,
    /** A library, driver, device or peer outside Ferry failed or is missing. */
    EXTERNAL,
}
