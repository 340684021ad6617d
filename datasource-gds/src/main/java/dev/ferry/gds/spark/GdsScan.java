package dev.ferry.gds.spark;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.device.GpuResolution;
import dev.ferry.gds.aggregate.AggregatePlan;
import dev.ferry.gds.io.IoRoute;
import dev.ferry.gds.metrics.GdsMetric;
import dev.ferry.gds.parquet.ColumnNames;
import dev.ferry.gds.parquet.FileSlice;
import dev.ferry.gds.GdsConfigKeys;
import dev.ferry.gds.plan.PartitionPruner;
import dev.ferry.gds.plan.RowGroupSplitting;
import dev.ferry.gds.plan.RowGroupPruner;
import dev.ferry.gds.plan.SplitPlan;
import dev.ferry.gds.plan.SplitPlanner;
import dev.ferry.gds.read.DeviceFallbackPreview;
import dev.ferry.gds.route.DeviceProbe;
import dev.ferry.gds.route.ExecutorDevices;
import dev.ferry.gds.route.RouteChoice;
import dev.ferry.gds.route.RouteChooser;
import dev.ferry.gds.route.RouteRefusedException;
import dev.ferry.topology.route.FileConsumer;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.jdk.javaapi.CollectionConverters;

import static java.util.Objects.requireNonNull;

/**
 * A planned gds scan: row-group splits, columnar batches, statistics and metrics. With pushed
 * aggregates it returns each task's partial results as rows instead (see {@link GdsAggregateReader}).
 */
