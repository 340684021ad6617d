package dev.ferry.plugin;

import java.nio.file.Path;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ferry.common.FerryException;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;

/**
 * Checks an executor's {@link ExecutorPlacement} before the driver merges its node: the report comes
 * over the network from a process the driver does not control, so its sizes are bounded before it is
 * parsed, its host name must be a host name, its device counts
 * must be ones a machine can have, and it may not name files for the driver to read (a topology
 * file's {@code nvidiaSmi} path). A report that fails is refused whole, with the first reason.
 */
final class NodeReports
{
    static final int MAX_REPORT_CHARS = 256 * 1024;
    static final int MAX_ID_CHARS = 128;
    static final int MAX_HOSTNAME_CHARS = 253;
    static final int MAX_SUMMARY_CHARS = 8 * 1024;
    static final int MAX_GPU_ADDRESSES = 64;
    static final int MAX_GPUS = 64;
    static final int MAX_NICS = 64;
    static final int MAX_NVMES = 256;
    static final int MAX_NET_INTERFACES = 1024;
    static final int MAX_RELATIONS = 64 * 1024;
    // Names, IPv4 and bracketless IPv6 addresses: what Spark's block manager ids carry.
    private static final Pattern HOSTNAME = Pattern.compile("[A-Za-z0-9._:-]+");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private NodeReports() {}

    /** The reported node, or an {@link IllegalArgumentException} naming the executor and what is wrong. */
    static NodeTopology validate(ExecutorPlacement report)
    {
        String executor = bounded("executor id", report.executorId(), MAX_ID_CHARS, "?");
        String who = "Executor " + executor + "'s node report";
        String hostname = bounded("host name", report.hostname(), MAX_HOSTNAME_CHARS, who);
        if (!HOSTNAME.matcher(hostname).matches()) {
            throw new IllegalArgumentException(who + ": host name '" + hostname + "' is not a host name or address");
        }
        bounded("summary", report.summary(), MAX_SUMMARY_CHARS, who);
        if (report.gpuAddresses().size() > MAX_GPU_ADDRESSES) {
            throw new IllegalArgumentException(who + ": " + report.gpuAddresses().size() + " Spark gpu addresses, at most " + MAX_GPU_ADDRESSES);
        }
        report.gpuAddresses().forEach(address -> bounded("gpu address", address, MAX_ID_CHARS, who));
        String json = report.nodeTopologyJson();
        if (json.length() > MAX_REPORT_CHARS) {
            throw new IllegalArgumentException(who + ": the node is " + json.length() + " characters, at most " + MAX_REPORT_CHARS);
        }
        JsonNode tree;
        try {
            tree = MAPPER.readTree(json);
        }
        catch (JsonProcessingException e) {
            throw new IllegalArgumentException(who + ": the node is not JSON (line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + "): " + e.getOriginalMessage(), e);
        }
        if (!(tree instanceof ObjectNode node)) {
            throw new IllegalArgumentException(who + ": the node is not a JSON object");
        }
        if (node.has("nvidiaSmi")) {
            throw new IllegalArgumentException(who + ": the node names an nvidiaSmi file; a report carries its facts inline");
        }
        ObjectNode cluster = MAPPER.createObjectNode().put("name", "report");
        cluster.putArray("nodes").add(node);
        ClusterTopology parsed;
        try {
            // No directory to resolve files in: the nvidiaSmi field was refused above.
            parsed = TopologyFileReader.parse(who, Path.of("/nonexistent-ferry-report"), cluster.toString(), "report");
        }
        catch (FerryException | IllegalArgumentException e) {
            throw new IllegalArgumentException(who + ": " + e.getMessage(), e);
        }
        NodeTopology reported = parsed.nodes().get(0);
        // A probed node carries the executor's host name; one named otherwise is a topology file's simulated node, which the caller does not merge.
        limit(who, "GPUs", reported.gpus().size(), MAX_GPUS);
        limit(who, "RDMA NICs", reported.nics().size(), MAX_NICS);
        limit(who, "NVMe drives", reported.nvmes().size(), MAX_NVMES);
        limit(who, "network interfaces", reported.netInterfaces().size(), MAX_NET_INTERFACES);
        limit(who, "device relations", reported.relations().size(), MAX_RELATIONS);
        return reported;
    }

    private static String bounded(String what, String value, int max, String who)
    {
        if (value.isEmpty() || value.length() > max) {
            throw new IllegalArgumentException(who + ": " + what + " is " + value.length() + " characters, must be 1 to " + max);
        }
        return value;
    }

    private static void limit(String who, String what, int count, int max)
    {
        if (count > max) {
            throw new IllegalArgumentException(who + ": " + count + " " + what + ", at most " + max);
        }
    }
}
