package dev.ferry.topology.file;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.CpuInfo;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.KernelFact;
import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NicPort;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvSwitch;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.P2pAccess;
import dev.ferry.topology.model.P2pStatus;
import dev.ferry.topology.model.ProbeReport;
import dev.ferry.topology.model.Relation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a cluster as a topology file with every node inline, so what was probed on one machine can
 * be loaded anywhere ({@link TopologyFileReader} reads it back to an equal value).
 */
public final class TopologyFileWriter
{
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private TopologyFileWriter() {}

    public static void save(ClusterTopology cluster, Path file)
    {
        try {
            Files.writeString(file, toText(cluster), StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot write topology file " + file + ": " + e.getMessage(), e);
        }
    }

    public static String toText(ClusterTopology cluster)
    {
        try {
            return MAPPER.writeValueAsString(toJson(cluster)) + "\n";
        }
        catch (IOException e) {
            throw new IllegalStateException("Cannot serialise topology " + cluster.name(), e);
        }
    }

    public static ObjectNode toJson(ClusterTopology cluster)
    {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("name", cluster.name());
        ArrayNode nodes = root.putArray("nodes");
        cluster.nodes().forEach(node -> nodes.add(node(node)));
        return root;
    }

    /** One node, inline, in the topology file format. */
    public static ObjectNode node(NodeTopology node)
    {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("hostname", node.hostname());
        node.cpu().ifPresent(cpu -> cpu(json.putObject("cpu"), cpu));
        ArrayNode gpus = json.putArray("gpus");
        node.gpus().forEach(gpu -> gpu(gpus.addObject(), gpu));
        ArrayNode switches = json.putArray("nvSwitches");
        for (NvSwitch nvSwitch : node.nvSwitches()) {
            ObjectNode entry = switches.addObject().put("name", nvSwitch.name());
            nvSwitch.pci().ifPresent(pci -> entry.put("pci", pci.toString()));
        }
        ArrayNode nics = json.putArray("nics");
        node.nics().forEach(nic -> nic(nics.addObject(), nic));
        ArrayNode interfaces = json.putArray("netInterfaces");
        for (NetInterface netInterface : node.netInterfaces()) {
            ObjectNode entry = interfaces.addObject()
                    .put("name", netInterface.name())
                    .put("kind", netInterface.kind().name())
                    .put("speedMbps", netInterface.speedMbps())
                    .put("up", netInterface.up());
            netInterface.pci().ifPresent(pci -> entry.put("pci", pci.toString()));
        }
        ArrayNode nvmes = json.putArray("nvmes");
        for (NvmeDrive nvme : node.nvmes()) {
            ObjectNode entry = nvmes.addObject().put("controller", nvme.controller());
            nvme.pci().ifPresent(pci -> entry.put("pci", pci.toString()));
            entry.put("transport", nvme.transport());
            strings(entry.putArray("namespaces"), nvme.namespaces());
            nvme.numaNode().ifPresent(numa -> entry.put("numaNode", numa));
        }
        ArrayNode relations = json.putArray("relations");
        for (Relation relation : node.relations()) {
            ObjectNode entry = relations.addObject()
                    .put("a", relation.a())
                    .put("b", relation.b())
                    .put("path", relation.cell());
            relation.nvlinkVersion().ifPresent(version -> entry.put("nvlinkVersion", version));
            relation.bottleneck().ifPresent(link -> entry.putObject("pcie").put("gen", link.gen()).put("width", link.width()));
            entry.put("source", relation.source());
            relation.detail().ifPresent(detail -> entry.put("detail", detail));
        }
        ArrayNode p2p = json.putArray("p2p");
        for (P2pStatus status : node.p2pStatuses()) {
            ObjectNode entry = p2p.addObject().put("a", status.a()).put("b", status.b());
            access(entry.putObject("read"), status.read());
            access(entry.putObject("write"), status.write());
        }
        kernel(json.putObject("kernel"), node.kernelFacts());
        ArrayNode reports = json.putArray("reports");
        for (ProbeReport report : node.reports()) {
            reports.addObject().put("probe", report.probe()).put("ran", report.ran()).put("detail", report.detail());
        }
        return json;
    }

    private static void cpu(ObjectNode json, CpuInfo cpu)
    {
        json.put("vendor", cpu.vendor()).put("arch", cpu.arch());
        cpu.family().ifPresent(family -> json.put("family", family));
        cpu.model().ifPresent(model -> json.put("model", model));
    }

    private static void gpu(ObjectNode json, Gpu gpu)
    {
        json.put("index", gpu.index()).put("name", gpu.name());
        gpu.model().ifPresent(model -> json.put("model", model));
        gpu.uuid().ifPresent(uuid -> json.put("uuid", uuid));
        gpu.pci().ifPresent(pci -> json.put("pci", pci.toString()));
        gpu.computeCapability().ifPresent(capability -> json.put("computeCapability", capability));
        gpu.numaNode().ifPresent(numa -> json.put("numaNode", numa));
        json.put("cpuAffinity", gpu.cpuAffinity());
    }

    private static void nic(ObjectNode json, Nic nic)
    {
        json.put("name", nic.name());
        nic.pci().ifPresent(pci -> json.put("pci", pci.toString()));
        json.put("linkLayer", nic.linkLayer().name());
        nic.numaNode().ifPresent(numa -> json.put("numaNode", numa));
        strings(json.putArray("netdevs"), nic.netdevs());
        ArrayNode ports = json.putArray("ports");
        for (NicPort port : nic.ports()) {
            ports.addObject()
                    .put("number", port.number())
                    .put("state", port.state())
                    .put("active", port.active())
                    .put("rateGbps", port.rateGbps());
        }
    }

    private static void access(ObjectNode json, P2pAccess access)
    {
        json.put("state", access.state().name());
        access.nvmlCode().ifPresent(code -> json.put("code", code));
        json.put("detail", access.detail());
    }

    private static void kernel(ObjectNode json, KernelFacts facts)
    {
        ObjectNode peer = json.putObject("peerMemory").put("presence", facts.peerMemory().presence().name());
        facts.peerMemory().mechanism().ifPresent(mechanism -> peer.put("mechanism", mechanism));
        peer.put("evidence", facts.peerMemory().evidence());
        fact(json.putObject("nvidiaFs"), facts.nvidiaFs());
        fact(json.putObject("iommu"), facts.iommu());
    }

    private static void fact(ObjectNode json, KernelFact fact)
    {
        json.put("presence", fact.presence().name()).put("evidence", fact.evidence());
    }

    private static void strings(ArrayNode array, List<String> values)
    {
        values.forEach(array::add);
    }
}
