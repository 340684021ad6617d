package dev.ferry.topology.smi;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.ProbeReport;
import dev.ferry.topology.model.Relation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns {@code nvidia-smi topo -m} output into a {@link NodeTopology}: GPUs (with CPU and NUMA affinity),
 * NICs (link layer unknown: the matrix does not say), and every pair's relation with source
 * {@code nvidia-smi}. Kernel facts are unknown, since a capture cannot show them.
 */
public final class NvidiaSmiTopology
{
    public static final String SOURCE = "nvidia-smi";

    private static final Pattern GPU_NAME = Pattern.compile("GPU(\\d+)");
    private static final Pattern SINGLE_NODE = Pattern.compile("\\d+");

    private NvidiaSmiTopology() {}

    /** Reads a capture file; the host name defaults to the file name without extension. */
    public static NodeTopology read(Path file)
    {
        String fileName = file.getFileName().toString();
        int dot = fileName.lastIndexOf('.');
        return read(file, dot > 0 ? fileName.substring(0, dot) : fileName);
    }

    public static NodeTopology read(Path file, String hostname)
    {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot read nvidia-smi capture " + file + ": " + e.getMessage(), e);
        }
        return parse(hostname, file.toString(), text);
    }

    /** Parses the text; {@code sourceName} appears in error messages. */
    public static NodeTopology parse(String hostname, String sourceName, String text)
    {
        return toBuilder(hostname, sourceName, text).build();
    }

    /** Like {@link #parse} but returns the builder, so callers can add the facts a capture lacks. */
    public static NodeTopology.Builder toBuilder(String hostname, String sourceName, String text)
    {
        SmiMatrix matrix = SmiTopologyParser.parse(sourceName, text);
        NodeTopology.Builder builder = NodeTopology.builder(hostname)
                .kernelFacts(KernelFacts.unknown("not shown by nvidia-smi topo -m"));
        int gpus = 0;
        int nics = 0;
        for (String device : matrix.devices()) {
            Matcher gpuMatch = GPU_NAME.matcher(device);
            Map<String, String> affinity = matrix.affinities().getOrDefault(device, Map.of());
            if (gpuMatch.matches()) {
                builder.gpu(Gpu.builder(Integer.parseInt(gpuMatch.group(1)))
                        .cpuAffinity(value(affinity, "CPU Affinity"))
                        .numaNode(numaNode(affinity))
                        .build());
                gpus++;
            }
            else {
                builder.nic(Nic.named(device));
                nics++;
            }
        }
        List<String> devices = matrix.devices();
        for (int i = 0; i < devices.size(); i++) {
            for (int j = i + 1; j < devices.size(); j++) {
                String cell = matrix.cells().get(i).get(j);
                PathClass pathClass = PathClass.parseCell(cell);
                builder.relation(pathClass == PathClass.NVLINK
                        ? Relation.nvlink(devices.get(i), devices.get(j), PathClass.nvlinkCount(cell), SOURCE)
                        : Relation.pcie(devices.get(i), devices.get(j), pathClass, SOURCE));
            }
        }
        builder.report(ProbeReport.ran(SOURCE, gpus + " GPUs and " + nics + " NICs from " + sourceName
                + "; link layers, PCIe widths, NVMe drives and kernel modules are not in a capture"));
        return builder;
    }

    private static String value(Map<String, String> affinity, String column)
    {
        String value = affinity.getOrDefault(column, "");
        return value.equals("N/A") ? "" : value;
    }

    // "GPU NUMA ID" is the GPU's own memory node (e.g. on Grace Hopper); NUMA Affinity is the host node to stage through
    private static OptionalInt numaNode(Map<String, String> affinity)
    {
        String value = affinity.getOrDefault("NUMA Affinity", "");
        return SINGLE_NODE.matcher(value).matches() ? OptionalInt.of(Integer.parseInt(value)) : OptionalInt.empty();
    }
}
