package dev.ferry.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ferry.shuffle.ExchangeMetrics;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.Option;

/**
 * Simulated multi-node clusters: {@code local-cluster[4,1,768]} with a topology file from
 * examples/topologies, so executors go round-robin over its nodes and GPUs (executors 0 and 2 on the
 * first node, 1 and 3 on the second) and every reader picks its route per peer from the topology.
 */
final class TopologyClusters
{
    static final int EXECUTORS = 4;

    private TopologyClusters() {}

    static Path exampleTopology(String name)
    {
        return Path.of(System.getProperty("ferry.repo.dir", "..")).resolve("examples/topologies").resolve(name + ".json").toAbsolutePath();
    }

    /** A copy of a one-node topology file with a second, identical node named {@code <hostname>-b}: two nodes without RDMA. */
    static Path twoNodesOf(Path oneNode, Path directory)
            throws IOException
    {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode cluster = (ObjectNode) mapper.readTree(oneNode.toFile());
        ArrayNode nodes = (ArrayNode) cluster.get("nodes");
        ObjectNode second = nodes.get(0).deepCopy();
        second.put("hostname", nodes.get(0).get("hostname").asText() + "-b");
        nodes.add(second);
        cluster.put("name", cluster.get("name").asText() + "-x2");
        Path file = directory.resolve(oneNode.getFileName().toString().replace(".json", "-x2.json"));
        mapper.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), cluster);
        return file;
    }

    static SparkSession start(Path topologyFile, String stage, Map<String, String> extra)
            throws InterruptedException
    {
        SparkSession.Builder builder = FerrySessions.builder("local-cluster[" + EXECUTORS + ",1,768]")
                .config("spark.plugins", "dev.ferry.FerryPlugin")
                .config("spark.executor.memory", "640m")
                .config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
                .config("spark.executorEnv.SPARK_TESTING", "1")
                .config("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                .config("spark.executor.extraJavaOptions", "-Xss4m -XX:+UseSerialGC -XX:TieredStopAtLevel=1")
                .config("spark.ferry.topology.file", topologyFile.toString())
                .config("spark.ferry.shuffle.stage", stage)
                .config("spark.locality.wait", "0s");
        extra.forEach(builder::config);
        SparkSession spark = builder.getOrCreate();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (spark.sparkContext().statusTracker().getExecutorInfos().length < EXECUTORS + 1) {
            if (System.nanoTime() > deadline) {
                spark.stop();
                throw new IllegalStateException("Executors did not start within 180 s");
            }
            Thread.sleep(100);
        }
        return spark;
    }

    /**
     * Runs an aggregate (8 map tasks, over all four executors) and a join (both sides shuffled),
     * asserts each equals Spark's own shuffle, that every {@code expected} route carried bytes and
     * that no other remote route carried any; returns the bytes per route of the aggregate.
     */
    static Map<String, Long> assertRoutes(SparkSession spark, java.util.Set<String> expected)
    {
        QueryComparison.FerryRun aggregate = QueryComparison.assertSameAsSpark(spark,
                "SELECT id % 97 AS k, count(*) AS c, sum(id) AS total, max(concat('v', id)) AS top FROM range(0, 120000, 1, 8) GROUP BY id % 97", false);
        QueryComparison.FerryRun join = QueryComparison.assertSameAsSpark(spark,
                "SELECT a.id, b.id * 3 AS x FROM range(0, 40000, 1, 8) a JOIN range(0, 40000, 1, 6) b ON a.id = b.id", false);
        for (QueryComparison.FerryRun run : List.of(aggregate, join)) {
            Map<String, Long> bytes = routeBytes(run);
            for (String route : expected) {
                org.junit.jupiter.api.Assertions.assertTrue(bytes.get(route) > 0, route + " carried no bytes: " + bytes + "\n" + run.plan());
            }
            bytes.forEach((route, count) -> {
                if (!expected.contains(route) && !route.equals(ExchangeMetrics.ROUTE_LOCAL)) {
                    org.junit.jupiter.api.Assertions.assertEquals(0L, count, route + " must carry nothing here (expected only " + expected + "): " + bytes);
                }
            });
        }
        return routeBytes(aggregate);
    }

    /** Bytes per route over every Ferry exchange of a finished query's plan (routes without bytes: 0). */
    static Map<String, Long> routeBytes(QueryComparison.FerryRun run)
    {
        Map<String, Long> bytes = new HashMap<>();
        for (String route : ExchangeMetrics.ROUTES) {
            bytes.put(route, 0L);
        }
        List<SparkPlan> exchanges = Plans.ferryExchanges(run.dataset().queryExecution().executedPlan());
        for (SparkPlan exchange : exchanges) {
            for (String route : ExchangeMetrics.ROUTES) {
                Option<SQLMetric> metric = exchange.metrics().get(ExchangeMetrics.routeBytesKey(route));
                if (metric.isDefined()) {
                    bytes.merge(route, Math.max(0, metric.get().value()), Long::sum);
                }
            }
        }
        return bytes;
    }
}
