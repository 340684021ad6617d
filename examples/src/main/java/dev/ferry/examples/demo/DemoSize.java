package dev.ferry.examples.demo;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How much data the demo generates: a Parquet size ({@code --size 300m}) turned into lineitem rows
 * with the bytes one generated row takes (all four tables together, measured on the generator's
 * output), or a row count given directly ({@code --rows}). The row count names the cached dataset,
 * so a size always maps to the same data.
 */
record DemoSize(long lineitemRows, String label)
{
    /**
     * The default: the few hundred MB the demo is specified with, at the size that still keeps CI's
     * run of {@code bin/ferry demo} to about six minutes on an idle 2-core machine (measured on a clean
     * clone with the build done: 5 min 58 s for 200 MB, data generation included; about 60 CPU-seconds
     * fixed plus 3.6 per MB of Parquet). Smaller sizes ({@code --size 50m}) are for a quick look.
     */
    static final String DEFAULT = "200m";

    /**
     * Parquet bytes per lineitem row, all four tables included (orders at one per four lines,
     * customers and parts fewer): measured as 73.4 MB for 3,000,000 rows with Spark's default codec
     * (21.7 at 300,000 rows, where the dimension tables compress better).
     */
    static final double BYTES_PER_ROW = 24.5;

    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmg]?)b?", Pattern.CASE_INSENSITIVE);

    DemoSize
    {
        if (lineitemRows < 1) {
            throw new IllegalArgumentException("lineitem rows must be positive, got " + lineitemRows);
        }
    }

    static DemoSize rows(long rows)
    {
        return new DemoSize(rows, String.format(Locale.ROOT, "%,d lineitem rows", rows));
    }

    static DemoSize parse(String text)
    {
        Matcher matcher = SIZE.matcher(text.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("--size takes a size like 50m, 300m or 1g, got '" + text + "'");
        }
        double scale = switch (matcher.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 1e3;
            case "m" -> 1e6;
            case "g" -> 1e9;
            default -> 1;
        };
        double bytes = Double.parseDouble(matcher.group(1)) * scale;
        long rows = (long) (bytes / BYTES_PER_ROW);
        if (rows < 1000) {
            throw new IllegalArgumentException("--size " + text + " is too small to generate; the smallest is 100k");
        }
        return new DemoSize(rows, "about " + text.trim().toLowerCase(Locale.ROOT) + " of Parquet");
    }
}
