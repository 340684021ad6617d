package dev.ferry.examples.demo;

import dev.ferry.examples.demo.DemoQueries.Query;
import dev.ferry.examples.demo.QueryRunner.Run;

/** One query run both ways, and whether the two agree: same rows, Ferry's exchange in the Ferry run only. */
record QueryComparison(Query query, Run ferry, Run spark)
{
    boolean sameRows()
    {
        return ferry.rows().equals(spark.rows());
    }

    boolean ferryUsedItsExchange()
    {
        return ferry.shuffles().ferryExchanges() > 0 && spark.shuffles().ferryExchanges() == 0;
    }

    boolean ferryUsedGdsReader()
    {
        return ferry.scans().gdsScans() > 0 && spark.scans().gdsScans() == 0;
    }

    /** Spark's time over Ferry's: above 1, Ferry was faster. */
    double speedup()
    {
        return spark.millis() / (double) Math.max(1, ferry.millis());
    }
}
