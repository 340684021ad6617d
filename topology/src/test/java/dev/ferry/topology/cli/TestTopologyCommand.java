package dev.ferry.topology.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ferry.topology.TestingFiles;
import dev.ferry.topology.probe.ProbeOptions;
import dev.ferry.topology.probe.SysfsTreeBuilder;
import dev.ferry.topology.probe.mount.FilePlacementProbe;
import dev.ferry.topology.probe.mount.TestingStorageMachine;
import dev.ferry.topology.route.Route;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_3D_CONTROLLER;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_INTEL;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_NVIDIA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestTopologyCommand
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    static List<Path> captures()
    {
        return TestingFiles.captures();
    }

    @ParameterizedTest
    @MethodSource("captures")
    void printsMatrixAndDecisionsForEveryCapture(Path capture)
    {
        Result result = run("--nvidia-smi", capture.toString(), "--verbose");
        assertEquals(0, result.code(), result.err());
        assertTrue(result.out().contains("GPU0"), result.out());
        assertTrue(result.out().contains("CPU Affinity"));
        assertTrue(result.out().contains("reason: "), result.out());
        assertTrue(result.out().contains("Probes:"));
        assertEquals("", result.err());
    }

    @ParameterizedTest
    @MethodSource("captures")
    void jsonHasTheRequiredFields(Path capture)
            throws IOException
    {
        Result result = run("--nvidia-smi", capture.toString(), "--json", "--peermem", "yes");
        assertEquals(0, result.code(), result.err());
        JsonNode root = MAPPER.readTree(result.out());
        assertTrue(root.get("gpus").isArray());
        assertTrue(root.get("gpus").size() > 0);
        Set<String> gpus = new HashSet<>();
        root.get("gpus").forEach(gpu -> gpus.add(gpu.asText()));
        Set<String> routes = new HashSet<>();
        Arrays.stream(Route.values()).forEach(route -> routes.add(route.name()));
        int count = gpus.size();
        assertEquals(count * (count - 1) / 2, root.get("pairs").size());
        for (JsonNode pair : root.get("pairs")) {
            assertTrue(gpus.contains(pair.get("src").asText()));
            assertTrue(gpus.contains(pair.get("dst").asText()));
            assertTrue(pair.get("path").asText().matches("NV\\d+|PIX|PXB|PHB|NODE|SYS"), pair.toString());
            assertTrue(routes.contains(pair.get("route").asText()), pair.toString());
            assertTrue(pair.get("bandwidthGBps").isNumber());
            assertFalse(pair.get("reason").asText().isEmpty());
        }
        for (JsonNode nic : root.get("nics")) {
            assertTrue(gpus.contains(nic.get("gpu").asText()));
            assertFalse(nic.get("nic").asText().isEmpty());
            assertTrue(nic.get("path").isTextual());
            String expected = nic.get("path").asText().matches("PIX|PXB") ? "GPUDIRECT_RDMA" : "RDMA_HOST_STAGED";
            assertEquals(expected, nic.get("route").asText(), nic.toString());
            assertFalse(nic.get("reason").asText().isEmpty());
        }
        assertTrue(root.get("reports").size() > 0);
    }

    @Test
    void peerMemoryFlagChangesTheNicRoute()
            throws IOException
    {
        String capture = TestingFiles.capture("dgx1-v100-4nic.txt").toString();
        assertEquals("GPUDIRECT_RDMA", firstNicRoute(run("--nvidia-smi", capture, "--json", "--peermem", "yes")));
        assertEquals("RDMA_HOST_STAGED", firstNicRoute(run("--nvidia-smi", capture, "--json", "--peermem=no")));
    }

    @Test
    void confChangesThresholds()
            throws IOException
    {
        String capture = TestingFiles.capture("desktop-2x1080ti.txt").toString();
        JsonNode root = MAPPER.readTree(run("--nvidia-smi", capture, "--json", "--conf", "spark.ferry.route.p2pLevel=PHB").out());
        assertEquals("PCIE_P2P", root.get("pairs").get(0).get("route").asText());
        assertEquals("spark.ferry.route.p2pLevel=PHB (set)", root.get("pairs").get(0).get("threshold").asText());
    }

    @Test
    void topologyFileWithSeveralNodes()
            throws IOException
    {
        Result result = run("--topology", TestingFiles.examplesDirectory().resolve("dgx-h100-ib-2node.json").toString(), "--json");
        assertEquals(0, result.code(), result.err());
        JsonNode root = MAPPER.readTree(result.out());
        assertEquals(16, root.get("gpus").size());
        assertEquals("dgx-a/GPU0", root.get("gpus").get(0).asText());
        assertEquals("RDMA", root.get("network").get(0).get("route").asText());
        assertEquals("GDS", root.get("nvme").get(0).get("route").asText());
        assertTrue(run("--topology", TestingFiles.examplesDirectory().resolve("workstation.json").toString(), "--verbose").out().contains("nvme0"));
    }

    @Test
    void svgIsWrittenAndTheReportStillPrinted(@TempDir Path temp)
            throws IOException
    {
        Path svg = temp.resolve("dgx.svg");
        Result text = run("--topology", TestingFiles.examplesDirectory().resolve("dgx-h100-ib-2node.json").toString(), "--svg", svg.toString());
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().contains("dgx-a: 8 GPU(s)"), text.out());
        assertTrue(Files.readString(svg).startsWith("<?xml"));
        assertTrue(Files.readString(svg).contains("PIX GPUDIRECT_RDMA"));

        Path fromCapture = temp.resolve("capture.svg");
        Result json = run("--nvidia-smi", TestingFiles.capture("hgx-h100.txt").toString(), "--json", "--svg=" + fromCapture);
        assertEquals(0, json.code(), json.err());
        MAPPER.readTree(json.out());
        assertTrue(Files.readString(fromCapture).contains("NVSwitch: 8 GPUs"));

        Path fromSysfs = temp.resolve("sysfs.svg");
        Path tree = Files.createDirectory(temp.resolve("sys"));
        assertEquals(0, run("--sysfs", tree.toString(), "--svg", fromSysfs.toString()).code());
        assertTrue(Files.readString(fromSysfs).contains("no GPU seen"));
    }

    @Test
    void svgToABadPathExitsOneWithTheReason(@TempDir Path temp)
    {
        String topology = TestingFiles.examplesDirectory().resolve("workstation.json").toString();
        Result missingDirectory = run("--topology", topology, "--svg", temp.resolve("absent/x.svg").toString());
        assertEquals(1, missingDirectory.code());
        assertEquals("ferry topology: Cannot write the SVG drawing to " + temp.resolve("absent/x.svg") + ": no such directory\n", missingDirectory.err());
        assertEquals("", missingDirectory.out());
        Result directory = run("--topology", topology, "--svg", temp.toString());
        assertEquals(1, directory.code());
        assertTrue(directory.err().startsWith("ferry topology: Cannot write the SVG drawing to " + temp + ": "), directory.err());
    }

    @Test
    void probingAnEmptySysfsTreeSaysWhatItCouldNotSee(@TempDir Path sysfs)
    {
        Result result = run("--sysfs", sysfs.toString(), "--verbose");
        assertEquals(0, result.code(), result.err());
        assertTrue(result.out().contains("No GPU seen"), result.out());
        assertTrue(result.out().contains("could not run"), result.out());
        // The summary says it too, one line per probe that could not run
        Result summary = run("--sysfs", sysfs.toString());
        assertEquals(0, summary.code(), summary.err());
        assertTrue(summary.out().contains(": 0 GPU(s), 0 RDMA NIC(s), 0 NVMe\n"), summary.out());
        assertTrue(summary.out().contains("    not seen: "), summary.out());
    }

    @Test
    void theSummaryIsTheDefaultAndVerbosePrintsEveryDecision()
    {
        String topology = TestingFiles.examplesDirectory().resolve("dgx-h100-ib-2node.json").toString();
        Result summary = run("--topology", topology);
        Result verbose = run("--topology", topology, "--verbose");
        assertEquals(0, summary.code(), summary.err());
        assertEquals(0, verbose.code(), verbose.err());
        List<String> lines = summary.out().lines().toList();
        assertTrue(lines.size() <= 20, lines.size() + " lines:\n" + summary.out());
        assertTrue(lines.get(0).startsWith("  cluster ") && lines.get(0).endsWith(": 2 node(s)"), lines.get(0));
        assertTrue(summary.out().contains("  dgx-a: 8 GPU(s), 8 RDMA NIC(s), "), summary.out());
        // 28 GPU pairs per node, all over the NVSwitch; each GPU reaches the NICs with GPUDirect RDMA from its own PCIe switch
        assertTrue(summary.out().contains("    GPU<->GPU NVLINK x28\n"), summary.out());
        assertTrue(summary.out().matches("(?s).*    GPU<->NIC (\\w+ x\\d+, )*GPUDIRECT_RDMA x\\d+.*"), summary.out());
        assertTrue(summary.out().contains("  dgx-a <-> dgx-b: RDMA - ") || summary.out().contains("  dgx-b <-> dgx-a: RDMA - "), summary.out());
        assertTrue(summary.out().endsWith("(--verbose prints the device matrix and every decision with its reason)\n"), summary.out());
        assertFalse(summary.out().contains("reason: "), summary.out());

        assertTrue(verbose.out().contains("== Node dgx-a =="), verbose.out());
        assertTrue(verbose.out().contains("reason: "), verbose.out());
        assertTrue(verbose.out().lines().count() > 10 * lines.size(), verbose.out().lines().count() + " verbose lines");
        assertEquals(2, run("--topology", topology, "--verbose", "--json").code());
    }

    @Test
    void badArgumentsExitTwoWithUsage()
    {
        for (List<String> args : List.of(
                List.of("--frobnicate"),
                List.of("--nvidia-smi"),
                List.of("--peermem", "maybe"),
                List.of("--json=yes"),
                List.of("--conf", "p2pLevel=PHB"),
                List.of("--conf", "spark.ferry.route.p2pLevel=near"),
                List.of("--conf", "spark.ferry.route.p2plevel=PHB"),
                List.of("--nvidia-smi", "a.txt", "--topology", "b.json"),
                List.of("--file"),
                List.of("--file", "a", "--file", "b"),
                List.of("--file", "a", "--nvidia-smi", "a.txt"),
                List.of("--topology", "b.json", "--file", "a"),
                List.of("--file=a", "--sysfs", "d"),
                List.of("--svg"),
                List.of("--svg", "a.svg", "--svg", "b.svg"))) {
            Result result = run(args.toArray(String[]::new));
            assertEquals(2, result.code(), args.toString());
            assertTrue(result.err().contains("Usage: ferry topology"), result.err());
            assertEquals("", result.out());
        }
        Result help = run("--help");
        assertEquals(0, help.code());
        assertTrue(help.out().contains("Usage: ferry topology"));
        assertTrue(help.out().contains("--svg FILE"));
    }

    @Test
    void badInputFilesExitOne(@TempDir Path temp)
            throws IOException
    {
        Result missing = run("--nvidia-smi", temp.resolve("absent.txt").toString());
        assertEquals(1, missing.code());
        assertTrue(missing.err().contains("absent.txt"), missing.err());
        Path bad = temp.resolve("bad.txt");
        Files.writeString(bad, "        GPU0    GPU1\nGPU0     X      PIX\nGPU1    PXB      X\n");
        Result malformed = run("--nvidia-smi", bad.toString());
        assertEquals(1, malformed.code());
        assertTrue(malformed.err().contains("line 3"), malformed.err());
        Path json = temp.resolve("bad.json");
        Files.writeString(json, "{\"nodes\": 3}");
        Result badJson = run("--topology", json.toString());
        assertEquals(1, badJson.code());
        assertTrue(badJson.err().contains("bad.json: $.nodes: expected an array"), badJson.err());
    }

    @Test
    void aFileOfThisMachineIsLocatedAndDecidedForEveryGpuOrTheHost()
            throws IOException
    {
        Path here = Path.of("").toAbsolutePath().toRealPath();
        Result text = run("--file", here.toString(), "--verbose");
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().contains("\nFile " + here + ":\n  "), text.out());
        if (text.out().contains("No GPU seen")) {
            assertTrue(text.out().contains("Host <- file:\n  host -> " + here + "  -  HOST  "), text.out());
            assertTrue(text.out().contains("reason: " + here + ": no GPU involved, plain host I/O"), text.out());
        }
        else {
            assertTrue(text.out().contains("GPU <- file:\n  GPU0 -> " + here), text.out());
        }

        Result json = run("--file", here.toString(), "--json");
        assertEquals(0, json.code(), json.err());
        JsonNode root = MAPPER.readTree(json.out());
        assertEquals(here.toString(), root.get("file").get("path").asText());
        assertFalse(root.get("file").get("filesystemType").asText().isEmpty());
        assertEquals(Math.max(1, root.get("gpus").size()), root.get("files").size());
        for (JsonNode file : root.get("files")) {
            assertEquals(here.toString(), file.get("file").asText());
            assertTrue(Set.of("GDS", "BOUNCE", "HOST").contains(file.get("route").asText()), file.toString());
            assertFalse(file.get("reason").asText().isEmpty());
        }
    }

    @Test
    void aFileOnAFixtureMachineIsReadDirectlyOnlyByTheGpuNearItsDrive(@TempDir Path temp)
            throws IOException
    {
        // GPU0 shares root port 00:01.0 with nvme0; GPU1 hangs off another socket's host bridge
        SysfsTreeBuilder tree = TestingStorageMachine.tree(temp);
        tree.pci("pci0000:00/0000:00:01.0/0000:04:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x2330);
        tree.bridge("pci0000:80/0000:80:01.0", VENDOR_INTEL).numa(1);
        tree.pci("pci0000:80/0000:80:01.0/0000:81:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x2330).numa(1);
        tree.module("nvidia_fs", "2.20.5");
        FilePlacementProbe files = TestingStorageMachine.probe(temp, tree);
        ProbeOptions machine = new ProbeOptions(tree.root(), temp.resolve("no-proc"), false);

        Result direct = run(machine, files, "--file", "/ferry-fixture/direct/part-0.parquet", "--verbose");
        assertEquals(0, direct.code(), direct.err());
        assertTrue(direct.out().contains("File /ferry-fixture/direct/part-0.parquet:\n  ext4 on / (rw,relatime,errors=remount-ro) from /dev/nvme0n1p2, "
                + "device 259:2; block devices nvme0n1p2; NVMe controller nvme0\n"), direct.out());
        assertTrue(direct.out().contains("GPU0 -> /ferry-fixture/direct/part-0.parquet  PIX  GDS"), direct.out());
        assertTrue(direct.out().contains("GPU1 -> /ferry-fixture/direct/part-0.parquet  SYS  BOUNCE"), direct.out());
        assertTrue(direct.out().contains("veto: path SYS between GPU1 and nvme0 is beyond spark.ferry.route.gdsLevel=PXB (default)"), direct.out());
        // Each decision names its consumer: Spark's scan (CPU) reads on HOST, the GPU rows assume a device consumer
        assertTrue(direct.out().contains("host -> /ferry-fixture/direct/part-0.parquet  -  HOST"), direct.out());
        assertTrue(direct.out().contains("assumed a CPU consumer (decode on the host): plain host I/O, no PCIe crossing; a device consumer on GPU0 would read on GDS"),
                direct.out());
        assertTrue(direct.out().contains("; assumed a device consumer (batches kept in GPU memory)"),
                direct.out());

        JsonNode lvm = MAPPER.readTree(run(machine, files, "--file", "/ferry-fixture/lvm/x", "--json").out());
        assertEquals("[\"dm-0\",\"nvme0n1p1\"]", lvm.get("file").get("backingDevices").toString());
        assertEquals("nvme0", lvm.get("file").get("nvmeController").asText());
        assertEquals("HOST", lvm.get("files").get(0).get("route").asText());
        JsonNode gpu0 = lvm.get("files").get(1);
        assertEquals("GPU0", gpu0.get("src").asText());
        assertEquals("BOUNCE", gpu0.get("route").asText());
        assertEquals("[\"on dm-0 (vg0-data): device-mapper (LVM, dm-crypt or multipath), not directly on NVMe\"]", gpu0.get("vetoes").toString());
        assertEquals("PIX from sysfs, PCIe Gen4 x16: both directly below 0000:00:01.0: a single PCIe switch; 0000:04:00.0 - 0000:00:01.0 - 0000:05:00.0",
                gpu0.get("pathDetail").asText());
        assertEquals("BOUNCE", lvm.get("files").get(2).get("route").asText());

        Result unreadable = run(machine, new FilePlacementProbe(temp.resolve("no-mountinfo"), tree.root()), "--file", "/x");
        assertEquals(1, unreadable.code());
        assertTrue(unreadable.err().contains("EXTERNAL: Cannot read the mount table"), unreadable.err());
    }

    private static String firstNicRoute(Result result)
            throws IOException
    {
        assertEquals(0, result.code(), result.err());
        JsonNode nics = MAPPER.readTree(result.out()).get("nics");
        for (JsonNode nic : nics) {
            if (nic.get("gpu").asText().equals("GPU0") && nic.get("nic").asText().equals("mlx5_0")) {
                return nic.get("route").asText();
            }
        }
        throw new AssertionError("no GPU0-mlx5_0 entry");
    }

    private record Result(int code, String out, String err) {}

    private static Result run(String... args)
    {
        return run(ProbeOptions.localMachine(), FilePlacementProbe.localMachine(), args);
    }

    private static Result run(ProbeOptions machine, FilePlacementProbe files, String... args)
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = TopologyCommand.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                machine, files);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
