package dev.ferry.gds.spark;

/** An exception's messages down its cause chain, on one line. */
final class ParquetTestingCorpusTestMessages
{
    private ParquetTestingCorpusTestMessages() {}

    static String full(Throwable error)
    {
        StringBuilder message = new StringBuilder();
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            message.append(cause.getClass().getSimpleName()).append(": ").append(cause.getMessage()).append(" | ");
        }
        return message.toString().replace('\n', ' ');
    }
}
