package dev.ferry.shuffle.reader;

/**
 * Throws a checked exception (Spark's FetchFailedException) from a Scala iterator method, which
 * cannot declare it. Spark matches the exception itself, so it must not be wrapped needlessly.
 */
final class SneakyThrow
{
    private SneakyThrow() {}

    static RuntimeException sneakyThrow(Throwable throwable)
    {
        return SneakyThrow.<RuntimeException>throwAs(throwable);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T throwAs(Throwable throwable)
            throws T
    {
        throw (T) throwable;
    }
}
