package dev.ferry.examples.bench.shuffle;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of every process this JVM started (the executors of a {@code local-cluster} master are
 * its children), from {@code /proc/<pid>/stat}: all of their threads, GC, JIT and network threads
 * included, which a task's {@code executorCpuTime} (the task thread alone) leaves out. On a machine
 * whose cores the executors share, that other CPU slows the tasks as much as their own does.
 * Linux only; elsewhere {@link #available()} is false and the benchmark says so.
 */
public final class ExecutorProcessCpu
{
    // USER_HZ: the unit of utime and stime in /proc/<pid>/stat; 100 on every Linux this runs on.
    private static final long NANOS_PER_TICK = 10_000_000L;

    private ExecutorProcessCpu() {}

    public static boolean available()
    {
        return Files.isDirectory(Path.of("/proc", "self"));
    }

    /**
     * CPU nanoseconds of the live threads of this JVM's child processes, by thread name with its digits
     * dropped ("Executor task launch worker for task 12" and "...13" are one entry); empty where /proc is
     * unreadable. Threads that ended since an earlier call are missing, so compare differences of
     * long-lived threads (GC, JIT, pools).
     */
    public static Map<String, Long> childThreadCpuNanos()
    {
        Map<String, Long> byName = new TreeMap<>();
        ProcessHandle.current().children().forEach(child -> {
            Path tasks = Path.of("/proc", Long.toString(child.pid()), "task");
            try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
                for (Path thread : threads) {
                    String stat;
                    try {
                        stat = Files.readString(thread.resolve("stat"));
                    }
                    catch (IOException gone) {
                        // The thread ended between listing and reading.
                        continue;
                    }
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+", "#");
                    byName.merge(name, cpuNanos(stat), Long::sum);
                }
            }
            catch (IOException e) {
                // The child ended: nothing of it to count.
            }
        });
        return byName;
    }

    /** User plus system CPU nanoseconds of this JVM's live child processes, or -1 where /proc is unreadable. */
    public static long childrenCpuNanos()
    {
        long[] nanos = {0};
        boolean[] unreadable = {false};
        ProcessHandle.current().children().forEach(child -> {
            try {
                nanos[0] += cpuNanos(Files.readString(Path.of("/proc", Long.toString(child.pid()), "stat")));
            }
            catch (IOException e) {
                // A child that ended between listing and reading is no executor of this run; an unreadable /proc is.
                unreadable[0] |= !Files.isDirectory(Path.of("/proc", "self"));
            }
        });
        return unreadable[0] ? -1 : nanos[0];
    }

    /** utime plus stime (fields 14 and 15 of proc(5), counted after the parenthesised command name) of one stat line. */
    static long cpuNanos(String stat)
    {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
    }
}
