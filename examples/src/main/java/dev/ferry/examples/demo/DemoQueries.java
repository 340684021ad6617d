package dev.ferry.examples.demo;

import java.util.List;

/**
 * The demo's shuffle-heavy queries over {@link StarSchema}. Broadcast joins are off in the demo's
 * session, so every join shuffles both sides. Each result is small and exact (DECIMAL sums, ties in
 * rankings broken by a key), so the Ferry and Spark runs can be compared row by row.
 */
public final class DemoQueries
{
    /** One query: a short name for the tables, what it exercises, the SQL. */
    public record Query(String name, String shape, String sql)
    {
    }

    public static final List<Query> ALL = List.of(
            new Query("revenue_by_nation", "3-way join, group-by",
                    "SELECT c.nation, year(o.order_date) AS year, sum(l.extended_price * (1 - l.discount)) AS revenue, count(*) AS line_count"
                            + " FROM lineitem l JOIN orders o ON l.order_id = o.order_id JOIN customer c ON o.customer_id = c.customer_id"
                            + " GROUP BY c.nation, year(o.order_date)"),
            new Query("top_brands_per_type", "join, group-by, window rank",
                    "SELECT type, brand, quantity, rnk FROM ("
                            + " SELECT type, brand, quantity, rank() OVER (PARTITION BY type ORDER BY quantity DESC, brand) AS rnk FROM ("
                            + "  SELECT p.type, p.brand, sum(l.quantity) AS quantity FROM lineitem l JOIN part p ON l.part_id = p.part_id GROUP BY p.type, p.brand))"
                            + " WHERE rnk <= 3"),
            new Query("distinct_per_ship_mode", "count(DISTINCT) x2 (expand + two shuffles)",
                    "SELECT ship_mode, count(DISTINCT order_id) AS orders, count(DISTINCT part_id) AS parts FROM lineitem GROUP BY ship_mode"),
            new Query("order_size_histogram", "group-by on a high-cardinality key, then re-group",
                    "SELECT line_count, count(*) AS orders, sum(total) AS total FROM ("
                            + " SELECT order_id, count(*) AS line_count, sum(extended_price) AS total FROM lineitem GROUP BY order_id)"
                            + " GROUP BY line_count"),
            new Query("top_customers_per_segment", "join, group-by by customer, window row_number",
                    "SELECT segment, customer_id, spend, rn FROM ("
                            + " SELECT c.segment, c.customer_id, s.spend, row_number() OVER (PARTITION BY c.segment ORDER BY s.spend DESC, c.customer_id) AS rn"
                            + " FROM (SELECT o.customer_id, sum(l.extended_price) AS spend FROM lineitem l JOIN orders o ON l.order_id = o.order_id"
                            + "  GROUP BY o.customer_id) s JOIN customer c ON s.customer_id = c.customer_id)"
                            + " WHERE rn <= 5"));

    private DemoQueries() {}
}
