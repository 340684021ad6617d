package dev.ferry.topology.probe.sysfs;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/** Lists NUMA nodes and their CPUs from {@code /sys/devices/system/node/node<N>/cpulist}. */
public final class NumaScanner
{
    private static final Pattern NODE = Pattern.compile("node[0-9]+");

    private final SysfsReader sysfs;

    public NumaScanner(SysfsReader sysfs)
    {
        this.sysfs = requireNonNull(sysfs, "sysfs is null");
    }

    /** CPU lists by node number, e.g. {@code 0 -> "0-23,48-71"}; a memory-only node has an empty list. */
    public Map<Integer, String> scan()
    {
        Path directory = sysfs.path("devices/system/node");
        Map<Integer, String> nodes = new TreeMap<>();
        for (String name : SysfsReader.list(directory)) {
            if (NODE.matcher(name).matches()) {
                nodes.put(Integer.parseInt(name.substring(4)), SysfsReader.read(directory.resolve(name).resolve("cpulist")).orElse(""));
            }
        }
        return Collections.unmodifiableMap(nodes);
    }
}
