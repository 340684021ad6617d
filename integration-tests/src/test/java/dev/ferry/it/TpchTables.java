package dev.ferry.it;

import org.apache.spark.sql.SparkSession;

/**
 * A small TPC-H-shaped database generated with Spark SQL expressions (deterministic: every value
 * is a hash of the row id), registered as temporary views. Not dbgen: the distributions are
 * simpler, but the schema, the key relationships, the decimal money columns, the dates, the
 * flags and the words the 22 queries filter on are TPC-H's, so every query returns rows and
 * exercises joins on many keys, range and hash exchanges, and subqueries. A few comments are NULL
 * so nulls travel through every exchange too.
 */
final class TpchTables
{
    private TpchTables() {}

    /** Registers region, nation, supplier, customer, part, partsupp, orders and lineitem; {@code orders} rows, ~4 line items each. */
    static void register(SparkSession spark, int orders)
    {
        int customers = Math.max(150, orders / 10);
        int parts = Math.max(200, orders / 7);
        int suppliers = Math.max(20, orders / 150);
        view(spark, "region", """
                SELECT CAST(id AS INT) AS r_regionkey,
                       element_at(array('AFRICA','AMERICA','ASIA','EUROPE','MIDDLE EAST'), CAST(id AS INT) + 1) AS r_name,
                       concat('region comment ', id) AS r_comment
                FROM range(5)""");
        view(spark, "nation", """
                SELECT CAST(id AS INT) AS n_nationkey,
                       element_at(array('ALGERIA','ARGENTINA','BRAZIL','CANADA','EGYPT','ETHIOPIA','FRANCE','GERMANY','INDIA','INDONESIA',
                                        'IRAN','IRAQ','JAPAN','JORDAN','KENYA','MOROCCO','MOZAMBIQUE','PERU','CHINA','ROMANIA',
                                        'SAUDI ARABIA','VIETNAM','RUSSIA','UNITED KINGDOM','UNITED STATES'), CAST(id AS INT) + 1) AS n_name,
                       CAST(element_at(array(0,1,1,1,4,0,3,3,2,2,4,4,2,4,0,0,0,1,2,3,4,2,3,3,1), CAST(id AS INT) + 1) AS INT) AS n_regionkey,
                       IF(id % 7 = 3, NULL, concat('nation comment ', id)) AS n_comment
                FROM range(25)""");
        view(spark, "supplier", String.format("""
                SELECT id AS s_suppkey,
                       concat('Supplier#', lpad(CAST(id AS STRING), 9, '0')) AS s_name,
                       concat('address ', hash(id, 1)) AS s_address,
                       CAST(pmod(hash(id, 2), 25) AS INT) AS s_nationkey,
                       concat(CAST(10 + pmod(hash(id, 2), 25) AS STRING), '-', lpad(CAST(pmod(hash(id, 3), 1000) AS STRING), 3, '0'), '-555-0100') AS s_phone,
                       CAST(pmod(hash(id, 4), 1100000) / 100.0 - 999.99 AS DECIMAL(12,2)) AS s_acctbal,
                       CASE WHEN pmod(hash(id, 5), 20) = 0 THEN 'wakes Customer slyly Complaints furiously'
                            WHEN pmod(hash(id, 5), 20) = 1 THEN NULL
                            ELSE concat('supplier comment ', id) END AS s_comment
                FROM range(1, %d)""", suppliers + 1));
        view(spark, "customer", String.format("""
                SELECT id AS c_custkey,
                       concat('Customer#', lpad(CAST(id AS STRING), 9, '0')) AS c_name,
                       concat('address ', hash(id, 11)) AS c_address,
                       CAST(pmod(hash(id, 12), 25) AS INT) AS c_nationkey,
                       concat(CAST(10 + pmod(hash(id, 12), 25) AS STRING), '-', lpad(CAST(pmod(hash(id, 13), 1000) AS STRING), 3, '0'), '-555-0199') AS c_phone,
                       CAST(pmod(hash(id, 14), 1100000) / 100.0 - 999.99 AS DECIMAL(12,2)) AS c_acctbal,
                       element_at(array('AUTOMOBILE','BUILDING','FURNITURE','HOUSEHOLD','MACHINERY'), pmod(hash(id, 15), 5) + 1) AS c_mktsegment,
                       IF(pmod(hash(id, 16), 11) = 0, NULL, concat('customer comment ', id)) AS c_comment
                FROM range(1, %d)""", customers + 1));
        view(spark, "part", String.format("""
                SELECT id AS p_partkey,
                       concat_ws(' ',
                           element_at(array('almond','antique','aquamarine','azure','beige','bisque','black','blanched','blue','blush',
                                            'brown','burlywood','chartreuse','chocolate','coral','cornflower','cream','cyan','dark','forest',
                                            'frosted','green','honeydew','hot','khaki','lace','lavender','lemon','lime','linen'), pmod(hash(id, 21), 30) + 1),
                           element_at(array('maroon','medium','metallic','midnight','mint','misty','moccasin','navajo','navy','olive',
                                            'orange','orchid','pale','papaya','peach','peru','pink','plum','powder','puff'), pmod(hash(id, 22), 20) + 1),
                           element_at(array('green','red','rose','rosy','royal','saddle','salmon','sandy','seashell','sienna'), pmod(hash(id, 23), 10) + 1)) AS p_name,
                       concat('Manufacturer#', CAST(pmod(hash(id, 24), 5) + 1 AS STRING)) AS p_mfgr,
                       concat('Brand#', CAST(pmod(hash(id, 24), 5) + 1 AS STRING), CAST(pmod(hash(id, 25), 5) + 1 AS STRING)) AS p_brand,
                       concat_ws(' ',
                           element_at(array('STANDARD','SMALL','MEDIUM','LARGE','ECONOMY','PROMO'), pmod(hash(id, 26), 6) + 1),
                           element_at(array('ANODIZED','BURNISHED','PLATED','POLISHED','BRUSHED'), pmod(hash(id, 27), 5) + 1),
                           element_at(array('TIN','NICKEL','BRASS','STEEL','COPPER'), pmod(hash(id, 28), 5) + 1)) AS p_type,
                       CAST(pmod(hash(id, 29), 50) + 1 AS INT) AS p_size,
                       concat(element_at(array('SM','LG','MED','JUMBO','WRAP'), pmod(hash(id, 30), 5) + 1), ' ',
                              element_at(array('CASE','BOX','BAG','JAR','PKG','PACK','CAN','DRUM'), pmod(hash(id, 31), 8) + 1)) AS p_container,
                       CAST(900 + (id %% 200) + pmod(hash(id, 32), 100) / 100.0 AS DECIMAL(12,2)) AS p_retailprice,
                       IF(id %% 13 = 0, NULL, concat('part comment ', id)) AS p_comment
                FROM range(1, %d)""", parts + 1));
        // Four suppliers per part, as in TPC-H.
        view(spark, "partsupp", String.format("""
                SELECT p.id AS ps_partkey,
                       CAST(pmod(p.id + s.id * (%1$d / 4 + 1), %1$d) + 1 AS BIGINT) AS ps_suppkey,
                       CAST(pmod(hash(p.id, s.id, 41), 9999) + 1 AS INT) AS ps_availqty,
                       CAST(pmod(hash(p.id, s.id, 42), 100000) / 100.0 + 1 AS DECIMAL(12,2)) AS ps_supplycost,
                       concat('partsupp comment ', p.id, '-', s.id) AS ps_comment
                FROM range(1, %2$d) p CROSS JOIN range(4) s""", suppliers, parts + 1));
        view(spark, "orders", String.format("""
                SELECT id AS o_orderkey,
                       -- as in TPC-H, a third of the customers (keys divisible by 3) never order
                       CAST(pmod(hash(id, 51), %1$d) + 1 - IF(pmod(pmod(hash(id, 51), %1$d) + 1, 3) = 0, 1, 0) AS BIGINT) AS o_custkey,
                       element_at(array('F','O','P'), pmod(hash(id, 52), 3) + 1) AS o_orderstatus,
                       CAST(pmod(hash(id, 53), 50000000) / 100.0 + 850 AS DECIMAL(12,2)) AS o_totalprice,
                       date_add(DATE'1992-01-01', pmod(hash(id, 54), 2400)) AS o_orderdate,
                       element_at(array('1-URGENT','2-HIGH','3-MEDIUM','4-NOT SPECIFIED','5-LOW'), pmod(hash(id, 55), 5) + 1) AS o_orderpriority,
                       concat('Clerk#', lpad(CAST(pmod(hash(id, 56), 1000) AS STRING), 9, '0')) AS o_clerk,
                       0 AS o_shippriority,
                       CASE WHEN pmod(hash(id, 57), 30) = 0 THEN 'carefully special requests sleep'
                            WHEN pmod(hash(id, 57), 30) = 1 THEN NULL
                            ELSE concat('order comment ', id) END AS o_comment
                FROM range(1, %2$d)""", customers, orders + 1));
        view(spark, "lineitem", String.format("""
                SELECT l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity,
                       CAST(l_quantity * (900 + (l_partkey %% 200)) AS DECIMAL(12,2)) AS l_extendedprice,
                       l_discount, l_tax,
                       IF(l_receiptdate <= DATE'1995-06-17', element_at(array('R','A'), pmod(hash(l_orderkey, l_linenumber, 61), 2) + 1), 'N') AS l_returnflag,
                       IF(l_shipdate > DATE'1995-06-17', 'O', 'F') AS l_linestatus,
                       l_shipdate, l_commitdate, l_receiptdate,
                       element_at(array('DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'), pmod(hash(l_orderkey, l_linenumber, 62), 4) + 1) AS l_shipinstruct,
                       element_at(array('REG AIR','AIR','RAIL','SHIP','TRUCK','MAIL','FOB'), pmod(hash(l_orderkey, l_linenumber, 63), 7) + 1) AS l_shipmode,
                       IF(pmod(hash(l_orderkey, l_linenumber, 64), 17) = 0, NULL, concat('lineitem comment ', l_orderkey, '-', l_linenumber)) AS l_comment
                FROM (
                    SELECT o.o_orderkey AS l_orderkey,
                           CAST(pmod(hash(o.o_orderkey, n.id, 65), %1$d) + 1 AS BIGINT) AS l_partkey,
                           CAST(pmod(pmod(hash(o.o_orderkey, n.id, 65), %1$d) + 1 + (n.id %% 4) * (%2$d / 4 + 1), %2$d) + 1 AS BIGINT) AS l_suppkey,
                           CAST(n.id + 1 AS INT) AS l_linenumber,
                           CAST(pmod(hash(o.o_orderkey, n.id, 66), 50) + 1 AS DECIMAL(12,2)) AS l_quantity,
                           CAST(pmod(hash(o.o_orderkey, n.id, 67), 11) / 100.0 AS DECIMAL(12,2)) AS l_discount,
                           CAST(pmod(hash(o.o_orderkey, n.id, 68), 9) / 100.0 AS DECIMAL(12,2)) AS l_tax,
                           date_add(o.o_orderdate, pmod(hash(o.o_orderkey, n.id, 69), 121) + 1) AS l_shipdate,
                           date_add(o.o_orderdate, pmod(hash(o.o_orderkey, n.id, 70), 61) + 30) AS l_commitdate,
                           date_add(o.o_orderdate, pmod(hash(o.o_orderkey, n.id, 69), 121) + 1 + pmod(hash(o.o_orderkey, n.id, 71), 30) + 1) AS l_receiptdate
                    FROM orders o CROSS JOIN range(7) n
                    WHERE n.id < 1 + pmod(hash(o.o_orderkey, 72), 7))""", parts, suppliers));
    }

    /** Materialized once (cached), so both runs of every query read the same rows without regenerating them. */
    private static void view(SparkSession spark, String name, String sql)
    {
        spark.sql(sql).cache().createOrReplaceTempView(name);
    }
}
