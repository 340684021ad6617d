package dev.ferry.gds.parquet;

import java.util.Locale;

/** How Spark matches column names: exactly when Spark is case-sensitive, else ignoring case (in the root locale). */
public final class ColumnNames
{
    private ColumnNames() {}

    public static boolean sameName(String a, String b, boolean caseSensitive)
    {
        return caseSensitive ? a.equals(b) : a.toLowerCase(Locale.ROOT).equals(b.toLowerCase(Locale.ROOT));
    }
}
