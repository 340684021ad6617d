package dev.ferry.shuffle.exchange;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

import dev.ferry.shuffle.ArrowShuffleSerializer;
import dev.ferry.conf.SparkConfigSources;
import dev.ferry.shuffle.ExchangeMetrics;
import dev.ferry.shuffle.ShuffleConfigKeys;
import dev.ferry.shuffle.UsableRoutes;
import dev.ferry.shuffle.format.CompressionKind;
import dev.ferry.shuffle.format.EncodingSettings;
import org.apache.spark.FutureAction;
import org.apache.spark.MapOutputStatistics;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.AttributeMap$;
import org.apache.spark.sql.catalyst.plans.logical.Statistics;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.RoundRobinPartitioning;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.CoalescedPartitionSpec;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.ShufflePartitionSpec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec$;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeLike;
import org.apache.spark.sql.execution.exchange.ShuffleOrigin;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLShuffleReadMetricsReporter$;
import org.apache.spark.sql.execution.metric.SQLShuffleWriteMetricsReporter$;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Option;
import scala.concurrent.Future;
import scala.concurrent.Promise;
import scala.jdk.javaapi.CollectionConverters;
import scala.math.BigInt;

import static java.util.Objects.requireNonNull;

/**
 * Ferry's columnar shuffle exchange: same product shape and semantics as Spark's
 * {@code ShuffleExchangeExec} (partitioning, child, origin, advisory size), but the shuffle moves
 * Arrow batches through {@code FerryShuffleManager} and the output is columnar
 * ({@code ColumnarBatch} of {@code ArrowColumnVector}). It is an {@link Exchange} implementing
 * {@link ShuffleExchangeLike}, so AQE makes it a query stage and coalesces, splits skew, reads
 * locally and reuses it like Spark's own.
 *
 * <p>Written in Java against a compile-only stub of {@code Exchange} (see the stub's Javadoc and
 * shuffle-manager/README.md): it must never redeclare {@code children}, {@code mapChildren},
 * {@code withNewChildrenInternal} or {@code nodePatterns}, which are final in Spark's class.
 * The Scala trait's state is written out by hand below, and its lazy vals are memoized here:
 * the trait's default methods would build a new Promise on every call and AQE would wait forever.
 */
