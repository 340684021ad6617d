package dev.ferry.topology.file;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.CpuInfo;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.KernelFact;
import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NicPort;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvSwitch;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.P2pAccess;
import dev.ferry.topology.model.P2pState;
import dev.ferry.topology.model.P2pStatus;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.model.PcieLink;
import dev.ferry.topology.model.PeerMemory;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.model.ProbeReport;
import dev.ferry.topology.model.Relation;
import dev.ferry.topology.smi.NvidiaSmiTopology;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Loads a cluster from a topology file (JSON): {@code {"name": ..., "nodes": [...]}}. A node is either
 * described inline, or by {@code "nvidiaSmi": "relative/capture.txt"} plus the facts a capture lacks:
 * entries in {@code gpus} and {@code nics} add to or override the capture's device of the same name,
 * {@code gpuDefaults} and {@code nicDefaults} fill in what every GPU or NIC lacks (model, compute
 * capability; link layer, ports), {@code relations} add NVMe placement or override capture cells, and
 * {@code kernel} gives the modules. Errors name the file and the JSON path.
 */
public final class TopologyFileReader
{
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> ROOT_FIELDS = Set.of("name", "nodes", "description");
    private static final Set<String> NODE_FIELDS = Set.of("hostname", "description", "nvidiaSmi", "cpu", "gpus", "gpuDefaults", "nvSwitches",
            "nics", "nicDefaults", "netInterfaces", "nvmes", "relations", "p2p", "kernel", "reports");
    private static final Set<String> GPU_FIELDS = Set.of("index", "name", "model", "uuid", "pci", "computeCapability", "numaNode", "cpuAffinity");
    private static final Set<String> NIC_FIELDS = Set.of("name", "pci", "linkLayer", "numaNode", "netdevs", "ports");

    private TopologyFileReader() {}

