package dev.ferry.topology.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ferry.topology.file.TopologyFileWriter;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.ProbeReport;
import dev.ferry.topology.route.RouteDecision;

import java.util.List;

/**
 * The machine-readable report: one JSON object with {@code gpus}, {@code pairs}, {@code nics},
 * {@code nvme}, {@code files} (with {@code file}, its placement, when a file was asked about), {@code network},
 * {@code gpuNetwork}, {@code nodes} and {@code reports}. With more than one node, GPU and device names are
 * qualified as {@code host/GPU0}; every entry also has {@code node}.
 */
public final class JsonReport
{
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {}

    public static String render(DecisionReport report)
    {
        try {
            return MAPPER.writeValueAsString(toJson(report));
        }
        catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write the JSON report", e);
        }
    }

    public static ObjectNode toJson(DecisionReport report)
    {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("cluster", report.cluster().name());
        ArrayNode gpus = root.putArray("gpus");
        ArrayNode pairs = root.putArray("pairs");
        ArrayNode nics = root.putArray("nics");
        ArrayNode nvme = root.putArray("nvme");
        ArrayNode files = root.putArray("files");
        ArrayNode reports = root.putArray("reports");
        ArrayNode nodes = root.putArray("nodes");
        boolean qualify = report.multiNode();
        for (NodeDecisions decisions : report.nodes()) {
            NodeTopology node = decisions.node();
            String prefix = qualify ? node.hostname() + "/" : "";
            for (Gpu gpu : node.gpus()) {
                gpus.add(prefix + gpu.name());
            }
            for (RouteDecision decision : decisions.gpuPairs()) {
                decision(pairs.addObject(), node, "src", prefix + decision.source(), "dst", prefix + decision.target(), decision);
            }
            for (RouteDecision decision : decisions.gpuNics()) {
                decision(nics.addObject(), node, "gpu", prefix + decision.source(), "nic", prefix + decision.target(), decision);
            }
            for (RouteDecision decision : decisions.gpuNvmes()) {
                decision(nvme.addObject(), node, "gpu", prefix + decision.source(), "nvme", prefix + decision.target(), decision);
            }
            decisions.fileReads().ifPresent(reads -> {
                placement(root.putObject("file"), reads.placement());
                for (RouteDecision decision : reads.decisions()) {
                    decision(files.addObject(), node, "src", prefix + decision.source(), "file", decision.target(), decision);
                }
            });
            for (ProbeReport probe : node.reports()) {
                reports.addObject()
                        .put("node", node.hostname())
                        .put("probe", probe.probe())
                        .put("ran", probe.ran())
                        .put("detail", probe.detail());
            }
            nodes.add(TopologyFileWriter.node(node));
        }
        betweenNodes(root.putArray("network"), report.network());
        betweenNodes(root.putArray("gpuNetwork"), report.gpuNetwork());
        return root;
    }

    private static void betweenNodes(ArrayNode array, List<RouteDecision> decisions)
    {
        for (RouteDecision decision : decisions) {
            ObjectNode entry = array.addObject();
            entry.put("src", decision.source());
            entry.put("dst", decision.target());
            decisionFields(entry, decision);
        }
    }

    private static void placement(ObjectNode json, FilePlacement placement)
    {
        json.put("path", placement.path());
        json.put("mountPoint", placement.mountPoint());
        json.put("mountSource", placement.mountSource());
        placement.deviceNumber().ifPresent(number -> json.put("deviceNumber", number));
        json.put("filesystemType", placement.filesystemType());
        ArrayNode options = json.putArray("mountOptions");
        placement.mountOptions().forEach(options::add);
        ArrayNode devices = json.putArray("backingDevices");
        placement.backingDevices().forEach(devices::add);
        placement.nvmeController().ifPresent(controller -> json.put("nvmeController", controller));
    }

    private static void decision(ObjectNode entry, NodeTopology node, String sourceKey, String source, String targetKey, String target, RouteDecision decision)
    {
        entry.put(sourceKey, source);
        entry.put(targetKey, target);
        entry.put("node", node.hostname());
        decisionFields(entry, decision);
    }

    private static void decisionFields(ObjectNode entry, RouteDecision decision)
    {
        entry.put("path", decision.path());
        decision.pathDetail().ifPresent(detail -> entry.put("pathDetail", detail));
        entry.put("route", decision.route().name());
        // Products like 20.6 x 18 carry binary noise; three decimals are more than the estimate is worth
        entry.put("bandwidthGBps", Math.round(decision.bandwidthGBps() * 1000) / 1000.0);
        entry.put("bandwidthSource", decision.bandwidthSource());
        entry.put("reason", decision.reason());
        entry.put("rule", decision.rule());
        entry.put("threshold", decision.threshold());
        decision.runnerUp().ifPresent(runnerUp -> entry.putObject("runnerUp")
                .put("route", runnerUp.route().name())
                .put("whyNot", runnerUp.whyNot()));
        ArrayNode vetoes = entry.putArray("vetoes");
        decision.vetoes().forEach(vetoes::add);
        ArrayNode notes = entry.putArray("notes");
        decision.notes().forEach(notes::add);
    }
}
