package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;

import java.time.LocalDate;

/** A pushed test's literal as SQL writes it, for the scan's explain string. */
final class LiteralText
{
    private LiteralText() {}

    static String of(Object literal, DataType type)
    {
        if (type instanceof StringType && literal instanceof UTF8String string) {
            return "'" + string.toString().replace("'", "''") + "'";
        }
        if (type instanceof DateType && literal instanceof Integer days) {
            return "DATE '" + LocalDate.ofEpochDay(days) + "'";
        }
        return String.valueOf(literal);
    }
}
