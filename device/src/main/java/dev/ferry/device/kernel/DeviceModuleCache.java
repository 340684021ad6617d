package dev.ferry.device.kernel;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * The loaded modules of kernel sources and their functions, per device. A module lives in one
 * device's context and its functions may only be launched there, so every entry is keyed by
 * (device, source) or (device, source, function): a source is loaded once per device, and a module or
 * function of one device is never handed out for another. {@link #release(int)} unloads a device's
 * modules; {@link #close()} unloads every device's. What a module and a function are, and how they
 * are loaded, is the {@link Loader}'s ({@link KernelLauncher} passes the driver API's; tests pass a
 * fake), so this class holds the keying and lifetime rules without CUDA. Thread-safe.
 *
 * @param <M> a loaded module
 * @param <F> a function looked up in a module
 */
public final class DeviceModuleCache<M, F>
        implements AutoCloseable
{
    /** Loads, looks up and unloads modules; each call names the device whose context it must run in. */
    public interface Loader<M, F>
    {
        M loadModule(int device, KernelSource source);

        F function(int device, M module, String functionName);

        void unloadModule(int device, M module);
    }

    private record ModuleKey(int device, String sourceSha256) {}

    private record FunctionKey(int device, String sourceSha256, String functionName) {}

    private final Loader<M, F> loader;
    private final Map<ModuleKey, M> modules = new LinkedHashMap<>();
    private final Map<FunctionKey, F> functions = new LinkedHashMap<>();

    public DeviceModuleCache(Loader<M, F> loader)
    {
        this.loader = requireNonNull(loader, "loader is null");
    }

    /** Function {@code functionName} of {@code source} on {@code device}, loading the source's module there first if this device has none yet. */
    public synchronized F function(int device, KernelSource source, String functionName)
    {
        checkDevice(device);
        requireNonNull(source, "source is null");
        requireNonNull(functionName, "functionName is null");
        FunctionKey functionKey = new FunctionKey(device, source.sha256(), functionName);
        F function = functions.get(functionKey);
        if (function != null) {
            return function;
        }
        M module = module(device, source);
        function = requireNonNull(loader.function(device, module, functionName), "loader returned no function");
        functions.put(functionKey, function);
        return function;
    }

    /** The module of {@code source} on {@code device}, loaded on the first call for that pair. */
    public synchronized M module(int device, KernelSource source)
    {
        checkDevice(device);
        requireNonNull(source, "source is null");
        ModuleKey key = new ModuleKey(device, source.sha256());
        M module = modules.get(key);
        if (module == null) {
            module = requireNonNull(loader.loadModule(device, source), "loader returned no module");
            modules.put(key, module);
        }
        return module;
    }

    /** How many modules are loaded on {@code device}. */
    public synchronized int moduleCount(int device)
    {
        return (int) modules.keySet().stream().filter(key -> key.device() == device).count();
    }

    /** The devices that have a module loaded, ascending. */
    public synchronized List<Integer> devices()
    {
        TreeSet<Integer> devices = new TreeSet<>();
        modules.keySet().forEach(key -> devices.add(key.device()));
        return List.copyOf(devices);
    }

    /**
     * Unloads every module of {@code device} and forgets its functions; other devices keep theirs.
     * Every module is unloaded even if one fails; the first failure is thrown with the others suppressed.
     */
    public synchronized void release(int device)
    {
        functions.keySet().removeIf(key -> key.device() == device);
        List<RuntimeException> failures = new ArrayList<>();
        Iterator<Map.Entry<ModuleKey, M>> entries = modules.entrySet().iterator();
        while (entries.hasNext()) {
            Map.Entry<ModuleKey, M> entry = entries.next();
            if (entry.getKey().device() != device) {
                continue;
            }
            entries.remove();
            try {
                loader.unloadModule(device, entry.getValue());
            }
            catch (RuntimeException e) {
                failures.add(e);
            }
        }
        throwFirst(failures, "unloading the kernel modules of device " + device);
    }

    /** Releases every device, each even if another's release fails; the first failure is thrown with the others suppressed. */
    @Override
    public synchronized void close()
    {
        List<RuntimeException> failures = new ArrayList<>();
        for (int device : devices()) {
            try {
                release(device);
            }
            catch (RuntimeException e) {
                failures.add(e);
            }
        }
        functions.clear();
        if (!failures.isEmpty()) {
            // Each already names its device (release's message).
            failures.subList(1, failures.size()).forEach(failures.get(0)::addSuppressed);
            throw failures.get(0);
        }
    }

    private static void throwFirst(List<RuntimeException> failures, String what)
    {
        if (failures.isEmpty()) {
            return;
        }
        FerryException first = new FerryException(ErrorCategory.EXTERNAL, what + " failed: " + failures.get(0).getMessage(), failures.get(0));
        failures.subList(1, failures.size()).forEach(first::addSuppressed);
        throw first;
    }

    private static void checkDevice(int device)
    {
        if (device < 0) {
            throw new IllegalArgumentException("device must be a CUDA ordinal (>= 0), got " + device);
        }
    }
}
