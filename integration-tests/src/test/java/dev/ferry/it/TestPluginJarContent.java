package dev.ferry.it;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What the shaded plugin jar carries: the JNI libraries of the CUDA presets Ferry calls, for linux-x86_64 and
 * linux-arm64, and none of the others; every CUDA class Ferry's own classes name; each kept preset's
 * superclass and {@code @Properties} inheritance chain, which JavaCPP's Loader walks before it loads a library; a size bound.
 */
class TestPluginJarContent
{
    private static final List<String> PLATFORMS = List.of("linux-x86_64", "linux-arm64");
    private static final List<String> KEPT_PRESETS = List.of("cudart", "cufile", "nvml", "nvcomp", "nvrtc");
    private static final List<String> DROPPED_PRESETS = List.of("cublas", "cudnn", "cufft", "cufftw", "cupti", "curand", "cusolver", "cusparse",
            "nccl", "nppc", "nppial", "nppicc", "nppidei", "nppif", "nppig", "nppim", "nppist", "nppisu", "nppitc", "npps", "nvblas", "nvjpeg");
    /** 5.3 MB with both platforms when this was written (8.7 MB with one platform and every preset before). */
    private static final long MAX_COMPRESSED_BYTES = 6L << 20;

    @Test
    void carriesTheKeptNativesForBothPlatformsAndNoOthers()
            throws IOException
    {
        Set<String> entries = entries();
        for (String platform : PLATFORMS) {
            assertTrue(entries.contains("org/bytedeco/javacpp/" + platform + "/libjnijavacpp.so"), "JavaCPP's own JNI library for " + platform + " is missing");
            for (String preset : KEPT_PRESETS) {
                String library = "org/bytedeco/cuda/" + platform + "/libjni" + preset + ".so";
                assertTrue(entries.contains(library), library + " is missing");
            }
        }
        // JavaCPP's Loader compares the presets' version with its own from these (a warning on every load without them)
        assertTrue(entries.contains("META-INF/maven/org.bytedeco/cuda/pom.properties") && entries.contains("META-INF/maven/org.bytedeco/javacpp/pom.properties"),
                "the JavaCPP and CUDA presets' pom.properties");
        assertTrue(entries.contains("lib/linux-x86_64/libbrotli.so") && entries.contains("lib/linux-aarch64/libbrotli.so"), "brotli4j's natives for both platforms");
        assertTrue(entries.contains("arrow_cdata_jni/x86_64/libarrow_cdata_jni.so") && entries.contains("arrow_cdata_jni/aarch_64/libarrow_cdata_jni.so"), "Arrow C Data natives for both platforms");
        List<String> unexpected = new ArrayList<>();
        for (String entry : entries) {
            boolean dropped = DROPPED_PRESETS.stream().anyMatch(preset -> entry.startsWith("org/bytedeco/cuda/" + preset + "/")
                    || entry.equals("org/bytedeco/cuda/global/" + preset + ".class") || entry.endsWith("/libjni" + preset + ".so"));
            // JavaCPP's per-platform build properties are a few kilobytes of text its Loader reads; they stay.
            boolean foreign = !entry.startsWith("org/bytedeco/javacpp/properties/") && (entry.endsWith(".dylib") || entry.endsWith(".dll") || entry.contains("/macosx-") || entry.contains("/windows-") || entry.contains("linux-ppc64le"));
            if (dropped || foreign || entry.startsWith("META-INF/native-image/")) {
                unexpected.add(entry);
            }
        }
        assertEquals(List.of(), unexpected, "entries the jar should not carry");
    }

    @Test
    void carriesEveryCudaClassFerryNames()
            throws IOException
    {
        Set<String> entries = entries();
        Set<String> missing = new TreeSet<>();
        int ferryClasses = 0;
        try (JarFile jar = new JarFile(PluginJar.jar().toFile())) {
            for (JarEntry entry : jar.stream().toList()) {
                if (!entry.getName().startsWith("dev/ferry/") || !entry.getName().endsWith(".class")) {
                    continue;
                }
                ferryClasses++;
                for (String name : classNames(jar.getInputStream(entry).readAllBytes())) {
                    if (name.startsWith("org/bytedeco/") && !entries.contains(name + ".class")) {
                        missing.add(name + " (named by " + entry.getName() + ")");
                    }
                }
            }
        }
        assertTrue(ferryClasses > 100, "only " + ferryClasses + " Ferry classes in the jar");
        assertEquals(Set.of(), missing, "JavaCPP classes Ferry's classes name but the jar lacks");
    }

    @Test
    void everyKeptPresetsInheritanceChainIsInTheJar()
            throws Exception
    {
        // The platform loader as parent: every class must come from the jar. No class is initialised, so no native loads.
        try (URLClassLoader loader = new URLClassLoader(new URL[] {PluginJar.jar().toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            @SuppressWarnings("unchecked")
            Class<? extends Annotation> properties = (Class<? extends Annotation>) Class.forName("org.bytedeco.javacpp.annotation.Properties", false, loader);
            for (String preset : KEPT_PRESETS) {
                Set<String> chain = new TreeSet<>();
                Deque<Class<?>> pending = new ArrayDeque<>();
                pending.add(Class.forName("org.bytedeco.cuda.global." + preset, false, loader));
                while (!pending.isEmpty()) {
                    Class<?> current = pending.poll();
                    chain.add(current.getName());
                    // A global class extends its preset class; a preset class inherits others through @Properties.
                    if (current.getSuperclass() != null && current.getSuperclass() != Object.class) {
                        pending.add(current.getSuperclass());
                    }
                    Annotation annotation = current.getAnnotation(properties);
                    if (annotation == null) {
                        continue;
                    }
                    try {
                        for (Class<?> inherited : (Class<?>[]) properties.getMethod("inherit").invoke(annotation)) {
                            pending.add(inherited);
                        }
                    }
                    catch (InvocationTargetException e) {
                        fail("org.bytedeco.cuda.global." + preset + ": an inherited preset of " + current.getName() + " is not in the jar: " + e.getCause());
                    }
                }
                assertTrue(chain.contains("org.bytedeco.cuda.presets." + preset) && chain.contains("org.bytedeco.cuda.presets.cudart")
                        && chain.contains("org.bytedeco.javacpp.presets.javacpp"), preset + "'s chain " + chain);
            }
        }
    }

    @Test
    void staysSmall()
            throws IOException
    {
        long size = Files.size(PluginJar.jar());
        assertTrue(size <= MAX_COMPRESSED_BYTES, "the plugin jar is " + size + " bytes, over " + MAX_COMPRESSED_BYTES);
    }

    private static Set<String> entries()
            throws IOException
    {
        try (JarFile jar = new JarFile(PluginJar.jar().toFile())) {
            Set<String> names = new TreeSet<>();
            jar.stream().map(JarEntry::getName).forEach(names::add);
            return names;
        }
    }

    /** The class names (CONSTANT_Class entries, internal form) in a class file's constant pool. */
    private static List<String> classNames(byte[] classFile)
            throws IOException
    {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        List<Integer> classIndexes = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 7 -> classIndexes.add(in.readUnsignedShort());
                case 8, 16, 19, 20 -> in.readUnsignedShort();
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                case 15 -> {
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                case 5, 6 -> {
                    in.readLong();
                    i++;
                }
                default -> throw new IOException("constant pool tag " + tag + " at " + i);
            }
        }
        List<String> names = new ArrayList<>();
        for (int index : classIndexes) {
            String name = utf8[index];
            names.add(name.startsWith("[") ? name.replaceAll("^\\[+L?", "").replaceAll(";$", "") : name);
        }
        return names;
    }
}
