package dev.ferry.shuffle.exchange;

import java.util.List;
import java.util.Optional;

import dev.ferry.shuffle.FerryFallbacks;
import dev.ferry.shuffle.ShuffleConfigKeys;
import dev.ferry.conf.SparkConfigSources;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.RowToColumnarExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.internal.SQLConf;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractPartialFunction;

/**
 * Puts Ferry's exchange in place of Spark's. It is a columnar rule because AQE runs the columnar
 * rules on every new query stage with the exchange at its root, and accepts a rule that turns a
 * shuffle into another {@code ShuffleExchangeLike}; the same rule covers plans without AQE.
 *
 * <p>Before transitions: each supported {@link ShuffleExchangeExec} becomes a
 * {@link FerryShuffleExchangeExec}; an unsupported one stays, with a {@link FerryFallbackExec}
 * under it that shows the reason in explain. After transitions: a RowToColumnar or ColumnarToRow
 * that Spark put between Ferry's exchange and its child goes, since the exchange takes rows and
 * batches alike (batches directly, without converting them to rows first).
 */
public final class FerryColumnarRule
        extends ColumnarRule
{
    @Override
    public Rule<SparkPlan> preColumnarTransitions()
    {
        return new Rule<>()
        {
            @Override
            public SparkPlan apply(SparkPlan plan)
            {
                if (!ShuffleConfigKeys.ENABLED.get(SparkConfigSources.of(SQLConf.get()))) {
                    return plan;
                }
                return plan.transformUp(new AbstractPartialFunction<>()
                {
                    @Override
                    public boolean isDefinedAt(SparkPlan node)
                    {
                        return node instanceof ShuffleExchangeExec && !(((ShuffleExchangeExec) node).child() instanceof FerryFallbackExec);
                    }

                    @Override
                    public <A1 extends SparkPlan, B1> B1 applyOrElse(A1 node, scala.Function1<A1, B1> fallback)
                    {
                        if (!isDefinedAt(node)) {
                            return fallback.apply(node);
                        }
                        @SuppressWarnings("unchecked")
                        B1 replaced = (B1) replace((ShuffleExchangeExec) node);
                        return replaced;
                    }
                });
            }
        };
    }

    static SparkPlan replace(ShuffleExchangeExec exchange)
    {
        Optional<String> reason = ExchangeSupport.unsupportedReason(exchange);
        if (reason.isPresent()) {
            FerryFallbacks.record("Spark's exchange kept", reason.get());
            SparkPlan marked = new FerryFallbackExec("Ferry kept Spark's exchange: " + reason.get(), exchange.child());
            return exchange.withNewChildren(CollectionConverters.asScala(List.of(marked)).toSeq());
        }
        return new FerryShuffleExchangeExec(exchange.outputPartitioning(), exchange.child(), exchange.shuffleOrigin(), exchange.advisoryPartitionSize());
    }

    @Override
    public Rule<SparkPlan> postColumnarTransitions()
    {
        return new Rule<>()
        {
            @Override
            public SparkPlan apply(SparkPlan plan)
            {
                return plan.transformUp(new AbstractPartialFunction<>()
                {
                    @Override
                    public boolean isDefinedAt(SparkPlan node)
                    {
                        return node instanceof FerryShuffleExchangeExec
                                && (((FerryShuffleExchangeExec) node).child() instanceof RowToColumnarExec || ((FerryShuffleExchangeExec) node).child() instanceof ColumnarToRowExec);
                    }

                    @Override
                    public <A1 extends SparkPlan, B1> B1 applyOrElse(A1 node, scala.Function1<A1, B1> fallback)
                    {
                        if (!isDefinedAt(node)) {
                            return fallback.apply(node);
                        }
                        FerryShuffleExchangeExec exchange = (FerryShuffleExchangeExec) node;
                        @SuppressWarnings("unchecked")
                        SparkPlan transition = exchange.child();
                        SparkPlan input = transition instanceof RowToColumnarExec ? ((RowToColumnarExec) transition).child() : ((ColumnarToRowExec) transition).child();
                        B1 replaced = (B1) exchange.withNewChildInternal(input);
                        return replaced;
                    }
                });
            }
        };
    }
}
