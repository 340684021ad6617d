package dev.ferry.examples.sql;

import java.io.PrintStream;
import java.util.List;

import org.apache.spark.sql.Row;

/** RFC 4180 CSV: header then rows; null is an empty field; fields with a comma, quote or line break are quoted. */
final class CsvOutput
{
    private CsvOutput() {}

    static void print(PrintStream out, String[] header, List<Row> rows)
    {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < header.length; i++) {
            appendField(line, i, header[i]);
        }
        out.println(line);
        for (Row row : rows) {
            line.setLength(0);
            for (int i = 0; i < row.length(); i++) {
                appendField(line, i, row.isNullAt(i) ? null : row.getString(i));
            }
            out.println(line);
        }
        out.flush();
    }

    private static void appendField(StringBuilder line, int index, String value)
    {
        if (index > 0) {
            line.append(',');
        }
        if (value == null) {
            return;
        }
        if (value.indexOf(',') >= 0 || value.indexOf('"') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
            line.append('"').append(value.replace("\"", "\"\"")).append('"');
        }
        else {
            line.append(value);
        }
    }
}
