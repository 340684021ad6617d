package dev.ferry.repartition;

import dev.ferry.shuffle.format.CorruptBlockException;
import dev.ferry.shuffle.transport.RouteUnavailableException;
import dev.ferry.shuffle.transport.auth.AuthenticationException;
import org.apache.spark.SparkEnv;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Decides whether a map's executor is gone, so its blocks are lost for good and its map tasks must
 * run again, rather than a fetch having failed for a reason a retry or a person must see. An
 * executor counts as gone when
 * <ul>
 * <li>the driver's block manager master no longer has it registered (Spark removed it: killed,
 *     exited, lost its heartbeat), or</li>
 * <li>connecting to its block server was refused after the transport's own connect retries
 *     ({@code spark.ferry.transport.connect.maxRetries}): a live executor's block server listens
 *     for the executor's whole life, so nothing listening means its process, and the device store
 *     with the blocks, ended before the driver noticed.</li>
 * </ul>
 * A failure that may be the peer going away (a connection closed or reset mid-fetch: a killed
 * executor's process closes its sockets moments before the driver hears of it) while the driver
 * still lists the executor waits up to {@link #DEREGISTER_WAIT} for the driver to remove it, and
 * counts as gone if it does; without that wait every such fetch would burn one of the task's
 * {@code spark.task.maxFailures} attempts.
 *
 * <p>Anything else is not a lost executor and fails the task as before: a corrupt block, a
 * timeout, a refused authentication or route, and also a live, registered executor that answers
 * that it has no such block (its store lost an output it committed: a bug to see, not to paper
 * over by rerunning the map), or whose connection broke while it stayed registered.
 */
final class ExecutorGone
{
    /** How long a fetch failure that may be the peer leaving waits for the driver to remove it (it hears of a killed executor within moments). */
    static final Duration DEREGISTER_WAIT = Duration.ofSeconds(10);

    private ExecutorGone() {}

    /** Why executor {@code executorId} counts as gone after {@code failure} of a fetch from it; empty if it does not. */
    static Optional<String> after(String executorId, Throwable failure)
            throws InterruptedIOException
    {
        return after(executorId, failure, ExecutorGone::registered, DEREGISTER_WAIT);
    }

    /** {@link #after(String, Throwable)} with {@code registered} standing for the driver and waiting at most {@code wait}. */
    static Optional<String> after(String executorId, Throwable failure, Predicate<String> registered, Duration wait)
            throws InterruptedIOException
    {
        boolean mayBeLeaving = true;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectException) {
                return Optional.of("its block server refused the connection (" + failure.getMessage() + ")");
            }
            if (cause instanceof CorruptBlockException || cause instanceof SocketTimeoutException || cause instanceof AuthenticationException
                    || cause instanceof RouteUnavailableException) {
                mayBeLeaving = false;
            }
        }
        if (!registered.test(executorId)) {
            return Optional.of("the driver no longer has it registered; the fetch failed with: " + failure.getMessage());
        }
        if (!mayBeLeaving) {
            return Optional.empty();
        }
        long start = System.nanoTime();
        while (System.nanoTime() - start < wait.toNanos()) {
            try {
                Thread.sleep(100);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while asking the driver whether executor " + executorId + " is gone");
            }
            if (!registered.test(executorId)) {
                return Optional.of("the driver removed it " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms after the fetch failed with: "
                        + failure.getMessage());
            }
        }
        return Optional.empty();
    }

    /** Whether the driver's block manager master still has executor {@code executorId} registered (asks the driver from an executor). */
    static boolean registered(String executorId)
    {
        return SparkEnv.get().blockManager().master().getExecutorEndpointRef(executorId).isDefined();
    }
}
