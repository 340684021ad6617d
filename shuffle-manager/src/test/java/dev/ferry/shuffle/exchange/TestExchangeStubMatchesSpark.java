package dev.ferry.shuffle.exchange;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.UnaryExecNode;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeLike;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The compile-only stub of Spark's Exchange (src/stub/java) must describe the real class: the same
 * members, final where Spark's are final, so that what javac accepted against the stub links
 * against Spark. And the stub must never reach a runtime class path: the Exchange loaded here
 * comes from spark-sql.
 */
class TestExchangeStubMatchesSpark
{
    private static final Path STUB = Path.of("src/stub/java/org/apache/spark/sql/execution/exchange/Exchange.java");
    private static final Pattern METHOD = Pattern.compile("public (final )?[\\w.<>, ]+ (\\w+)\\(");

    @Test
    void theRealExchangeIsLoadedNotTheStub()
    {
        String source = Exchange.class.getProtectionDomain().getCodeSource().getLocation().toString();
        assertTrue(source.contains("spark-sql"), "Exchange comes from " + source);
        assertTrue(Modifier.isAbstract(Exchange.class.getModifiers()));
        assertEquals(SparkPlan.class, Exchange.class.getSuperclass());
        assertTrue(Arrays.asList(Exchange.class.getInterfaces()).contains(UnaryExecNode.class));
    }

    @Test
    void stubMembersMatchSparksExchange()
            throws IOException
    {
        Matcher matcher = METHOD.matcher(Files.readString(STUB));
        List<String> stubbed = new ArrayList<>();
        while (matcher.find()) {
            String name = matcher.group(2);
            boolean stubFinal = matcher.group(1) != null;
            stubbed.add(name);
            Method real = Arrays.stream(Exchange.class.getDeclaredMethods())
                    .filter(method -> method.getName().equals(name) && !method.isSynthetic() && !method.isBridge())
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("Spark's Exchange has no " + name + "; regenerate the stub for this Spark version"));
            assertEquals(Modifier.isFinal(real.getModifiers()), stubFinal, name + ": final in Spark " + Modifier.isFinal(real.getModifiers()) + ", in the stub " + stubFinal);
        }
        for (Method real : Exchange.class.getDeclaredMethods()) {
            if (Modifier.isPublic(real.getModifiers()) && !Modifier.isStatic(real.getModifiers()) && !real.isSynthetic()) {
                assertTrue(stubbed.contains(real.getName()), "Spark's Exchange." + real.getName() + " is missing from the stub");
            }
        }
    }

    @Test
    void ferrysExchangeNeverRedeclaresSparksFinalMembers()
    {
        for (Method real : Exchange.class.getDeclaredMethods()) {
            if (Modifier.isFinal(real.getModifiers())) {
                for (Method own : FerryShuffleExchangeExec.class.getDeclaredMethods()) {
                    assertFalse(own.getName().equals(real.getName()) && Arrays.equals(own.getParameterTypes(), real.getParameterTypes()),
                            "FerryShuffleExchangeExec redeclares final " + real);
                }
            }
        }
        assertTrue(ShuffleExchangeLike.class.isAssignableFrom(FerryShuffleExchangeExec.class));
        assertTrue(Exchange.class.isAssignableFrom(FerryShuffleExchangeExec.class));
    }
}
