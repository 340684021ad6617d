package dev.ferry.examples.demo;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.shuffle.ExchangeMetrics;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Bytes each executor's reduce tasks read over each route, from the task-end updates of Ferry's
 * per-route exchange metrics ("bytes read via ROUTE"). The exchange's SQL metric only has the sum
 * over all tasks; split by reading executor, and with the executors' places in the topology, the
 * bytes can be put on the links that carried them. Updates that are not numbers are counted, not
 * dropped silently.
 */
final class ExecutorRouteBytes
        extends SparkListener
{
    private static final String PREFIX = "bytes read via ";

    private final Map<String, Map<String, AtomicLong>> byExecutor = new ConcurrentHashMap<>();
    private final AtomicLong unreadableUpdates = new AtomicLong();
    private volatile boolean recording;

    void recording(boolean on)
    {
        recording = on;
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd taskEnd)
    {
        if (!recording || taskEnd.taskInfo() == null) {
            return;
        }
        String executor = taskEnd.taskInfo().executorId();
        for (AccumulableInfo info : CollectionConverters.asJava(taskEnd.taskInfo().accumulables())) {
            if (info.name().isEmpty() || !info.name().get().startsWith(PREFIX) || info.update().isEmpty()) {
                continue;
            }
            String route = info.name().get().substring(PREFIX.length());
            if (!ExchangeMetrics.ROUTES.contains(route)) {
                continue;
            }
            if (!(info.update().get() instanceof Number number)) {
                unreadableUpdates.incrementAndGet();
                continue;
            }
            long bytes = Math.max(0, number.longValue());
            if (bytes > 0) {
                byExecutor.computeIfAbsent(executor, key -> new ConcurrentHashMap<>()).computeIfAbsent(route, key -> new AtomicLong()).addAndGet(bytes);
            }
        }
    }

    /** Executor id to route to bytes read, sorted. */
    Map<String, Map<String, Long>> snapshot()
    {
        Map<String, Map<String, Long>> copy = new TreeMap<>();
        byExecutor.forEach((executor, routes) -> {
            Map<String, Long> perRoute = new TreeMap<>();
            routes.forEach((route, bytes) -> perRoute.put(route, bytes.get()));
            copy.put(executor, perRoute);
        });
        return copy;
    }

    long unreadableUpdates()
    {
        return unreadableUpdates.get();
    }
}
