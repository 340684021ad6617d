package dev.ferry.shuffle.exchange;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.spark.Dependency;
import org.apache.spark.MapOutputTrackerMaster;
import org.apache.spark.Partition;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.CoalescedMapperPartitionSpec;
import org.apache.spark.sql.execution.CoalescedPartitionSpec;
import org.apache.spark.sql.execution.PartialMapperPartitionSpec;
import org.apache.spark.sql.execution.PartialReducerPartitionSpec;
import org.apache.spark.sql.execution.ShufflePartitionSpec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLShuffleReadMetricsReporter;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Product2;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.collection.immutable.Map;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

import static java.util.Objects.requireNonNull;

/**
 * The reduce side of a Ferry exchange as an RDD of Arrow-backed batches, one partition per
 * {@link ShufflePartitionSpec}: AQE's coalesced partitions, skew splits (a map-index range of one
 * reducer) and local reads (reducer ranges of some mappers) all become reader ranges, like
 * Spark's ShuffledRowRDD.
 */
final class ShuffledBatchRDD
        extends RDD<ColumnarBatch>
{
    private static final long serialVersionUID = 1L;

    private final ShuffleDependency<Object, InternalRow, InternalRow> dependency;
    private final Map<String, SQLMetric> readMetrics;
    private final ShufflePartitionSpec[] specs;

    ShuffledBatchRDD(ShuffleDependency<Object, InternalRow, InternalRow> dependency, Map<String, SQLMetric> readMetrics, ShufflePartitionSpec[] specs)
    {
        super(dependency.rdd().context(), dependencies(dependency), ClassTag$.MODULE$.apply(ColumnarBatch.class));
        this.dependency = requireNonNull(dependency, "dependency is null");
        this.readMetrics = requireNonNull(readMetrics, "readMetrics is null");
        this.specs = specs.clone();
    }

    private static Seq<Dependency<?>> dependencies(ShuffleDependency<Object, InternalRow, InternalRow> dependency)
    {
        List<Dependency<?>> list = new ArrayList<>();
        list.add(dependency);
        return CollectionConverters.asScala(list).toList();
    }

    @Override
    public Partition[] getPartitions()
    {
        Partition[] partitions = new Partition[specs.length];
        for (int i = 0; i < specs.length; i++) {
            partitions[i] = new ShuffledBatchPartition(i, specs[i]);
        }
        return partitions;
    }

    @Override
    public Seq<String> getPreferredLocations(Partition partition)
    {
        MapOutputTrackerMaster tracker = (MapOutputTrackerMaster) SparkEnv.get().mapOutputTracker();
        ShufflePartitionSpec spec = ((ShuffledBatchPartition) partition).spec();
        if (spec instanceof CoalescedPartitionSpec) {
            CoalescedPartitionSpec coalesced = (CoalescedPartitionSpec) spec;
            Set<String> hosts = new LinkedHashSet<>();
            for (int reducer = coalesced.startReducerIndex(); reducer < coalesced.endReducerIndex(); reducer++) {
                hosts.addAll(CollectionConverters.asJava(tracker.getPreferredLocationsForShuffle(dependency, reducer)));
            }
            return CollectionConverters.asScala(new ArrayList<>(hosts)).toList();
        }
        if (spec instanceof PartialReducerPartitionSpec) {
            PartialReducerPartitionSpec partial = (PartialReducerPartitionSpec) spec;
            return tracker.getMapLocation(dependency, partial.startMapIndex(), partial.endMapIndex());
        }
        if (spec instanceof PartialMapperPartitionSpec) {
            PartialMapperPartitionSpec partial = (PartialMapperPartitionSpec) spec;
            return tracker.getMapLocation(dependency, partial.mapIndex(), partial.mapIndex() + 1);
        }
        if (spec instanceof CoalescedMapperPartitionSpec) {
            CoalescedMapperPartitionSpec coalesced = (CoalescedMapperPartitionSpec) spec;
            return tracker.getMapLocation(dependency, coalesced.startMapIndex(), coalesced.endMapIndex());
        }
        throw new IllegalArgumentException("Unknown partition spec " + spec);
    }

    @Override
    public Iterator<ColumnarBatch> compute(Partition partition, TaskContext context)
    {
        SQLShuffleReadMetricsReporter metrics = new SQLShuffleReadMetricsReporter(context.taskMetrics().createTempShuffleReadMetrics(), readMetrics);
        ShufflePartitionSpec spec = ((ShuffledBatchPartition) partition).spec();
        ShuffleReader<Object, ColumnarBatch> reader;
        if (spec instanceof CoalescedPartitionSpec) {
            CoalescedPartitionSpec coalesced = (CoalescedPartitionSpec) spec;
            reader = reader(0, Integer.MAX_VALUE, coalesced.startReducerIndex(), coalesced.endReducerIndex(), context, metrics);
        }
        else if (spec instanceof PartialReducerPartitionSpec) {
            PartialReducerPartitionSpec partial = (PartialReducerPartitionSpec) spec;
            reader = reader(partial.startMapIndex(), partial.endMapIndex(), partial.reducerIndex(), partial.reducerIndex() + 1, context, metrics);
        }
        else if (spec instanceof PartialMapperPartitionSpec) {
            PartialMapperPartitionSpec partial = (PartialMapperPartitionSpec) spec;
            reader = reader(partial.mapIndex(), partial.mapIndex() + 1, partial.startReducerIndex(), partial.endReducerIndex(), context, metrics);
        }
        else if (spec instanceof CoalescedMapperPartitionSpec) {
            CoalescedMapperPartitionSpec coalesced = (CoalescedMapperPartitionSpec) spec;
            reader = reader(coalesced.startMapIndex(), coalesced.endMapIndex(), 0, coalesced.numReducers(), context, metrics);
        }
        else {
            throw new IllegalArgumentException("Unknown partition spec " + spec);
        }
        return new Values(reader.read());
    }

    private ShuffleReader<Object, ColumnarBatch> reader(int startMap, int endMap, int startReducer, int endReducer, TaskContext context, SQLShuffleReadMetricsReporter metrics)
    {
        return SparkEnv.get().shuffleManager().getReader(dependency.shuffleHandle(), startMap, endMap, startReducer, endReducer, context, metrics);
    }

    private static final class Values
            extends AbstractIterator<ColumnarBatch>
    {
        private final Iterator<Product2<Object, ColumnarBatch>> records;

        Values(Iterator<Product2<Object, ColumnarBatch>> records)
        {
            this.records = records;
        }

        @Override
        public boolean hasNext()
        {
            return records.hasNext();
        }

        @Override
        public ColumnarBatch next()
        {
            return records.next()._2();
        }
    }
}