final class GdsScan
        implements SupportsReportStatistics, Batch
{
    private static final Logger log = LoggerFactory.getLogger(GdsScan.class);
    private static final String DEVICE_PREFIX = "spark.ferry.device";
    // Files the explain string's device-fallback preview looks at: a preview, not a second planning pass.
    private static final int PREVIEW_FILES = 16;

    private final GdsTableState state;
    private final StructType readSchema;
    private final List<Filter> filters;
    // Those of filters Spark does not evaluate again: every row the tasks return (or aggregate) satisfies them.
    private final List<Filter> exactFilters;
    private final List<Filter> partitionFilters;
    private final Predicate[] pushed;
    private final Optional<AggregatePlan> aggregate;
    private SplitPlan plan;

    GdsScan(GdsTableState state, StructType readSchema, List<Filter> filters, List<Filter> exactFilters, List<Filter> partitionFilters,
            Predicate[] pushed, Optional<AggregatePlan> aggregate)
    {
        this.exactFilters = List.copyOf(exactFilters);
        this.aggregate = requireNonNull(aggregate, "aggregate is null");
        this.partitionFilters = List.copyOf(partitionFilters);
        this.state = requireNonNull(state, "state is null");
        this.readSchema = requireNonNull(readSchema, "readSchema is null");
        this.filters = List.copyOf(filters);
        this.pushed = pushed.clone();
    }

    @Override
    public StructType readSchema()
    {
        return aggregate.map(AggregatePlan::outputSchema).orElse(readSchema);
    }

    @Override
    public String description()
    {
        SplitPlan planned = plan();
        return String.format(Locale.ROOT, "GdsScan %s route=%s consumer=%s (%s) pushedFilters=%s exactFilters=%s rowGroups=%d/%d splits=%d",
                state.name(), state.settings().route().name().toLowerCase(Locale.ROOT),
                state.settings().consumer().name().toLowerCase(Locale.ROOT), routeOnThisMachine(),
                Arrays.stream(pushed).map(Predicate::toString).collect(Collectors.joining(", ", "[", "]")),
                exactFilters.stream().map(Filter::toString).collect(Collectors.joining(", ", "[", "]")),
                planned.rowGroupsTotal() - planned.rowGroupsSkipped(), planned.rowGroupsTotal(), planned.partitions().size())
                + planned.describeSplitting()
                + (state.settings().consumer() == FileConsumer.CPU ? "" : " " + devicePreview())
                + aggregate.map(this::describe).orElse("");
    }

    /** The per-chunk device fallbacks a device read (DeviceBatches) should expect, from the footers planning read. */
    private String devicePreview()
    {
        List<StructField> data = new ArrayList<>();
        for (StructField field : readSchema.fields()) {
            if (!isPartitionColumn(field, state.partitionSchema())) {
                data.add(field);
            }
        }
        return DeviceFallbackPreview.of(state.files(), new StructType(data.toArray(new StructField[0])), state.settings(), PREVIEW_FILES).describe();
    }

    private String describe(AggregatePlan aggregate)
    {
        return String.format(Locale.ROOT, " pushedAggregates=%s pushedGroupBy=%s (partial per task%s)", aggregate.aggregates(),
                aggregate.groupColumns().stream().map(StructField::name).collect(Collectors.toList()),
                aggregate.answeredByRowCounts() && exactFilters.isEmpty() ? ", from row-group row counts"
                        : exactFilters.isEmpty() ? "" : ", of the rows the exact filters keep");
    }

    @Override
    public Batch toBatch()
    {
        return this;
    }

    @Override
    public ColumnarSupportMode columnarSupportMode()
    {
        // Partial aggregates are a few rows per task.
        return aggregate.isPresent() ? ColumnarSupportMode.UNSUPPORTED : ColumnarSupportMode.SUPPORTED;
    }

    @Override
    public InputPartition[] planInputPartitions()
    {
        List<InputPartition> partitions = new ArrayList<>();
        for (List<FileSlice> slices : plan().partitions()) {
            partitions.add(new GdsInputPartition(slices, topHosts(slices)));
        }
        if (partitions.isEmpty() && aggregate.isPresent() && aggregate.get().groupColumns().isEmpty()) {
            // One task with nothing to read still returns the row of an empty input (COUNT 0, others null).
            partitions.add(new GdsInputPartition(List.of(), new String[0]));
        }
        return partitions.toArray(new InputPartition[0]);
    }

    @Override
    public PartitionReaderFactory createReaderFactory()
    {
        // With pushed aggregates the tasks read the aggregates' input columns and return partial rows.
        StructType columns = aggregate.map(AggregatePlan::inputSchema).orElse(readSchema);
        List<StructField> data = new ArrayList<>();
        StructType partitionSchema = state.partitionSchema();
        for (StructField field : columns.fields()) {
            if (!isPartitionColumn(field, partitionSchema)) {
                data.add(field);
            }
        }
        // Spark prunes the columns only exact filters read (it does not evaluate them): the tasks read
        // them after the output's data columns, filter on them and drop them from the batches.
        data.addAll(filterOnlyColumns(columns));
        // Broadcast once per scan, as Spark's own file scans do: the factory is serialized into every
        // task, and a Hadoop configuration is ~1000 entries to write and read per task.
        Broadcast<SerializableConfiguration> hadoopConf = JavaSparkContext.fromSparkContext(state.spark().sparkContext())
                .broadcast(new SerializableConfiguration(state.hadoopConf()));
        GdsReaderFactory batches = new GdsReaderFactory(state.settings(), hadoopConf, columns,
                new StructType(data.toArray(new StructField[0])), partitionSchema, deviceConf(), filters, exactFilters);
        return aggregate.<PartitionReaderFactory>map(plan -> new GdsAggregateReaderFactory(batches, plan, state.settings().ignoreMissingFiles(),
                !exactFilters.isEmpty())).orElse(batches);
    }

    /** The table's data columns the exact filters read that {@code columns} lacks, in table order. */
    private List<StructField> filterOnlyColumns(StructType columns)
    {
        List<StructField> extra = new ArrayList<>();
        boolean caseSensitive = state.settings().caseSensitive();
        for (StructField field : state.tableSchema().fields()) {
            if (isPartitionColumn(field, state.partitionSchema()) || Arrays.stream(columns.fields()).anyMatch(column -> ColumnNames.sameName(column.name(), field.name(), caseSensitive))) {
                continue;
            }
            boolean referenced = exactFilters.stream().flatMap(filter -> Arrays.stream(filter.references()))
                    .anyMatch(name -> ColumnNames.sameName(name, field.name(), caseSensitive));
            if (referenced) {
                extra.add(field);
            }
        }
        return extra;
    }

    @Override
    public Statistics estimateStatistics()
    {
        SplitPlan planned = plan();
        return new Statistics()
        {
            @Override
            public OptionalLong sizeInBytes()
            {
                return OptionalLong.of(planned.bytes());
            }

            @Override
            public OptionalLong numRows()
            {
                return OptionalLong.of(planned.rows());
            }
        };
    }

    @Override
    public CustomMetric[] supportedCustomMetrics()
    {
        return GdsMetric.all();
    }

    @Override
    public CustomTaskMetric[] reportDriverMetrics()
    {
        return new CustomTaskMetric[] {GdsMetric.ROW_GROUPS_SKIPPED.value(plan().rowGroupsSkipped()), GdsMetric.FILES_PRUNED.value(plan().filesPruned())};
    }

    private synchronized SplitPlan plan()
    {
        if (plan == null) {
            SQLConf conf = state.spark().sessionState().conf();
            int minPartitions = conf.filesMinPartitionNum().isDefined()
                    ? (Integer) conf.filesMinPartitionNum().get()
                    : state.spark().sparkContext().defaultParallelism();
            SplitPlanner planner = new SplitPlanner(conf.filesMaxPartitionBytes(), conf.filesOpenCostInBytes(), Math.max(1, minPartitions), splitting());
            plan = planner.plan(state.files(), new PartitionPruner(partitionFilters, state.partitionSchema(), state.settings().caseSensitive()),
                    new RowGroupPruner(filters, conf, state.settings()));
            if (!plan.rowGroupsKeptWhole().isEmpty()) {
                log.info("gds scan {}: row groups larger than the split target read whole, each by one task: {}", state.name(), plan.rowGroupsKeptWhole());
            }
        }
        return plan;
    }

    /**
     * Row groups are split only for Spark's batches decoded on the host (consumer cpu): a device
     * consumer's reads go to the device kernels, which do not decode row ranges.
     */
    private RowGroupSplitting splitting()
    {
        if (!GdsConfigKeys.SPLIT_ROW_GROUPS.get(new ReadConfigSource(state.options(), state.spark()))) {
            return RowGroupSplitting.fromSetting(false);
        }
        if (state.settings().consumer() != FileConsumer.CPU) {
            return RowGroupSplitting.off("consumer=" + state.settings().consumer().name().toLowerCase(Locale.ROOT) + " decodes whole row groups on the device");
        }
        return RowGroupSplitting.on();
    }

    // What this machine would choose for the first file, as a hint: each executor decides per file when it opens it.
    /**
     * The route of this scan's files on this machine in a few words, for the explain string
     * ({@code HOST: CPU consumer}, {@code HOST: no GPU}); the whole reason goes to the log at DEBUG.
     */
    private String routeOnThisMachine()
    {
        FileConsumer consumer = state.settings().consumer();
        String who = consumer == FileConsumer.CPU ? "CPU consumer" : "device consumer";
        Optional<RouteChoice> hostOnly = RouteChooser.withoutDevice(state.settings().route(), consumer);
        if (hostOnly.isPresent()) {
            log.debug("gds scan {}: HOST: {}; decode on the host, no PCIe crossing", state.name(), hostOnly.get().reason());
            return "HOST: " + (state.settings().route() == GdsRouteSetting.HOST ? "route=host" : who) + ", no PCIe crossing";
        }
        try {
            DeviceRuntime runtime = ExecutorDevices.runtime(deviceConf());
            RouteChooser chooser = new RouteChooser(state.settings().route(), consumer, DeviceProbe.of(runtime), ExecutorDevices.advisor(runtime));
            String file = state.files().isEmpty() ? "files of " + state.name() : state.files().get(0).file().path();
            // The device this JVM's tasks would use (the executor's GPU, by PCI bus id); not visible here: HOST, said so.
            GpuResolution gpu = ExecutorDevices.taskDevice(runtime);
            RouteChoice choice = gpu.match().isPresent() ? chooser.choose(file, gpu.match().get().ordinal()) : chooser.withoutTaskGpu(file, gpu.reason());
            log.debug("gds scan {}: {}: {}", state.name(), choice.route(), choice.reason());
            if (gpu.match().isEmpty()) {
                return choice.route() + ": no GPU";
            }
            String why = (choice.fallback() ? "fallback" : "topology policy") + " for a " + who;
            if (choice.route() == IoRoute.HOST) {
                return choice.route() + ": " + why + ", no PCIe crossing";
            }
            // Spark's batches are decoded on the host (the chunks land in device memory and come back); DeviceBatches decodes on the device.
            return choice.route() + ": " + why + (consumer == FileConsumer.CPU ? ", two PCIe crossings per byte"
                    : ", DeviceBatches decode on the device, Spark's batches on the host");
        }
        catch (RouteRefusedException e) {
            log.debug("gds scan {}: refused: {}", state.name(), e.getMessage());
            return "refused: " + e.getMessage();
        }
    }

    /** The {@code spark.ferry.device.*} settings of this read (options win over the session), shipped so executors build the same device runtime. */
    private Map<String, String> deviceConf()
    {
        Map<String, String> conf = new TreeMap<>();
        for (Map.Entry<String, String> entry : CollectionConverters.asJava(state.spark().conf().getAll()).entrySet()) {
            if (entry.getKey().startsWith(DEVICE_PREFIX)) {
                conf.put(entry.getKey(), entry.getValue());
            }
        }
        for (Map.Entry<String, String> entry : state.options().asCaseSensitiveMap().entrySet()) {
            if (entry.getKey().startsWith(DEVICE_PREFIX)) {
                conf.put(entry.getKey(), entry.getValue());
            }
        }
        return conf;
    }

    private boolean isPartitionColumn(StructField field, StructType partitionSchema)
    {
        for (StructField partition : partitionSchema.fields()) {
            if (ColumnNames.sameName(partition.name(), field.name(), state.settings().caseSensitive())) {
                return true;
            }
        }
        return false;
    }

    private static String[] topHosts(List<FileSlice> slices)
    {
        Map<String, Long> bytesByHost = new HashMap<>();
        for (FileSlice slice : slices) {
            for (String host : slice.file().hosts()) {
                bytesByHost.merge(host, slice.bytes(), Long::sum);
            }
        }
        return bytesByHost.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(3)
                .map(Map.Entry::getKey)
                .toArray(String[]::new);
    }
}
