package dev.ferry.gds.io;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.GdsRouteSetting;
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
 * name an implementation. The device runtime is created on the first file that needs it, so a forced
 * host read never touches it. A route that fell back is counted through {@code onFallback}.
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
        if (settings.route() == GdsRouteSetting.HOST) {
            // A forced host read never needs the device runtime.
            return HostParquetDataSource.open(path, file, settings.readPlanning(), readPool);
        }
        if (routes == null) {
            runtime = ExecutorDevices.runtime(deviceConf);
            routes = new RouteChooser(settings.route(), settings.consumer(), DeviceProbe.of(runtime), ExecutorDevices.advisor(runtime));
        }
        int device = ExecutorDevices.taskDevice(runtime);
        RouteChoice route = routes.choose(file, device);
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
