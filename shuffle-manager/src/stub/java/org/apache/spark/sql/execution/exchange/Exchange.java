package org.apache.spark.sql.execution.exchange;

import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.UnaryExecNode;
import scala.Enumeration;
import scala.Function1;
import scala.collection.Iterator;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

/**
 * COMPILE-ONLY stand-in for Spark 4.2.0's {@code Exchange}; never on a runtime classpath.
 *
 * <p>Why it exists: scalac emits the real class's {@code withNewChildrenInternal} and
 * {@code mapChildren} as {@code final} forwarders with raw types, and javac then refuses every
 * subclass ("cannot override"), yet AQE only turns nodes that are {@code instanceof Exchange} into
 * query stages. This stub declares the same members with the same erasures (javap of
 * spark-sql_2.13-4.2.0) and proper generics, so javac accepts {@code FerryShuffleExchangeExec}; the
 * build deletes the compiled stub right after compiling (shuffle-manager/pom.xml) and the JVM links
 * the subclass against the real class. {@code TestExchangeStubMatchesSpark} checks that the real
 * class still has these members and that they are still final, so a Spark upgrade cannot silently
 * break the contract. The bodies never run.
 */
public abstract class Exchange
        extends SparkPlan
        implements UnaryExecNode
{
    @Override
    public String verboseStringWithOperatorId()
    {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public final SparkPlan mapChildren(Function1<SparkPlan, SparkPlan> function)
    {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public final SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren)
    {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public final Seq<SparkPlan> children()
    {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public Seq<Attribute> output()
    {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public final Seq<Enumeration.Value> nodePatterns()
    {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public Iterator<Object> stringArgs()
    {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
