package dev.ferry.device.kernel;

import dev.ferry.common.FerryException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-device keying and lifetime rules of {@link DeviceModuleCache}, through a fake loader that
 * records which device each module was loaded, looked up and unloaded on (no CUDA needed): what
 * {@link KernelLauncher} relies on so that a module loaded in one device's context is never launched in
 * another's.
 */
public class TestDeviceModuleCache
{
    private static final KernelSource PARTITION = KernelSource.load("spark_partition.cu");
    private static final KernelSource LEVELS = KernelSource.load("parquet_levels.cu");

    private record FakeModule(int device, String source, int serial) {}

    private record FakeFunction(FakeModule module, String name) {}

    private static final class RecordingLoader
            implements DeviceModuleCache.Loader<FakeModule, FakeFunction>
    {
        final List<FakeModule> loaded = new ArrayList<>();
        final List<FakeModule> unloaded = new ArrayList<>();
        int lookups;
        int failUnloadOnDevice = -1;

        @Override
        public FakeModule loadModule(int device, KernelSource source)
        {
            FakeModule module = new FakeModule(device, source.name(), loaded.size());
            loaded.add(module);
            return module;
        }

        @Override
        public FakeFunction function(int device, FakeModule module, String functionName)
        {
            // The real loader would look the name up in the current context: the module must be this device's.
            assertEquals(device, module.device(), "function of a module of device " + module.device() + " looked up on device " + device);
            lookups++;
            return new FakeFunction(module, functionName);
        }

        @Override
        public void unloadModule(int device, FakeModule module)
        {
            assertEquals(device, module.device(), "module of device " + module.device() + " unloaded on device " + device);
            unloaded.add(module);
            if (device == failUnloadOnDevice) {
                throw new IllegalStateException("cuModuleUnload failed on device " + device);
            }
        }
    }

    @Test
    public void aSourceLoadsOncePerDeviceAndEachDeviceGetsItsOwnModule()
    {
        RecordingLoader loader = new RecordingLoader();
        try (DeviceModuleCache<FakeModule, FakeFunction> cache = new DeviceModuleCache<>(loader)) {
            FakeFunction onZero = cache.function(0, PARTITION, "ferry_partition_ids");
            FakeFunction onFive = cache.function(5, PARTITION, "ferry_partition_ids");
            assertEquals(0, onZero.module().device());
            assertEquals(5, onFive.module().device(), "device 5 must get a module loaded on device 5, not device 0's");
            assertNotSame(onZero, onFive);
            assertNotSame(onZero.module(), onFive.module());

            // Same (device, source, function): cached. Same (device, source), other function: the module is reused.
            assertSame(onFive, cache.function(5, PARTITION, "ferry_partition_ids"));
            FakeFunction scatter = cache.function(5, PARTITION, "ferry_partition_scatter");
            assertSame(onFive.module(), scatter.module());
            assertSame(onZero, cache.function(0, PARTITION, "ferry_partition_ids"));
            assertEquals(2, loader.loaded.size(), "one load per (device, source): " + loader.loaded);
            assertEquals(3, loader.lookups, "one lookup per (device, source, function)");

            // Another source on the same device is a second module of that device.
            FakeFunction levels = cache.function(5, LEVELS, "ferry_levels_to_validity");
            assertEquals(new FakeModule(5, "parquet_levels.cu", 2), levels.module());
            assertEquals(2, cache.moduleCount(5));
            assertEquals(1, cache.moduleCount(0));
            assertEquals(0, cache.moduleCount(3));
            assertEquals(List.of(0, 5), cache.devices());
        }
        assertEquals(3, loader.unloaded.size(), "close unloads every module: " + loader.unloaded);
    }

    @Test
    public void releasingADeviceUnloadsOnlyItsModulesAndALaterUseLoadsAgainThere()
    {
        RecordingLoader loader = new RecordingLoader();
        try (DeviceModuleCache<FakeModule, FakeFunction> cache = new DeviceModuleCache<>(loader)) {
            FakeFunction onZero = cache.function(0, PARTITION, "ferry_partition_ids");
            FakeFunction onSeven = cache.function(7, PARTITION, "ferry_partition_ids");
            cache.function(7, LEVELS, "ferry_scatter_spaced");

            cache.release(7);
            assertEquals(2, loader.unloaded.size());
            assertTrue(loader.unloaded.stream().allMatch(module -> module.device() == 7), "only device 7's modules: " + loader.unloaded);
            assertEquals(0, cache.moduleCount(7));
            assertSame(onZero, cache.function(0, PARTITION, "ferry_partition_ids"), "device 0 keeps its module and function");

            FakeFunction reloaded = cache.function(7, PARTITION, "ferry_partition_ids");
            assertNotSame(onSeven, reloaded, "a released device's function is never handed out again");
            assertEquals(7, reloaded.module().device());
            assertEquals(4, loader.loaded.size());
        }
    }

    @Test
    public void everyModuleOfADeviceIsUnloadedEvenWhenOneUnloadFails()
    {
        RecordingLoader loader = new RecordingLoader();
        DeviceModuleCache<FakeModule, FakeFunction> cache = new DeviceModuleCache<>(loader);
        cache.module(2, PARTITION);
        cache.module(2, LEVELS);
        cache.module(4, PARTITION);
        loader.failUnloadOnDevice = 2;
        FerryException failure = assertThrows(FerryException.class, () -> cache.release(2));
        assertTrue(failure.getMessage().contains("device 2"), failure.getMessage());
        assertEquals(1, failure.getSuppressed().length, "the second module's failure is kept as suppressed");
        assertEquals(2, loader.unloaded.size(), "both of device 2's modules were unloaded: " + loader.unloaded);
        assertEquals(0, cache.moduleCount(2));
        assertEquals(1, cache.moduleCount(4), "device 4 is untouched");
        cache.close();
        assertEquals(3, loader.unloaded.size());
    }

    @Test
    public void closeReleasesEveryDeviceEvenWhenOneFails()
    {
        RecordingLoader loader = new RecordingLoader();
        DeviceModuleCache<FakeModule, FakeFunction> cache = new DeviceModuleCache<>(loader);
        cache.module(1, PARTITION);
        cache.module(6, PARTITION);
        loader.failUnloadOnDevice = 1;
        FerryException failure = assertThrows(FerryException.class, cache::close);
        assertTrue(failure.getMessage().contains("device 1"), failure.getMessage());
        assertEquals(List.of(new FakeModule(1, "spark_partition.cu", 0), new FakeModule(6, "spark_partition.cu", 1)), loader.unloaded);
        assertEquals(List.of(), cache.devices());
    }

    @Test
    public void aNegativeDeviceIsRefused()
    {
        DeviceModuleCache<FakeModule, FakeFunction> cache = new DeviceModuleCache<>(new RecordingLoader());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> cache.function(-1, PARTITION, "ferry_partition_ids"));
        assertTrue(refused.getMessage().contains("-1"), refused.getMessage());
    }
}
