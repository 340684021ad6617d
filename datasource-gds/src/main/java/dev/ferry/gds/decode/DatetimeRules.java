package dev.ferry.gds.decode;


import dev.ferry.gds.parquet.CalendarRebase;
import static java.util.Objects.requireNonNull;

/**
 * How one file's dates and timestamps are read, as Spark reads them.
 *
 * @param datetime rebase for DATE and INT64 timestamps
 * @param int96 rebase for INT96 timestamps
 * @param rebaseTimeZone the zone Spark rebases legacy timestamps in (the writer's, else the session's)
 * @param int96ZoneConversion Spark would shift this file's INT96 values between zones
 *         ({@code spark.sql.parquet.int96TimestampConversion} on a file not written by parquet-mr), which the gds reader does not do
 */
public record DatetimeRules(CalendarRebase datetime, CalendarRebase int96, String rebaseTimeZone, boolean int96ZoneConversion)
{
    public DatetimeRules
    {
        requireNonNull(datetime, "datetime is null");
        requireNonNull(int96, "int96 is null");
        requireNonNull(rebaseTimeZone, "rebaseTimeZone is null");
    }
}
