package dev.ferry.examples.bench.shuffle;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class TestExecutorProcessCpu
{
    @Test
    void readsUserAndSystemTicksAfterTheCommandName()
    {
        // A command name with spaces and a parenthesis must not shift the fields.
        String stat = "4242 (Executor (x) 1) S 4000 4242 4000 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 40 0 123 456 789";
        assertEquals(300 * 10_000_000L, ExecutorProcessCpu.cpuNanos(stat));
    }

    @Test
    void countsTheCpuOfAChildProcessAndItsThreads()
            throws Exception
    {
        assumeTrue(ExecutorProcessCpu.available(), "needs Linux /proc");
        long before = ExecutorProcessCpu.childrenCpuNanos();
        // Spins in the shell itself (no child commands, whose CPU would be its children's), then stays alive.
        Process child = new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 50000000 ]; do i=$((i + 1)); done; sleep 30").start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            long spent = 0;
            while (spent < 200_000_000L && System.nanoTime() < deadline) {
                Thread.sleep(50);
                spent = ExecutorProcessCpu.childrenCpuNanos() - before;
            }
            assertTrue(spent >= 200_000_000L, "the spinning child's CPU was not counted: " + spent + " ns");
            long threads = ExecutorProcessCpu.childThreadCpuNanos().values().stream().mapToLong(Long::longValue).sum();
            assertTrue(threads >= 200_000_000L, "the child's threads' CPU was not counted: " + threads + " ns");
        }
        finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
