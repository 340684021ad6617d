package dev.ferry.gds;

import org.apache.spark.sql.Row;
import scala.collection.Iterator;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

/**
 * Rows as canonical strings, so two collected results compare as sorted lists: binary as hex, maps
 * with sorted entries, decimals without trailing-zero differences hidden, doubles and floats exactly.
 */
public final class RowRendering
{
    private RowRendering() {}

    public static List<String> sorted(List<Row> rows)
    {
        List<String> rendered = new ArrayList<>();
        for (Row row : rows) {
            rendered.add(render(row));
        }
        Collections.sort(rendered);
        return rendered;
    }

    static String render(Object value)
    {
        if (value == null) {
            return "null";
        }
        if (value instanceof byte[]) {
            return "0x" + HexFormat.of().formatHex((byte[]) value);
        }
        if (value instanceof Row) {
            Row row = (Row) value;
            StringBuilder builder = new StringBuilder("{");
            for (int index = 0; index < row.length(); index++) {
                builder.append(index == 0 ? "" : ", ").append(render(row.get(index)));
            }
            return builder.append('}').toString();
        }
        if (value instanceof scala.collection.Map) {
            List<String> entries = new ArrayList<>();
            Iterator<?> iterator = ((scala.collection.Map<?, ?>) value).iterator();
            while (iterator.hasNext()) {
                scala.Tuple2<?, ?> entry = (scala.Tuple2<?, ?>) iterator.next();
                entries.add(render(entry._1()) + "->" + render(entry._2()));
            }
            Collections.sort(entries);
            return "map" + entries;
        }
        if (value instanceof scala.collection.Seq) {
            List<String> elements = new ArrayList<>();
            Iterator<?> iterator = ((scala.collection.Seq<?>) value).iterator();
            while (iterator.hasNext()) {
                elements.add(render(iterator.next()));
            }
            return "seq" + elements;
        }
        if (value instanceof BigDecimal) {
            return "dec:" + ((BigDecimal) value).toPlainString();
        }
        if (value instanceof Double) {
            return "d:" + Double.doubleToLongBits((Double) value) + "(" + value + ")";
        }
        if (value instanceof Float) {
            return "f:" + Float.floatToIntBits((Float) value) + "(" + value + ")";
        }
        return value.getClass().getSimpleName() + ":" + value;
    }
}