public final class FerryShuffleExchangeExec
        extends Exchange
        implements ShuffleExchangeLike
{
    private static final long serialVersionUID = 1L;

    private final Partitioning outputPartitioning;
    private final SparkPlan child;
    private final ShuffleOrigin shuffleOrigin;
    private final Option<Object> advisoryPartitionSize;
    // Read from the session when the planner builds the node (not a product element: copies re-read it).
    private final EncodingSettings encoding;

    // ShuffleExchangeLike's state, set by its $init$.
    private transient AtomicReference<Option<FutureAction<MapOutputStatistics>>> futureAction;
    private transient boolean cancelled;
    private transient Promise<MapOutputStatistics> promise;
    private transient Future<MapOutputStatistics> completionFuture;
    private transient java.util.concurrent.Future<Object> triggerFuture;

    private transient ExchangeMetrics ferryMetrics;
    private transient scala.collection.immutable.Map<String, SQLMetric> writeMetrics;
    private transient scala.collection.immutable.Map<String, SQLMetric> readMetrics;
    private transient scala.collection.immutable.Map<String, SQLMetric> allMetrics;
    private transient ShuffleDependency<Object, InternalRow, InternalRow> shuffleDependency;
    private transient Future<MapOutputStatistics> mapOutputStatisticsFuture;
    private transient RDD<ColumnarBatch> cachedShuffleRDD;

    /** The one constructor {@code makeCopy} finds: product elements in order. */
    public FerryShuffleExchangeExec(Partitioning outputPartitioning, SparkPlan child, ShuffleOrigin shuffleOrigin, Option<Object> advisoryPartitionSize)
    {
        this.outputPartitioning = requireNonNull(outputPartitioning, "outputPartitioning is null");
        this.child = requireNonNull(child, "child is null");
        this.shuffleOrigin = requireNonNull(shuffleOrigin, "shuffleOrigin is null");
        this.advisoryPartitionSize = requireNonNull(advisoryPartitionSize, "advisoryPartitionSize is null");
        this.encoding = ExchangeSettings.encoding();
        ShuffleExchangeLike.$init$(this);
    }

    @Override
    public SparkPlan child()
    {
        return child;
    }

    @Override
    public Partitioning outputPartitioning()
    {
        return outputPartitioning;
    }

    @Override
    public ShuffleOrigin shuffleOrigin()
    {
        return shuffleOrigin;
    }

    @Override
    public Option<Object> advisoryPartitionSize()
    {
        return advisoryPartitionSize;
    }

    @Override
    public String nodeName()
    {
        return "FerryColumnarExchange";
    }

    /**
     * Spark's exchange arguments (partitioning, origin, plan id), then the codec its map outputs are
     * written with, so EXPLAIN shows it; {@code auto} is decided by each map task from its node's link
     * (the {@code ferryMapCodec*} metrics count what they chose, the executors log why).
     */
    @Override
    public scala.collection.Iterator<Object> stringArgs()
    {
        List<Object> args = new ArrayList<>();
        super.stringArgs().foreach(arg -> args.add(arg));
        args.add(codecArg(encoding.compression()));
        return CollectionConverters.asScala(args.iterator());
    }

    static String codecArg(CompressionKind codec)
    {
        String name = codec.name().toLowerCase(Locale.ROOT);
        return codec == CompressionKind.AUTO ? "codec=auto (lz4 or zstd per map task's link)" : "codec=" + name;
    }

    @Override
    public boolean supportsColumnar()
    {
        return true;
    }

    /**
     * Also row-based (through {@link #doExecute}): when AQE creates a stage it inserts transitions
     * as if the root were Spark's row exchange, and a root that could only produce batches would be
     * wrapped in a ColumnarToRow, which AQE rejects. Consumers above a stage still get Spark's
     * (code-generated) ColumnarToRow over the batches.
     */
    @Override
    public boolean supportsRowBased()
    {
        return true;
    }

    @Override
    public SparkPlan withNewChildInternal(SparkPlan newChild)
    {
        return new FerryShuffleExchangeExec(outputPartitioning, newChild, shuffleOrigin, advisoryPartitionSize);
    }

    // ---- metrics ----

    private synchronized ExchangeMetrics ferryMetrics()
    {
        if (ferryMetrics == null) {
            ferryMetrics = ExchangeMetrics.create(sparkContext(), ShuffleConfigKeys.METRICS_LEVEL.get(SparkConfigSources.of(SQLConf.get())), UsableRoutes.current());
        }
        return ferryMetrics;
    }

    public synchronized scala.collection.immutable.Map<String, SQLMetric> writeMetrics()
    {
        if (writeMetrics == null) {
            writeMetrics = SQLShuffleWriteMetricsReporter$.MODULE$.createShuffleWriteMetrics(sparkContext());
        }
        return writeMetrics;
    }

    public synchronized scala.collection.immutable.Map<String, SQLMetric> readMetrics()
    {
        if (readMetrics == null) {
            readMetrics = SQLShuffleReadMetricsReporter$.MODULE$.createShuffleReadMetrics(sparkContext());
        }
        return readMetrics;
    }

    @Override
    public synchronized scala.collection.immutable.Map<String, SQLMetric> metrics()
    {
        if (allMetrics == null) {
            // Spark's read reporter needs all of its metrics; the level decides which the plan lists.
            Map<String, SQLMetric> all = new LinkedHashMap<>(ferryMetrics().asMap());
            all.putAll(new java.util.TreeMap<>(CollectionConverters.asJava(writeMetrics())));
            new java.util.TreeMap<>(CollectionConverters.asJava(readMetrics())).forEach((key, metric) -> {
                if (ExchangeMetrics.showsSparkReadMetric(ferryMetrics().level(), key)) {
                    all.put(key, metric);
                }
            });
            // In this order (Ferry's, then Spark's write and read metrics): a hash map would shuffle them in the UI.
            allMetrics = scala.collection.immutable.ListMap$.MODULE$.from(CollectionConverters.asScala(all));
        }
        return allMetrics;
    }

    // ---- the shuffle ----

    /** Spark's own partition-id computation over this exchange's input: every row lands where Spark's exchange would put it. */
    public synchronized ShuffleDependency<Object, InternalRow, InternalRow> shuffleDependency()
    {
        if (shuffleDependency == null) {
            StructType schema = DataTypeUtils.fromAttributes(child.output());
            ArrowShuffleSerializer serializer = new ArrowShuffleSerializer(schema, encoding, ferryMetrics());
            RDD<InternalRow> input;
            if (child.supportsColumnar()) {
                // Round robin sorts rows before dealing them out (deterministic retries), which needs UnsafeRows.
                input = ColumnarInput.rows(child.executeColumnar(), schema, outputPartitioning instanceof RoundRobinPartitioning);
            }
            else {
                input = child.execute();
            }
            shuffleDependency = ShuffleExchangeExec$.MODULE$.prepareShuffleDependency(input, child.output(), outputPartitioning, serializer, writeMetrics());
        }
        return shuffleDependency;
    }

    @Override
    public synchronized Future<MapOutputStatistics> mapOutputStatisticsFuture()
    {
        if (mapOutputStatisticsFuture == null) {
            ShuffleDependency<Object, InternalRow, InternalRow> dependency = shuffleDependency();
            if (dependency.rdd().getNumPartitions() == 0) {
                mapOutputStatisticsFuture = Future.successful(null);
            }
            else {
                mapOutputStatisticsFuture = sparkContext().submitMapStage(dependency);
            }
        }
        return mapOutputStatisticsFuture;
    }

    @Override
    public int numMappers()
    {
        return shuffleDependency().rdd().getNumPartitions();
    }

    @Override
    public int numPartitions()
    {
        return shuffleDependency().partitioner().numPartitions();
    }

    @Override
    public int shuffleId()
    {
        return shuffleDependency().shuffleId();
    }

    @Override
    public RDD<ColumnarBatch> getShuffleRDD(ShufflePartitionSpec[] partitionSpecs)
    {
        return new ShuffledBatchRDD(shuffleDependency(), readMetrics(), partitionSpecs);
    }

    @Override
    public Statistics runtimeStatistics()
    {
        long dataSize = ferryMetrics().dataSize().value();
        long rowCount = writeMetrics().apply(SQLShuffleWriteMetricsReporter$.MODULE$.SHUFFLE_RECORDS_WRITTEN()).value();
        return Statistics.apply(BigInt.apply(dataSize), Option.apply(BigInt.apply(rowCount)), AttributeMap$.MODULE$.empty(), false);
    }

    @Override
    public synchronized RDD<ColumnarBatch> doExecuteColumnar()
    {
        if (cachedShuffleRDD == null) {
            int partitions = numPartitions();
            ShufflePartitionSpec[] specs = new ShufflePartitionSpec[partitions];
            for (int i = 0; i < partitions; i++) {
                specs[i] = new CoalescedPartitionSpec(i, i + 1, Option.empty());
            }
            cachedShuffleRDD = getShuffleRDD(specs);
        }
        return cachedShuffleRDD;
    }

    /** Row consumers normally get a ColumnarToRow transition from Spark; this serves any that call execute() directly. */
    @Override
    public RDD<InternalRow> doExecute()
    {
        return new ColumnarToRowExec(this).execute();
    }

    // ---- ShuffleExchangeLike's hand-written state ----

    @Override
    public AtomicReference<Option<FutureAction<MapOutputStatistics>>> futureAction()
    {
        return futureAction;
    }

    @Override
    public void org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$_setter_$futureAction_$eq(AtomicReference<Option<FutureAction<MapOutputStatistics>>> value)
    {
        this.futureAction = value;
    }

    @Override
    public boolean org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$isCancelled()
    {
        return cancelled;
    }

    @Override
    public void org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$isCancelled_$eq(boolean value)
    {
        this.cancelled = value;
    }

    @Override
    public synchronized Promise<MapOutputStatistics> org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$promise()
    {
        if (promise == null) {
            promise = ShuffleExchangeLike.super.org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$promise();
        }
        return promise;
    }

    @Override
    public synchronized Future<MapOutputStatistics> org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$completionFuture()
    {
        if (completionFuture == null) {
            completionFuture = ShuffleExchangeLike.super.org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$completionFuture();
        }
        return completionFuture;
    }

    @Override
    public synchronized java.util.concurrent.Future<Object> org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$triggerFuture()
    {
        if (triggerFuture == null) {
            triggerFuture = ShuffleExchangeLike.super.org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$triggerFuture();
        }
        return triggerFuture;
    }

    // ---- Product (what makeCopy, canonicalization and explain use) ----

    @Override
    public int productArity()
    {
        return 4;
    }

    @Override
    public Object productElement(int index)
    {
        switch (index) {
            case 0:
                return outputPartitioning;
            case 1:
                return child;
            case 2:
                return shuffleOrigin;
            case 3:
                return advisoryPartitionSize;
            default:
                throw new IndexOutOfBoundsException("FerryShuffleExchangeExec has 4 elements, not " + (index + 1));
        }
    }

    @Override
    public boolean canEqual(Object other)
    {
        return other instanceof FerryShuffleExchangeExec;
    }

    /** By value, as Spark's case-class exchange: exchange reuse and AQE's stage cache compare canonicalized plans with equals. */
    @Override
    public boolean equals(Object other)
    {
        if (this == other) {
            return true;
        }
        if (!(other instanceof FerryShuffleExchangeExec)) {
            return false;
        }
        FerryShuffleExchangeExec that = (FerryShuffleExchangeExec) other;
        return outputPartitioning.equals(that.outputPartitioning) && child.equals(that.child) && shuffleOrigin.equals(that.shuffleOrigin)
                && advisoryPartitionSize.equals(that.advisoryPartitionSize);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(outputPartitioning, child, shuffleOrigin, advisoryPartitionSize);
    }
}
