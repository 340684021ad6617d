package dev.ferry.shuffle.exchange;

import java.util.Optional;

import dev.ferry.conf.SparkConfigSources;
import dev.ferry.shuffle.FerryShuffleManager;
import dev.ferry.shuffle.ShuffleConfigKeys;
import dev.ferry.shuffle.format.ArrowSchemas;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning;
import org.apache.spark.sql.catalyst.plans.physical.RoundRobinPartitioning;
import org.apache.spark.sql.catalyst.plans.physical.SinglePartition$;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.internal.SQLConf;

/** Whether Ferry can take over one of Spark's shuffle exchanges, and if not, why (also asked by the explain provider). */
public final class ExchangeSupport
{
    private ExchangeSupport() {}

    /** Why Ferry's rule will leave this exchange to Spark in the current session, or empty when it will take it. */
    public static Optional<String> refusal(ShuffleExchangeExec exchange)
    {
        if (!ShuffleConfigKeys.ENABLED.get(SparkConfigSources.of(SQLConf.get()))) {
            return Optional.of(ShuffleConfigKeys.ENABLED.name() + "=false");
        }
        return unsupportedReason(exchange);
    }

    static Optional<String> unsupportedReason(ShuffleExchangeExec exchange)
    {
        SparkEnv env = SparkEnv.get();
        if (env == null || !(env.shuffleManager() instanceof FerryShuffleManager)) {
            return Optional.of("spark.shuffle.manager is not dev.ferry.shuffle.FerryShuffleManager");
        }
        if (env.conf().getBoolean("spark.shuffle.service.enabled", false)) {
            // The external shuffle service would be trusted to serve outputs that live in executors.
            return Optional.of("spark.shuffle.service.enabled=true is not supported");
        }
        if (env.conf().getBoolean("spark.io.encryption.enabled", false)) {
            // Spark encrypts its shuffle files; Ferry's map outputs may spill to local disk or sit in shared memory, not yet encrypted.
            return Optional.of("spark.io.encryption.enabled=true is not supported (Ferry's spilled map outputs are not encrypted)");
        }
        if (Boolean.parseBoolean(SQLConf.get().getConfString("spark.sql.shuffle.orderIndependentChecksum.enabled", "false"))) {
            // Spark's row-based checksum is computed by its own writers; Ferry's would report none.
            return Optional.of("spark.sql.shuffle.orderIndependentChecksum.enabled=true is not supported");
        }
        Partitioning partitioning = exchange.outputPartitioning();
        if (!(partitioning instanceof HashPartitioning || partitioning instanceof RangePartitioning || partitioning instanceof RoundRobinPartitioning
                || partitioning == SinglePartition$.MODULE$)) {
            return Optional.of("partitioning " + partitioning.getClass().getSimpleName() + " is not handled");
        }
        return ArrowSchemas.unsupportedReason(DataTypeUtils.fromAttributes(exchange.child().output()));
    }
}
