package dev.ferry.shuffle;

import java.util.List;

import dev.ferry.conf.ConfigKey;
import dev.ferry.conf.ConfigKeySet;
import dev.ferry.shuffle.format.CompressionKind;
import dev.ferry.shuffle.store.ShuffleStage;

/** Settings of the Arrow columnar shuffle, defined once here. */
public final class ShuffleConfigKeys
        implements ConfigKeySet
{
    public static final ConfigKey<Boolean> ENABLED = ConfigKey.bool("spark.ferry.enabled", true,
            "Replace Spark SQL's shuffle exchanges with Ferry's Arrow columnar exchange. Read per query from the session, so "
                    + "it can be switched at run time; needs spark.shuffle.manager=dev.ferry.shuffle.FerryShuffleManager. "
                    + "Off: Spark's own exchange and sort shuffle.");
    public static final ConfigKey<CompressionKind> CODEC = ConfigKey.choice("spark.ferry.shuffle.compression.codec", CompressionKind.class, CompressionKind.ZSTD,
            "Per-buffer compression of shuffled Arrow batches: zstd, lz4 (LZ4 frame), none, or auto. A buffer whose compressed "
                    + "form is not smaller, or that is below minBufferBytes, is sent as it is. zstd is the default: at level 1 it "
                    + "writes 0.6x of lz4's bytes for about 1.5x its CPU. auto picks per map task from its node's link in the cluster "
                    + "map: zstd where the link per executor core is below 0.43 Gbit/s (where bytes cost more than zstd's extra CPU), "
                    + "lz4 above it and when every peer is on the node (no link), zstd without a cluster map; the executor logs each "
                    + "decision with its reason.");
    public static final ConfigKey<Integer> ZSTD_LEVEL = ConfigKey.integer("spark.ferry.shuffle.compression.zstd.level", 1,
            "ZSTD compression level for spark.ferry.shuffle.compression.codec=zstd.");
    public static final ConfigKey<Long> MIN_COMPRESS_BYTES = ConfigKey.bytes("spark.ferry.shuffle.compression.minBufferBytes", "512",
            "Arrow buffers smaller than this are never compressed: the codec's frame costs more than it saves.");
    public static final ConfigKey<Long> BATCH_TARGET_BYTES = ConfigKey.bytes("spark.ferry.shuffle.batch.targetBytes", "4m",
            "Target size of one Arrow batch of one reduce partition on the map side (uncompressed).");
    public static final ConfigKey<Long> MAP_BUFFER_BYTES = ConfigKey.bytes("spark.ferry.shuffle.write.maxBufferedBytes", "64m",
            "Arrow memory one map task may hold in unfinished batches before it flushes all of them early.");
    public static final ConfigKey<Long> SCATTER_BUFFER_BYTES = ConfigKey.bytes("spark.ferry.shuffle.write.scatterBufferBytes", "1m",
            "Heap one map task copies its rows into before scattering them, sorted by reduce partition, to the partitions' "
                    + "batches (at most a sixteenth of spark.ferry.shuffle.write.maxBufferedBytes; counted in the task's execution "
                    + "memory). 0 appends each row straight to its partition's batch, as an exchange into one partition does.");
    public static final ConfigKey<Long> TASK_ARROW_LIMIT_BYTES = ConfigKey.bytes("spark.ferry.shuffle.task.arrowLimitBytes", "1g",
            "Most Arrow (off-heap) memory one task's Ferry shuffle writer or reader may hold: the map side's open batches, "
                    + "the reduce side's fetched blocks and the batches handed to Spark. This memory is outside Spark's memory "
                    + "manager (unless it is counted there, it is counted here); its peak is added to the task's peak execution "
                    + "memory. A task that needs more fails with an error naming this key. Must exceed "
                    + "spark.ferry.shuffle.write.maxBufferedBytes.");
    public static final ConfigKey<ShuffleStage> STAGE = ConfigKey.choice("spark.ferry.shuffle.stage", ShuffleStage.class, ShuffleStage.AUTO,
            "Where map outputs are kept: auto keeps a block where its producer's batch is (host for Spark's CPU operators), "
                    + "device stages blocks in GPU memory through the device runtime's tiered store, host keeps them in "
                    + "host memory. All spill to local disk under pressure.");
    public static final ConfigKey<Long> HOST_MEMORY_BYTES = ConfigKey.bytes("spark.ferry.shuffle.host.memoryBytes", "512m",
            "Host memory per executor for map outputs; further map outputs go to local disk files.");
    public static final ConfigKey<Long> MAX_BYTES_IN_FLIGHT = ConfigKey.bytes("spark.ferry.shuffle.fetch.maxBytesInFlight", "48m",
            "Most bytes one reduce task has requested from remote executors and not yet taken (a single larger block is fetched alone). "
                    + "Requests are a fifth of this, sent to several peers at once and overlapped with the task's decoding.");
    public static final ConfigKey<Integer> TCP_PORT = ConfigKey.integer("spark.ferry.shuffle.tcp.port", 0,
            "Port of an executor's TCP block server; 0 picks a free one.");
    public static final ConfigKey<Integer> TCP_TIMEOUT_MILLIS = ConfigKey.integer("spark.ferry.shuffle.tcp.timeoutMillis", 120000,
            "Connect and read timeout of the TCP transport; a peer silent for longer fails the fetch.");
    public static final ConfigKey<Long> TCP_MAX_FRAME_BYTES = ConfigKey.bytes("spark.ferry.shuffle.tcp.maxFrameBytes", "1g",
            "Largest frame the TCP transport accepts; a longer length on the wire is treated as corruption.");
    public static final ConfigKey<MetricsLevel> METRICS_LEVEL = ConfigKey.choice("spark.ferry.metrics.level", MetricsLevel.class, MetricsLevel.ESSENTIAL,
            "SQL metrics each Ferry exchange lists (read per query from the session): essential (sizes, spill, corrupt blocks, and bytes, "
                    + "blocks and fetch wait per route the topology can use; Spark's write metrics, records read, fetch wait), moderate "
                    + "(also memory spilled and Spark's detailed read counters) or debug (also every route, used or not). Spark's "
                    + "push-based shuffle counters are never listed. docs/deploying.md explains each metric.");
    public static final ConfigKey<String> EXECUTOR_PLACEMENT = ConfigKey.string("spark.ferry.shuffle.executorPlacement", "",
            "With spark.ferry.topology.file: where executors sit, as <executorId>=<node>[:<gpu>],... where the GPU is written as "
                    + "the file names it (GPU0) or by its index (0); the driver checks every entry against the file at start. Executors not listed take "
                    + "the node named like their host; where none is (a simulated cluster such as local-cluster[N,...]) they go "
                    + "round-robin in executor-id order: executor i on node i mod nodes, GPU (i / nodes) mod GPUs of that node. "
                    + "Each executor's place rides in its map output locations, and readers pick a route per peer from it.",
            dev.ferry.shuffle.placement.ExecutorPlacements::checkSyntax);

    @Override
    public String section()
    {
        return "Shuffle";
    }

    @Override
    public List<ConfigKey<?>> keys()
    {
        return List.of(ENABLED, CODEC, ZSTD_LEVEL, MIN_COMPRESS_BYTES, BATCH_TARGET_BYTES, MAP_BUFFER_BYTES, SCATTER_BUFFER_BYTES, TASK_ARROW_LIMIT_BYTES, STAGE, HOST_MEMORY_BYTES,
                MAX_BYTES_IN_FLIGHT, TCP_PORT, TCP_TIMEOUT_MILLIS, TCP_MAX_FRAME_BYTES, EXECUTOR_PLACEMENT, METRICS_LEVEL);
    }
}
