package dev.ferry.it;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.ferry.gds.api.DevicePartition;
import dev.ferry.gds.api.DevicePartitionFunction;
import org.apache.spark.SparkEnv;

/**
 * {@link DeviceRepartitionRun.RenderRows}, leaving a file per call started and per call finished
 * in a directory every executor JVM of the local cluster sees, so a test can count how often the
 * function ran per partition. Stalling: the first call on an executor named in the holders file
 * ({@link #writeHolders}) claims that executor as the victim ({@link #victim}) and waits there to
 * be killed, so the executor dies during the reduce job.
 */
final class CountedRenderRows
        implements DevicePartitionFunction<ArrayList<String>>
{
    private static final long serialVersionUID = 1L;
    private static final String HOLDERS = "holders";
    private static final String CLAIM = "victim.claim";
    private static final String VICTIM_PREFIX = "victim-";

    private final String directory;
    private final boolean stallOnHolder;

    CountedRenderRows(Path directory, boolean stallOnHolder)
    {
        this.directory = directory.toString();
        this.stallOnHolder = stallOnHolder;
    }

    @Override
    public ArrayList<String> call(DevicePartition partition)
            throws Exception
    {
        Path dir = Path.of(directory);
        String executor = SparkEnv.get().executorId();
        Files.createFile(dir.resolve("started-" + partition.partitionId() + "-" + UUID.randomUUID()));
        if (stallOnHolder && Set.copyOf(Files.readAllLines(dir.resolve(HOLDERS))).contains(executor) && claim(dir)) {
            Files.createFile(dir.resolve(VICTIM_PREFIX + executor));
            Thread.sleep(TimeUnit.SECONDS.toMillis(180));
            throw new IllegalStateException("Executor " + executor + " was not killed within 180 s of stalling partition " + partition.partitionId());
        }
        ArrayList<String> rows = new DeviceRepartitionRun.RenderRows().call(partition);
        Files.createFile(dir.resolve("finished-" + partition.partitionId() + "-" + UUID.randomUUID()));
        return rows;
    }

    private static boolean claim(Path dir)
            throws IOException
    {
        try {
            Files.createFile(dir.resolve(CLAIM));
            return true;
        }
        catch (FileAlreadyExistsException e) {
            return false;
        }
    }

    /** On the driver: the executors holding map outputs, which the stalling function picks its victim from. */
    static void writeHolders(Path directory, Set<String> executors)
            throws IOException
    {
        Path temporary = directory.resolve(HOLDERS + ".tmp");
        Files.write(temporary, executors);
        Files.move(temporary, directory.resolve(HOLDERS), StandardCopyOption.ATOMIC_MOVE);
    }

    /** The executor the stalling function claimed, once it did (at most {@code seconds}). */
    static String victim(Path directory, int seconds)
            throws IOException, InterruptedException
    {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            try (Stream<Path> files = Files.list(directory)) {
                List<String> victims = files.map(file -> file.getFileName().toString()).filter(name -> name.startsWith(VICTIM_PREFIX)).toList();
                if (!victims.isEmpty()) {
                    return victims.get(0).substring(VICTIM_PREFIX.length());
                }
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("No reduce call stalled on an executor holding map outputs within " + seconds + " s");
    }

    /** Per partition, how many calls started ({@code "started"}) or finished ({@code "finished"}). */
    static Map<Integer, Integer> calls(Path directory, String kind)
            throws IOException
    {
        Map<Integer, Integer> counts = new TreeMap<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (String name : files.map(file -> file.getFileName().toString()).filter(name -> name.startsWith(kind + "-")).toList()) {
                counts.merge(Integer.parseInt(name.split("-")[1]), 1, Integer::sum);
            }
        }
        return counts;
    }
}