    public static ClusterTopology load(Path file)
    {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot read topology file " + file + ": " + e.getMessage(), e);
        }
        Path directory = file.toAbsolutePath().getParent();
        String fileName = file.getFileName().toString();
        int dot = fileName.lastIndexOf('.');
        return parse(file.toString(), directory, text, dot > 0 ? fileName.substring(0, dot) : fileName);
    }

    /**
     * @param fileName for messages
     * @param directory where relative {@code nvidiaSmi} paths are resolved
     * @param defaultName the cluster name when the file gives none
     */
    public static ClusterTopology parse(String fileName, Path directory, String text, String defaultName)
    {
        JsonNode tree;
        try {
            tree = MAPPER.readTree(text);
        }
        catch (JsonProcessingException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Topology file " + fileName + ": invalid JSON at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ": " + e.getOriginalMessage(), e);
        }
        if (tree == null || tree.isMissingNode()) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Topology file " + fileName + " is empty");
        }
        JsonCursor root = new JsonCursor(fileName, "$", tree).allowOnly(ROOT_FIELDS);
        String name = root.optionalString("name").orElse(defaultName);
        List<NodeTopology> nodes = new ArrayList<>();
        for (JsonCursor node : root.field("nodes").elements()) {
            nodes.add(node(node, directory));
        }
        if (nodes.isEmpty()) {
            throw root.error("'nodes' is empty");
        }
        try {
            return new ClusterTopology(name, nodes);
        }
        catch (IllegalArgumentException e) {
            throw root.error(e.getMessage(), e);
        }
    }

    private static NodeTopology node(JsonCursor json, Path directory)
    {
        json.allowOnly(NODE_FIELDS);
        String hostname = json.field("hostname").string();
        NodeTopology.Builder builder = json.optionalField("nvidiaSmi")
                .map(capture -> capture(capture, directory, hostname))
                .orElseGet(() -> NodeTopology.builder(hostname));
        json.optionalField("cpu").ifPresent(cpu -> builder.cpu(cpu(cpu)));
        for (JsonCursor gpu : json.optionalElements("gpus")) {
            gpu(gpu, builder);
        }
        json.optionalField("gpuDefaults").ifPresent(defaults -> applyGpuDefaults(defaults, builder));
        for (JsonCursor nvSwitch : json.optionalElements("nvSwitches")) {
            nvSwitch.allowOnly(Set.of("name", "pci"));
            builder.nvSwitch(new NvSwitch(nvSwitch.field("name").string(), pci(nvSwitch)));
        }
        for (JsonCursor nic : json.optionalElements("nics")) {
            nic(nic, builder);
        }
        json.optionalField("nicDefaults").ifPresent(defaults -> applyNicDefaults(defaults, builder));
        for (JsonCursor netInterface : json.optionalElements("netInterfaces")) {
            netInterface.allowOnly(Set.of("name", "kind", "speedMbps", "pci", "up"));
            builder.netInterface(new NetInterface(
                    netInterface.field("name").string(),
                    netInterface.field("kind").enumValue(NetInterface.Kind.class),
                    netInterface.optionalField("speedMbps").map(JsonCursor::longValue).orElse(0L),
                    pci(netInterface),
                    netInterface.optionalField("up").map(JsonCursor::bool).orElse(true)));
        }
        for (JsonCursor nvme : json.optionalElements("nvmes")) {
            nvme.allowOnly(Set.of("controller", "pci", "transport", "namespaces", "numaNode"));
            builder.nvme(new NvmeDrive(
                    nvme.field("controller").string(),
                    pci(nvme),
                    nvme.optionalString("transport").orElse("pcie"),
                    nvme.optionalField("namespaces").map(JsonCursor::strings).orElse(List.of()),
                    nvme.optionalInt("numaNode")));
        }
        for (JsonCursor relation : json.optionalElements("relations")) {
            builder.relation(relation(relation));
        }
        for (JsonCursor status : json.optionalElements("p2p")) {
            status.allowOnly(Set.of("a", "b", "read", "write"));
            builder.p2pStatus(new P2pStatus(status.field("a").string(), status.field("b").string(),
                    access(status.field("read")), access(status.field("write"))));
        }
        builder.kernelFacts(json.optionalField("kernel")
                .map(kernel -> kernel(kernel))
                .orElse(KernelFacts.unknown("not given in topology file " + json.file())));
        for (JsonCursor report : json.optionalElements("reports")) {
            report.allowOnly(Set.of("probe", "ran", "detail"));
            builder.report(new ProbeReport(report.field("probe").string(), report.field("ran").bool(), report.field("detail").string()));
        }
        try {
            return builder.build();
        }
        catch (IllegalArgumentException e) {
            throw json.error(e.getMessage(), e);
        }
    }

    private static NodeTopology.Builder capture(JsonCursor capture, Path directory, String hostname)
    {
        Path file = directory.resolve(capture.string()).normalize();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw capture.error("cannot read nvidia-smi capture " + file + ": " + e.getMessage(), e);
        }
        try {
            return NvidiaSmiTopology.toBuilder(hostname, capture.string(), text);
        }
        catch (FerryException e) {
            throw capture.error(e.getMessage(), e);
        }
    }

    private static CpuInfo cpu(JsonCursor json)
    {
        json.allowOnly(Set.of("vendor", "arch", "family", "model"));
        return new CpuInfo(json.optionalString("vendor").orElse(""), json.optionalString("arch").orElse(""),
                json.optionalInt("family"), json.optionalInt("model"));
    }

    private static void gpu(JsonCursor json, NodeTopology.Builder builder)
    {
        json.allowOnly(GPU_FIELDS);
        Optional<String> name = json.optionalString("name");
        OptionalInt index = json.optionalInt("index");
        if (name.isEmpty() && index.isEmpty()) {
            throw json.error("a GPU needs 'index' or 'name'");
        }
        String key = name.orElseGet(() -> "GPU" + index.getAsInt());
        Optional<Gpu> existing = builder.gpus().stream().filter(gpu -> gpu.name().equals(key)).findFirst();
        if (existing.isEmpty() && index.isEmpty()) {
            throw json.error("GPU '" + key + "' is not in the capture, so it needs an 'index'");
        }
        Gpu.Builder gpu = existing.map(Gpu::toBuilder).orElseGet(() -> Gpu.builder(index.getAsInt()).name(key));
        if (existing.isPresent() && index.isPresent() && existing.get().index() != index.getAsInt()) {
            throw json.field("index").error("GPU '" + key + "' has index " + existing.get().index() + " in the capture");
        }
        json.optionalString("model").ifPresent(gpu::model);
        json.optionalString("uuid").ifPresent(gpu::uuid);
        pci(json).ifPresent(gpu::pci);
        json.optionalField("computeCapability").ifPresent(capability -> gpu.computeCapability(computeCapability(capability)));
        json.optionalInt("numaNode").ifPresent(gpu::numaNode);
        json.optionalString("cpuAffinity").ifPresent(gpu::cpuAffinity);
        if (existing.isPresent()) {
            builder.replaceGpu(gpu.build());
        }
        else {
            builder.gpu(gpu.build());
        }
    }

    private static void applyGpuDefaults(JsonCursor json, NodeTopology.Builder builder)
    {
        json.allowOnly(Set.of("model", "computeCapability"));
        Optional<String> model = json.optionalString("model");
        Optional<String> capability = json.optionalField("computeCapability").map(TopologyFileReader::computeCapability);
        for (Gpu gpu : builder.gpus()) {
            Gpu.Builder updated = gpu.toBuilder();
            if (gpu.model().isEmpty()) {
                updated.model(model);
            }
            if (gpu.computeCapability().isEmpty()) {
                updated.computeCapability(capability);
            }
            builder.replaceGpu(updated.build());
        }
    }

    private static void nic(JsonCursor json, NodeTopology.Builder builder)
    {
        json.allowOnly(NIC_FIELDS);
        String name = json.field("name").string();
        Optional<Nic> existing = builder.nics().stream().filter(nic -> nic.name().equals(name)).findFirst();
        Nic base = existing.orElse(Nic.named(name));
        Nic nic = new Nic(
                name,
                json.has("pci") ? pci(json) : base.pci(),
                json.optionalField("linkLayer").map(layer -> layer.enumValue(LinkLayer.class)).orElse(base.linkLayer()),
                json.optionalField("ports").map(TopologyFileReader::ports).orElse(base.ports()),
                json.has("numaNode") ? json.optionalInt("numaNode") : base.numaNode(),
                json.optionalField("netdevs").map(JsonCursor::strings).orElse(base.netdevs()));
        if (existing.isPresent()) {
            builder.replaceNic(nic);
        }
        else {
            builder.nic(nic);
        }
    }

    private static void applyNicDefaults(JsonCursor json, NodeTopology.Builder builder)
    {
        json.allowOnly(Set.of("linkLayer", "ports"));
        Optional<LinkLayer> layer = json.optionalField("linkLayer").map(value -> value.enumValue(LinkLayer.class));
        Optional<List<NicPort>> ports = json.optionalField("ports").map(TopologyFileReader::ports);
        for (Nic nic : builder.nics()) {
            Nic updated = nic;
            if (nic.linkLayer() == LinkLayer.UNKNOWN && layer.isPresent()) {
                updated = updated.withLinkLayer(layer.get());
            }
            if (nic.ports().isEmpty() && ports.isPresent()) {
                updated = updated.withPorts(ports.get());
            }
            builder.replaceNic(updated);
        }
    }

    private static List<NicPort> ports(JsonCursor json)
    {
        List<NicPort> ports = new ArrayList<>();
        Set<Integer> numbers = new HashSet<>();
        for (JsonCursor port : json.elements()) {
            port.allowOnly(Set.of("number", "state", "active", "rateGbps"));
            int number = port.optionalInt("number").orElse(ports.size() + 1);
            if (!numbers.add(number)) {
                throw port.error("port " + number + " listed twice");
            }
            boolean active = port.field("active").bool();
            String state = port.optionalString("state").orElse(active ? "4: ACTIVE" : "1: DOWN");
            double rate = port.optionalField("rateGbps").map(JsonCursor::number).orElse(0.0);
            try {
                ports.add(new NicPort(number, state, active, rate));
            }
            catch (IllegalArgumentException e) {
                throw port.error(e.getMessage(), e);
            }
        }
        return ports;
    }

    private static Relation relation(JsonCursor json)
    {
        json.allowOnly(Set.of("a", "b", "path", "nvlinkVersion", "pcie", "source", "detail"));
        String a = json.field("a").string();
        String b = json.field("b").string();
        JsonCursor pathField = json.field("path");
        String cell = pathField.string();
        PathClass pathClass;
        int count;
        try {
            pathClass = PathClass.parseCell(cell);
            count = PathClass.nvlinkCount(cell);
        }
        catch (FerryException e) {
            throw pathField.error(e.getMessage(), e);
        }
        Optional<PcieLink> link = Optional.empty();
        if (json.has("pcie")) {
            JsonCursor pcie = json.field("pcie").allowOnly(Set.of("gen", "width"));
            try {
                link = Optional.of(new PcieLink(pcie.field("gen").integer(), pcie.field("width").integer()));
            }
            catch (IllegalArgumentException e) {
                throw pcie.error(e.getMessage(), e);
            }
        }
        try {
            return new Relation(a, b, pathClass, count, json.optionalString("nvlinkVersion"), link, json.optionalString("source").orElse("file"),
                    json.optionalString("detail"));
        }
        catch (IllegalArgumentException e) {
            throw json.error(e.getMessage(), e);
        }
    }

    private static P2pAccess access(JsonCursor json)
    {
        if (!json.has("state") && !hasObjectShape(json)) {
            // Shorthand: "OK", "NOT_SUPPORTED" or "UNKNOWN"
            P2pState state = json.enumValue(P2pState.class);
            return new P2pAccess(state, OptionalInt.empty(), state.name());
        }
        json.allowOnly(Set.of("state", "code", "detail"));
        P2pState state = json.field("state").enumValue(P2pState.class);
        return new P2pAccess(state, json.optionalInt("code"), json.optionalString("detail").orElse(state.name()));
    }

    private static boolean hasObjectShape(JsonCursor json)
    {
        try {
            json.object();
            return true;
        }
        catch (FerryException e) {
            return false;
        }
    }

    private static KernelFacts kernel(JsonCursor json)
    {
        json.allowOnly(Set.of("peerMemory", "nvidiaFs", "iommu"));
        String missing = "not given in topology file " + json.file();
        PeerMemory peerMemory = json.optionalField("peerMemory").map(TopologyFileReader::peerMemory).orElse(PeerMemory.unknown(missing));
        KernelFact nvidiaFs = json.optionalField("nvidiaFs").map(TopologyFileReader::fact).orElse(KernelFact.unknown(missing));
        KernelFact iommu = json.optionalField("iommu").map(TopologyFileReader::fact).orElse(KernelFact.unknown(missing));
        return new KernelFacts(peerMemory, nvidiaFs, iommu);
    }

    private static PeerMemory peerMemory(JsonCursor json)
    {
        json.allowOnly(Set.of("presence", "mechanism", "evidence"));
        Presence presence = json.field("presence").enumValue(Presence.class);
        Optional<String> mechanism = json.optionalString("mechanism");
        String evidence = json.optionalString("evidence").orElse("stated in topology file " + json.file());
        try {
            return new PeerMemory(presence, mechanism, evidence);
        }
        catch (IllegalArgumentException e) {
            throw json.error(e.getMessage(), e);
        }
    }

    private static KernelFact fact(JsonCursor json)
    {
        json.allowOnly(Set.of("presence", "evidence"));
        return new KernelFact(json.field("presence").enumValue(Presence.class),
                json.optionalString("evidence").orElse("stated in topology file " + json.file()));
    }

    private static Optional<PciAddress> pci(JsonCursor json)
    {
        Optional<JsonCursor> field = json.optionalField("pci");
        if (field.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(PciAddress.parse(field.get().string()));
        }
        catch (FerryException e) {
            throw field.get().error(e.getMessage(), e);
        }
    }

    private static String computeCapability(JsonCursor json)
    {
        String value = json.string();
        if (!value.matches("\\d{1,2}\\.\\d")) {
            throw json.error("compute capability must look like 9.0, got '" + value + "'");
        }
        return value;
    }
}
