package dev.ferry.gds.io;

import dev.ferry.device.DeviceMatch;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.GpuResolution;
import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.route.DeviceProbe;
import dev.ferry.gds.route.ExecutorDevices;
import dev.ferry.gds.route.RouteChoice;
import dev.ferry.gds.route.RouteChooser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

import static java.util.Objects.requireNonNull;

/**
 * The data-source choice for one task: which {@link ParquetDataSource} (GDS, BOUNCE or HOST) reads
 * each file, as the route policy decides for the task's device. Readers get the interface and never
 * name an implementation. The device runtime is created on the first file that needs it, so a host read
 * (forced, or auto for a CPU consumer) never creates it. A route that fell back is counted through {@code onFallback}.
 */
public final class RoutedDataSources
{
    private static final Logger log = LoggerFactory.getLogger(RoutedDataSources.class);

    private final GdsReadSettings settings;
    private final Map<String, String> deviceConf;
    private final Optional<ExecutorService> readPool;
    private final Runnable onFallback;
    private RouteChooser routes;
    private DeviceRuntime runtime;

    public RoutedDataSources(GdsReadSettings settings, Map<String, String> deviceConf, Optional<ExecutorService> readPool, Runnable onFallback)
    {
        this.settings = requireNonNull(settings, "settings is null");
        this.deviceConf = Map.copyOf(requireNonNull(deviceConf, "deviceConf is null"));
        this.readPool = requireNonNull(readPool, "readPool is null");
        this.onFallback = requireNonNull(onFallback, "onFallback is null");
    }

    /** Opens the listed file {@code file} (a Hadoop path) on the route chosen for it. */
    public ParquetDataSource open(String file)
            throws IOException
    {
        Path path = LocalFiles.localPath(file);
        Optional<RouteChoice> hostOnly = RouteChooser.withoutDevice(settings.route(), settings.consumer());
        if (hostOnly.isPresent()) {
            // A host read (forced, or auto for a CPU consumer) never needs the device runtime: none is created.
            log.debug("{}: {} route ({})", file, hostOnly.get().route(), hostOnly.get().reason());
            return HostParquetDataSource.open(path, file, settings.readPlanning(), readPool);
        }
        if (routes == null) {
            runtime = ExecutorDevices.runtime(deviceConf);
            routes = new RouteChooser(settings.route(), settings.consumer(), DeviceProbe.of(runtime), ExecutorDevices.advisor(runtime));
        }
        GpuResolution taskGpu = ExecutorDevices.taskDevice(runtime);
        int device = taskGpu.match().map(DeviceMatch::ordinal).orElse(-1);
        RouteChoice route = taskGpu.match().isPresent() ? routes.choose(file, device) : routes.withoutTaskGpu(file, taskGpu.reason());
        if (route.fallback()) {
            onFallback.run();
        }
        log.debug("{}: {} route ({})", file, route.route(), route.reason());
        switch (route.route()) {
            case GDS:
                return GdsParquetDataSource.open(runtime, device, path, file, settings.readPlanning(), readPool, settings.readThreads());
            case BOUNCE:
                return BounceParquetDataSource.open(runtime, device, path, file, settings.readPlanning(), readPool);
            case HOST:
                return HostParquetDataSource.open(path, file, settings.readPlanning(), readPool);
        }
        throw new IllegalStateException("Unknown route " + route.route());
    }
}
