package dev.ferry.shuffle.transport.rdma.verbs.disni;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import dev.ferry.common.FerryException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsAvailability;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * DiSNI gating. On machines without libdisni (this build machine, CI) the probe must turn the
 * native failure into a cached reason and never let a LinkageError escape; where libdisni is
 * installed the unavailable-path assertions are skipped with the probe's verdict.
 */
class TestDisniProbe
{
    @Test
    void withoutLibdisniTheVerdictIsACachedReasonNotALinkageError()
    {
        VerbsAvailability verdict = DisniProbe.availability();
        assumeFalse(verdict.available(), "libdisni is installed here: " + verdict.reason());
        assertTrue(verdict.reason().startsWith("DiSNI unavailable: "), verdict.reason());
        assertTrue(verdict.reason().contains("disni"), "the reason names the library: " + verdict.reason());
        assertSame(verdict, DisniProbe.availability(), "probed once, then cached");
        FerryException refused = assertThrows(FerryException.class, DisniProbe::newProvider);
        assertEquals(verdict.reason(), refused.getMessage());
    }

    @Test
    void onlyTheReflectivelyReachedClassesNameDisni()
            throws IOException, URISyntaxException
    {
        // The JVM may load the classes a class names when it verifies it: everything reachable without
        // reflection (the probe, the provider selection, the rest of Ferry's transport code) must name none.
        Set<String> allowed = Set.of("DisniNativeProbe", "DisniVerbsProvider", "DisniDevice", "DisniConnection", "DisniEndpoint", "DisniProtectionDomain",
                "GatedEndpointGroup");
        Path classes = Paths.get(DisniProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assumeTrue(Files.isDirectory(classes), "classes are packaged in " + classes);
        List<Path> checked = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes.resolve("dev/ferry/shuffle/transport"))) {
            for (Path file : files.filter(path -> path.toString().endsWith(".class")).toList()) {
                String simpleName = file.getFileName().toString().replace(".class", "").replaceAll("\\$.*", "");
                if (allowed.contains(simpleName)) {
                    continue;
                }
                String constants = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                assertFalse(constants.contains("com/ibm/disni"), file + " references DiSNI directly");
                checked.add(file);
            }
        }
        assertTrue(checked.stream().anyMatch(path -> path.endsWith("DisniProbe.class")), "the probe itself was checked");
        assertTrue(checked.size() > 30, "checked " + checked.size() + " classes");
    }

    /**
     * Reproduces DiSNI's two-stage failure in a fresh class loader: the first native touch throws
     * UnsatisfiedLinkError, the second NoClassDefFoundError ("Could not initialize class"); the
     * probe turns either into a reason.
     */
    @Test
    void nativeFailureIsUnsatisfiedLinkErrorFirstThenNoClassDefFoundError()
            throws Exception
    {
        assumeFalse(DisniProbe.availability().available(), "libdisni is installed here");
        try (IsolatingLoader loader = new IsolatingLoader()) {
            Method probe = loader.loadClass(DisniNativeProbe.class.getName()).getMethod("probe");
            Throwable first = assertThrows(InvocationTargetException.class, () -> probe.invoke(null)).getCause();
            Throwable second = assertThrows(InvocationTargetException.class, () -> probe.invoke(null)).getCause();
            assertInstanceOf(UnsatisfiedLinkError.class, rootLinkageError(first), DisniProbe.describe(first));
            assertInstanceOf(NoClassDefFoundError.class, second, DisniProbe.describe(second));
            assertTrue(DisniProbe.describe(second).contains("Could not initialize class"), DisniProbe.describe(second));

            Class<?> isolatedProbe = loader.loadClass(DisniProbe.class.getName());
            VerbsAvailability verdict = (VerbsAvailability) isolatedProbe.getMethod("availability").invoke(null);
            assertFalse(verdict.available());
            assertTrue(verdict.reason().startsWith("DiSNI unavailable: NoClassDefFoundError"), verdict.reason());
        }
    }

    private static Throwable rootLinkageError(Throwable throwable)
    {
        Throwable current = throwable;
        while (!(current instanceof UnsatisfiedLinkError) && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /** Loads DiSNI and Ferry's DiSNI package afresh (child first), everything else from the test's loader. */
    private static final class IsolatingLoader
            extends URLClassLoader
    {
        IsolatingLoader()
        {
            super(new URL[] {
                    DisniProbe.class.getProtectionDomain().getCodeSource().getLocation(),
                    disniJar(),
            }, TestDisniProbe.class.getClassLoader());
        }

        private static URL disniJar()
        {
            try {
                String classFile = TestDisniProbe.class.getClassLoader().getResource("com/ibm/disni/verbs/IbvMr.class").toString();
                return new URL(classFile.substring("jar:".length(), classFile.indexOf("!/")));
            }
            catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve)
                throws ClassNotFoundException
        {
            if (!name.startsWith("com.ibm.disni.") && !name.startsWith("dev.ferry.shuffle.transport.rdma.verbs.disni.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    loaded = findClass(name);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }
    }
}
