package dev.ferry.plugin.explain;

import java.util.Arrays;

import org.apache.spark.SparkConf;

/** Adds {@link FerryExplainGenerator} to {@code spark.sql.extendedExplainProviders}, keeping the providers the user listed. */
public final class ExplainRegistration
{
    public static final String PROVIDERS = "spark.sql.extendedExplainProviders";

    private ExplainRegistration() {}

    /** The providers list with Ferry's appended (once). */
    public static String withFerry(String current)
    {
        String ours = FerryExplainGenerator.class.getName();
        if (current == null || current.isBlank()) {
            return ours;
        }
        boolean listed = Arrays.stream(current.split(",")).map(String::trim).anyMatch(ours::equals);
        return listed ? current : current + "," + ours;
    }

    /** On the driver's live SparkConf, before any session copies it into its SQL settings. */
    public static void register(SparkConf conf)
    {
        conf.set(PROVIDERS, withFerry(conf.get(PROVIDERS, "")));
    }
}
