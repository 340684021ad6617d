package dev.ferry.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Fault test in local-cluster over simulated RDMA: the serving executor's process dies (halts) while serving a READ: its connections drop, Spark loses the executor and its map outputs. The fetch fails, Spark gets a
 * FetchFailedException, reruns the map stage, and the result equals Spark's own shuffle. The
 * surviving executors then learn from the driver that the dead one left and drop it (logged once each).
 */
class TestTransportFaultsPeerDies
        extends TransportFaultTest
{
    private static final Pattern DROPPED = Pattern.compile("Ferry executor (\\S+): executor (\\S+) left the cluster; closed \\d+ connection");

    TestTransportFaultsPeerDies()
    {
        super("process_dies");
    }

    @Test
    @Order(2)
    void survivingExecutorsDropTheDeadPeer()
            throws Exception
    {
        // local-cluster executors log to SPARK_HOME/work/<application>/<executor>/stderr.
        Path work = Path.of(System.getenv().getOrDefault("SPARK_HOME", "."), "work", spark().sparkContext().applicationId());
        List<String> drops = new ArrayList<>();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (drops.isEmpty() && System.nanoTime() < deadline) {
            drops = drops(work);
            if (drops.isEmpty()) {
                Thread.sleep(500);
            }
        }
        assertFalse(drops.isEmpty(), "no executor under " + work + " logged that it dropped the dead executor");
        for (String drop : drops) {
            Matcher line = DROPPED.matcher(drop);
            line.find();
            assertNotEquals(line.group(1), line.group(2), drop);
        }
    }

    private static List<String> drops(Path work)
            throws IOException
    {
        List<String> found = new ArrayList<>();
        if (!Files.isDirectory(work)) {
            return found;
        }
        try (Stream<Path> files = Files.walk(work)) {
            for (Path stderr : files.filter(file -> file.getFileName().toString().equals("stderr")).toList()) {
                for (String text : Files.readAllLines(stderr, java.nio.charset.StandardCharsets.ISO_8859_1)) {
                    if (DROPPED.matcher(text).find()) {
                        found.add(text);
                    }
                }
            }
        }
        return found;
    }
}
