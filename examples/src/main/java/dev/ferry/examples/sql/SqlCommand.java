package dev.ferry.examples.sql;

import dev.ferry.examples.launch.SparkJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import static org.apache.spark.sql.functions.col;

/**
 * {@code bin/ferry sql}: runs Spark SQL with Ferry's plugin, shuffle manager and columnar exchange
 * (or, with {@code --ferry off}, Spark's own shuffle) without a Spark distribution, and prints the
 * last statement's result as CSV on stdout. {@code local-cluster[N,c,m]} masters work: executors
 * get this JVM's class path. {@code --routes} prints how many bytes and blocks each shuffle route
 * carried in the last statement to stderr.
 */
public final class SqlCommand
{

    private SqlCommand() {}

    public static void main(String[] args)
            throws Exception
    {
        SqlArguments arguments;
        try {
            arguments = SqlArguments.parse(args);
        }
        catch (IllegalArgumentException e) {
            System.err.println("ferry sql: " + e.getMessage());
            System.err.println(SqlArguments.USAGE);
            System.exit(2);
            return;
        }
        int childExit = SparkJvm.relaunchIfNeeded(SqlCommand.class, args);
        if (childExit >= 0) {
            System.exit(childExit);
        }
        try {
            run(arguments);
        }
        catch (Exception e) {
            System.err.println("ferry sql: " + e.getMessage());
            System.exit(1);
        }
        System.exit(0);
    }



    static void run(SqlArguments arguments)
            throws IOException, InterruptedException
    {
        String script = arguments.sql().isPresent() ? arguments.sql().get() : Files.readString(Path.of(arguments.file().get()), StandardCharsets.UTF_8);
        List<String> statements = SqlStatements.split(script);
        if (statements.isEmpty()) {
            throw new IllegalArgumentException("No SQL statement given");
        }
        SparkSession spark = session(arguments);
        try {
            for (int i = 0; i < statements.size() - 1; i++) {
                // Commands (CREATE VIEW, SET, ...) run here; an earlier query's rows are not printed.
                spark.sql(statements.get(i));
            }
            Dataset<Row> last = spark.sql(statements.get(statements.size() - 1));
            String[] header = last.columns();
            // Renamed by position first (a join may output two columns of one name), then rendered by
            // Spark's own cast to string, so both shuffles print values identically.
            Dataset<Row> text = last.toDF(columnsByPosition(header.length)).select(textColumns(header.length));
            List<Row> rows = text.collectAsList();
            CsvOutput.print(System.out, header, rows);
            if (arguments.routes()) {
                RouteTotals totals = new RouteTotals();
                totals.add(text.queryExecution().executedPlan());
                totals.print(System.err);
            }
        }
        finally {
            spark.stop();
        }
    }

    private static String[] columnsByPosition(int count)
    {
        String[] names = new String[count];
        for (int i = 0; i < count; i++) {
            names[i] = "c" + i;
        }
        return names;
    }

    private static Column[] textColumns(int count)
    {
        Column[] columns = new Column[count];
        for (int i = 0; i < count; i++) {
            columns[i] = col("c" + i).cast("string");
        }
        return columns;
    }

    private static SparkSession session(SqlArguments arguments)
            throws InterruptedException
    {
        SparkSession.Builder builder = SparkSession.builder()
                .master(arguments.master())
                .appName("ferry-sql")
                .config("spark.shuffle.manager", "dev.ferry.shuffle.FerryShuffleManager")
                .config("spark.ferry.enabled", String.valueOf(arguments.ferry()))
                .config("spark.ui.enabled", "false")
                .config("spark.plugins", "dev.ferry.FerryPlugin");
        boolean localCluster = arguments.master().startsWith("local-cluster");
        if (localCluster) {
            // What Spark's own launcher would provide: executors run from this JVM's class path.
            builder.config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
                    .config("spark.executorEnv.SPARK_TESTING", "1")
                    .config("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                    .config("spark.executor.memory", "768m");
        }
        arguments.conf().forEach(builder::config);
        // --ferry decides, whatever --conf said.
        builder.config("spark.ferry.enabled", String.valueOf(arguments.ferry()));
        SparkSession spark = builder.getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        if (localCluster) {
            int executors = Integer.parseInt(arguments.master().replaceAll("^local-cluster\\[\\s*(\\d+).*$", "$1"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (spark.sparkContext().statusTracker().getExecutorInfos().length < executors + 1) {
                if (System.nanoTime() > deadline) {
                    spark.stop();
                    throw new IllegalStateException("The " + executors + " local-cluster executors did not start within 180 s");
                }
                Thread.sleep(100);
            }
        }
        return spark;
    }
}
