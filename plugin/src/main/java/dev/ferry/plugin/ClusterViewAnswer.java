package dev.ferry.plugin;

import java.nio.file.Path;
import java.util.Optional;

import dev.ferry.common.FerryException;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.file.TopologyFileWriter;
import dev.ferry.topology.model.ClusterTopology;

/**
 * The driver's answer to {@link ClusterViewRequest}: the view's version and the cluster in the
 * topology file format (empty before any host reported). Travels as a String array: the executor's
 * RPC layer cannot load plugin classes for replies (see {@link Departures}). The driver built it from
 * validated reports; the executor still bounds and parses it as untrusted input.
 */
record ClusterViewAnswer(long version, Optional<ClusterTopology> cluster)
{
    /** Per-node report bound times the most hosts one view answers for. */
    static final long MAX_ANSWER_CHARS = (long) NodeReports.MAX_REPORT_CHARS * 256;

    String[] toWire()
    {
        return cluster.map(known -> new String[] {Long.toString(version), TopologyFileWriter.toText(known)})
                .orElseGet(() -> new String[] {Long.toString(version)});
    }

    static ClusterViewAnswer fromWire(Object wire)
    {
        if (!(wire instanceof String[] strings) || strings.length == 0 || strings.length > 2) {
            throw new IllegalStateException("The Ferry driver plugin answered a cluster view request with "
                    + (wire == null ? "null" : wire instanceof String[] array ? array.length + " strings" : wire.getClass().getName()));
        }
        long version;
        try {
            version = Long.parseLong(strings[0]);
        }
        catch (NumberFormatException e) {
            throw new IllegalStateException("The Ferry driver plugin's cluster view starts with '" + strings[0] + "', not a version", e);
        }
        if (strings.length == 1) {
            return new ClusterViewAnswer(version, Optional.empty());
        }
        if (strings[1].length() > MAX_ANSWER_CHARS) {
            throw new IllegalStateException("The Ferry driver plugin's cluster view is " + strings[1].length() + " characters, at most " + MAX_ANSWER_CHARS);
        }
        try {
            return new ClusterViewAnswer(version, Optional.of(TopologyFileReader.parse("the driver's cluster view", Path.of("/nonexistent-ferry-view"), strings[1], "probed")));
        }
        catch (FerryException | IllegalArgumentException e) {
            throw new IllegalStateException("The Ferry driver plugin's cluster view does not parse: " + e.getMessage(), e);
        }
    }
}
