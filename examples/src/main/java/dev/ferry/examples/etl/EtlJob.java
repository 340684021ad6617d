package dev.ferry.examples.etl;

import java.nio.file.Path;

import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * The ETL example as users deploy it: a main class for {@code spark-submit}, configured entirely by
 * the submit's {@code --conf} flags (Ferry's plugin jar on {@code --jars}, {@code spark.plugins},
 * {@code spark.shuffle.manager}).
 *
 * <pre>
 * spark-submit --class dev.ferry.examples.etl.EtlJob ... ferry-examples.jar INPUT OUTPUT [--generate ROWS]
 * </pre>
 *
 * Reads {@code INPUT/orders} and {@code INPUT/lineitem} (with {@code --generate}, writes them first),
 * runs {@link EtlPipeline} and writes Parquet to {@code OUTPUT}. Prints, each on a line starting with
 * {@value #PREFIX}, what the shuffles did and a fingerprint of the output, so a run can be checked
 * from its stdout alone; then the executed plan.
 */
public final class EtlJob
{
    public static final String PREFIX = "ferry-etl: ";
    static final String USAGE = "usage: EtlJob INPUT OUTPUT [--generate ROWS]";

    private EtlJob() {}

    public static void main(String[] args)
            throws InterruptedException
    {
        if (args.length != 2 && !(args.length == 4 && args[2].equals("--generate"))) {
            throw new IllegalArgumentException(USAGE);
        }
        Path input = Path.of(args[0]).toAbsolutePath();
        Path output = Path.of(args[1]).toAbsolutePath();
        SparkSession spark = SparkSession.builder().appName("ferry-etl").getOrCreate();
        try {
            SparkConf conf = spark.sparkContext().getConf();
            if (!conf.contains("spark.sql.autoBroadcastJoinThreshold")) {
                // The orders table is small enough to broadcast; shuffle both join sides unless told otherwise.
                spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
            }
            if (args.length == 4) {
                EtlData.generate(spark, input, Long.parseLong(args[3]));
            }
            SparkPlan plan;
            long started = System.nanoTime();
            try (ExecutedPlans plans = ExecutedPlans.listen(spark)) {
                EtlPipeline.run(spark, input, output);
                plan = plans.nextWithShuffle();
            }
            long millis = (System.nanoTime() - started) / 1_000_000;
            System.out.println(PREFIX + "ferry.enabled=" + conf.get("spark.ferry.enabled", "true") + " master=" + spark.sparkContext().master()
                    + " executors=" + (spark.sparkContext().statusTracker().getExecutorInfos().length - 1) + " millis=" + millis);
            System.out.println(PREFIX + ShuffleSummary.of(plan).line());
            System.out.println(PREFIX + "result " + EtlPipeline.fingerprint(spark, output));
            System.out.println(PREFIX + "executed plan:");
            System.out.println(plan);
            System.out.flush();
        }
        finally {
            spark.stop();
        }
    }
}
