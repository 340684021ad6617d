package dev.ferry.gds.parquet;

import org.apache.parquet.hadoop.metadata.FileMetaData;

import java.util.Locale;
import java.util.Map;

/**
 * Whether a file's dates and timestamps need Spark's Julian-to-Gregorian rebase, decided from its
 * footer exactly as Spark's {@code DataSourceUtils} does: files Spark wrote say so in their
 * metadata; files other writers wrote follow the session setting.
 */
public enum CalendarRebase
{
    /** Values are proleptic Gregorian: read as they are. */
    CORRECTED,
    /** Values are in the legacy hybrid calendar and need rebasing. */
    LEGACY,
    /** Fail on values before 1582-10-15, which would be ambiguous. */
    EXCEPTION;

    static final String SPARK_VERSION_KEY = "org.apache.spark.version";
    static final String LEGACY_DATETIME_KEY = "org.apache.spark.legacyDateTime";
    static final String LEGACY_INT96_KEY = "org.apache.spark.legacyINT96";

    /** For DATE and INT64 timestamps. */
    public static CalendarRebase forDatetime(FileMetaData metadata, String sessionMode)
    {
        Map<String, String> keyValues = metadata.getKeyValueMetaData();
        String version = keyValues.get(SPARK_VERSION_KEY);
        if (version == null) {
            return parse(sessionMode);
        }
        return version.compareTo("3.0.0") < 0 || keyValues.containsKey(LEGACY_DATETIME_KEY) ? LEGACY : CORRECTED;
    }

    /** For INT96 timestamps. */
    public static CalendarRebase forInt96(FileMetaData metadata, String sessionMode)
    {
        Map<String, String> keyValues = metadata.getKeyValueMetaData();
        String version = keyValues.get(SPARK_VERSION_KEY);
        if (version == null) {
            return parse(sessionMode);
        }
        return version.compareTo("3.1.0") < 0 || keyValues.containsKey(LEGACY_INT96_KEY) ? LEGACY : CORRECTED;
    }

    private static CalendarRebase parse(String mode)
    {
        return CalendarRebase.valueOf(mode.trim().toUpperCase(Locale.ROOT));
    }
}
