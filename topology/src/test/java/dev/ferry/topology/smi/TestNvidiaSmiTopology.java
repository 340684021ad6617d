package dev.ferry.topology.smi;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.topology.TestingFiles;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.Relation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestNvidiaSmiTopology
{
    static List<Path> captures()
    {
        return TestingFiles.captures();
    }

    @ParameterizedTest
    @MethodSource("captures")
    void everyCaptureParsesIntoACompleteSymmetricMatrix(Path capture)
    {
        NodeTopology node = NvidiaSmiTopology.read(capture);
        assertFalse(node.gpus().isEmpty(), capture + " has GPUs");
        List<String> devices = new ArrayList<>();
        node.gpus().forEach(gpu -> devices.add(gpu.name()));
        node.nics().forEach(nic -> devices.add(nic.name()));
        int pairs = devices.size() * (devices.size() - 1) / 2;
        assertEquals(pairs, node.relations().size());
        for (String a : devices) {
            for (String b : devices) {
                Relation relation = node.relation(a, b).orElseThrow();
                assertEquals(a.equals(b), relation.pathClass() == PathClass.SELF);
                assertEquals(relation.cell(), node.relation(b, a).orElseThrow().cell());
                if (!a.equals(b)) {
                    assertEquals(NvidiaSmiTopology.SOURCE, relation.source());
                }
            }
        }
        for (Nic nic : node.nics()) {
            assertEquals(LinkLayer.UNKNOWN, nic.linkLayer());
            assertFalse(nic.isActive(), "a capture does not show port state");
        }
        assertTrue(node.reports().get(0).ran());
    }

    @ParameterizedTest
    @MethodSource("captures")
    void tabSeparatedOutputParsesLikeTheSpaceExpandedCopy(Path capture)
    {
        String spaces = TestingFiles.read(capture);
        String tabs = toTabs(spaces);
        assertTrue(tabs.contains("\t"));
        assertEquals(NvidiaSmiTopology.parse("host", "capture", spaces), NvidiaSmiTopology.parse("host", "capture", tabs));
        assertEquals(NvidiaSmiTopology.parse("host", "capture", spaces), NvidiaSmiTopology.parse("host", "capture", spaces.replace("\n", "\r\n")));
    }

    @Test
    void dgx1HasMlx5ColumnsCpuAffinityOnlyAndNvlinkCounts()
    {
        NodeTopology node = NvidiaSmiTopology.read(TestingFiles.capture("dgx1-v100-4nic.txt"));
        assertEquals(8, node.gpus().size());
        assertEquals(List.of("mlx5_2", "mlx5_0", "mlx5_3", "mlx5_1"), node.nics().stream().map(Nic::name).toList());
        Gpu gpu0 = node.gpu("GPU0").orElseThrow();
        assertEquals("0-19,40-59", gpu0.cpuAffinity());
        assertEquals(OptionalInt.empty(), gpu0.numaNode());
        assertEquals(1, node.relation("GPU0", "GPU1").orElseThrow().nvlinkCount());
        assertEquals(2, node.relation("GPU0", "GPU3").orElseThrow().nvlinkCount());
        assertEquals(PathClass.SYS, node.relation("GPU0", "GPU5").orElseThrow().pathClass());
        assertEquals(PathClass.PIX, node.relation("GPU0", "mlx5_0").orElseThrow().pathClass());
        assertEquals(PathClass.PHB, node.relation("mlx5_1", "mlx5_0").orElseThrow().pathClass());
    }

    @Test
    void nicLegendRenamesColumnsAndNumaAffinityIsRead()
    {
        NodeTopology node = NvidiaSmiTopology.read(TestingFiles.capture("dgx-a100.txt"));
        assertEquals(10, node.nics().size());
        assertTrue(node.nic("mlx5_9").isPresent());
        assertTrue(node.nic("NIC0").isEmpty());
        assertEquals(PathClass.PIX, node.relation("mlx5_8", "mlx5_9").orElseThrow().pathClass());
        assertEquals(PathClass.PXB, node.relation("GPU7", "mlx5_7").orElseThrow().pathClass());
        assertEquals(OptionalInt.of(3), node.gpu("GPU0").orElseThrow().numaNode());
        assertEquals("112-127,240-255", node.gpu("GPU4").orElseThrow().cpuAffinity());
        assertEquals(OptionalInt.of(7), node.gpu("GPU4").orElseThrow().numaNode());
    }

    @Test
    void desktopWithNumaAffinityNotAvailable()
    {
        NodeTopology node = NvidiaSmiTopology.read(TestingFiles.capture("desktop-2x1080ti.txt"));
        assertEquals(2, node.gpus().size());
        assertTrue(node.nics().isEmpty());
        assertEquals(OptionalInt.empty(), node.gpu("GPU1").orElseThrow().numaNode());
        assertEquals(PathClass.PHB, node.relation("GPU0", "GPU1").orElseThrow().pathClass());
    }

    @Test
    void oldDriverSocIsSys()
    {
        String text = String.join("\n",
                "\tGPU0\tGPU1\tGPU2\tmlx4_0\tCPU Affinity",
                "GPU0\t X \tPIX\tSOC\tPHB\t0-7,16-23",
                "GPU1\tPIX\t X \tSOC\tPHB\t0-7,16-23",
                "GPU2\tSOC\tSOC\t X \tSOC\t8-15,24-31",
                "mlx4_0\tPHB\tPHB\tSOC\t X ",
                "",
                "Legend:",
                "",
                "  X   = Self",
                "  SOC  = Connection traversing PCIe as well as the SMP link between CPU sockets(e.g. QPI)",
                "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
                "  PXB  = Connection traversing multiple PCIe switches (without traversing the PCIe Host Bridge)",
                "  PIX  = Connection traversing a single PCIe switch",
                "  NV#  = Connection traversing a bonded set of # NVLinks",
                "");
        NodeTopology node = NvidiaSmiTopology.parse("old", "old.txt", text);
        assertEquals(PathClass.SYS, node.relation("GPU0", "GPU2").orElseThrow().pathClass());
        assertEquals("SYS", node.relation("GPU2", "mlx4_0").orElseThrow().cell());
        assertEquals(PathClass.PIX, node.relation("GPU0", "GPU1").orElseThrow().pathClass());
        assertEquals("8-15,24-31", node.gpu("GPU2").orElseThrow().cpuAffinity());
    }

    @Test
    void nicLegendVariantWithGpuNumaIdAndPromptBeforeTheHeader()
    {
        String text = String.join("\n",
                "$ nvidia-smi topo -m",
                "        GPU0    GPU1    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID",
                "GPU0     X      NV4     PXB     SYS     0-31            0               N/A",
                "GPU1    NV4      X      SYS     PXB     32-63           1               N/A",
                "NIC0    PXB     SYS      X      SYS",
                "NIC1    SYS     PXB     SYS      X",
                "",
                "Legend:",
                "",
                "  X    = Self",
                "  NV#  = Connection traversing a bonded set of # NVLinks",
                "",
                "NIC Legend:",
                "",
                "  NIC0: mlx5_4",
                "  NIC1: mlx5_7",
                "");
        NodeTopology node = NvidiaSmiTopology.parse("h", "legend.txt", text);
        assertEquals(List.of("mlx5_4", "mlx5_7"), node.nics().stream().map(Nic::name).toList());
        assertEquals(PathClass.PXB, node.relation("GPU1", "mlx5_7").orElseThrow().pathClass());
        assertEquals(4, node.relation("GPU0", "GPU1").orElseThrow().nvlinkCount());
        assertEquals(OptionalInt.of(1), node.gpu("GPU1").orElseThrow().numaNode());
    }

    @Test
    void legendDirectlyAfterTheMatrixEndsIt()
    {
        NodeTopology node = NvidiaSmiTopology.parse("h", "pasted.txt", String.join("\n",
                "        GPU0    GPU1",
                "GPU0     X      PXB",
                "GPU1    PXB      X ",
                "  X    = Self",
                "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"));
        assertEquals(PathClass.PXB, node.relation("GPU0", "GPU1").orElseThrow().pathClass());
    }

    @Test
    void singleGpuAndFusedAffinityHeader()
    {
        NodeTopology single = NvidiaSmiTopology.parse("h", "one.txt", "\tGPU0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t0-15\t0\n");
        assertEquals(1, single.gpus().size());
        assertEquals(OptionalInt.of(0), single.gpu("GPU0").orElseThrow().numaNode());
        // Long headers can run into the next column name
        NodeTopology fused = NvidiaSmiTopology.parse("h", "fused.txt", "   GPU0  GPU1  mlx5_10CPU Affinity\nGPU0 X PXB PIX 0-7\nGPU1 PXB X PIX 0-7\nmlx5_10 PIX PIX X\n");
        assertTrue(fused.nic("mlx5_10").isPresent());
        assertEquals("0-7", fused.gpu("GPU1").orElseThrow().cpuAffinity());
    }

    @Test
    void raggedRowNamesTheLine()
    {
        assertMalformed(String.join("\n",
                "\tGPU0\tGPU1\tCPU Affinity",
                "GPU0\t X \tPHB\t0-11",
                "GPU1\tPHB\t0-11"), 3, "GPU1\\tPHB\\t0-11", "has 1 matrix values but the header has 2 device columns");
    }

    @Test
    void extraCellNamesTheLine()
    {
        assertMalformed(String.join("\n",
                "\tGPU0\tGPU1",
                "GPU0\t X \tPHB\tPHB",
                "GPU1\tPHB\t X "), 2, "GPU0", "more matrix cells");
    }

    @Test
    void unknownCellTokenNamesTheLine()
    {
        assertMalformed(String.join("\n",
                "        GPU0    GPU1    CPU Affinity",
                "GPU0     X      PXX     0-11",
                "GPU1    PXB      X      0-11"), 2, "PXX", "Unknown topology cell 'PXX'");
    }

    @Test
    void asymmetricMatrixNamesBothLines()
    {
        assertMalformed(String.join("\n",
                "        GPU0    GPU1    GPU2",
                "GPU0     X      PIX     SYS",
                "GPU1    PIX      X      NV2",
                "GPU2    SYS     NV1      X "), 4, "GPU2    SYS     NV1", "not symmetric");
    }

    @Test
    void missingSelfNamesTheLine()
    {
        assertMalformed(String.join("\n",
                "        GPU0    GPU1",
                "GPU0     X      PIX",
                "GPU1    PIX     PIX"), 3, "GPU1    PIX     PIX", "must have X in its own column");
    }

    @Test
    void unknownRowNamesTheLine()
    {
        assertMalformed(String.join("\n",
                "        GPU0    GPU1",
                "GPU0     X      PIX",
                "GPU3    PIX      X "), 3, "GPU3", "row 'GPU3' is not a column");
    }

    @Test
    void missingAndDuplicateRowsAreErrors()
    {
        assertMalformed(String.join("\n",
                "        GPU0    GPU1    mlx5_0",
                "GPU0     X      PIX     PIX",
                "GPU1    PIX      X      PIX",
                "",
                "Legend:"), 4, "", "without a row for column 'mlx5_0'");
        assertMalformed(String.join("\n",
                "        GPU0    GPU1",
                "GPU0     X      PIX",
                "GPU0     X      PIX",
                "GPU1    PIX      X "), 3, "GPU0", "appears twice");
    }

    @Test
    void badAffinityAndLegendAreErrors()
    {
        assertMalformed(String.join("\n",
                "        GPU0    GPU1    CPU Affinity",
                "GPU0     X      PIX     0-11",
                "GPU1    PIX      X      zero"), 3, "zero", "not a valid CPU Affinity");
        assertMalformed(String.join("\n",
                "        GPU0    NIC0",
                "GPU0     X      PIX",
                "NIC0    PIX      X ",
                "",
                "NIC Legend:",
                "",
                "  NIC0: mlx5_0",
                "  NIC1: mlx5_1"), 8, "NIC1: mlx5_1", "not a column");
    }

    @Test
    void textWithoutMatrixIsAnError()
    {
        FerryException error = assertThrows(FerryException.class, () -> NvidiaSmiTopology.parse("h", "empty.txt", "No devices were found\n"));
        assertEquals(ErrorCategory.USER_ERROR, error.category());
        assertTrue(error.getMessage().contains("empty.txt"), error.getMessage());
        assertTrue(error.getMessage().contains("no header line"), error.getMessage());
    }

    private static void assertMalformed(String text, int line, String content, String problem)
    {
        FerryException error = assertThrows(FerryException.class, () -> NvidiaSmiTopology.parse("h", "bad.txt", text));
        assertEquals(ErrorCategory.USER_ERROR, error.category());
        String message = error.getMessage();
        assertTrue(message.contains("bad.txt, line " + line + ":"), message);
        assertTrue(message.contains(content), message);
        assertTrue(message.contains(problem), message);
    }

    /** nvidia-smi's raw layout: tab-separated, self cell " X ", a leading tab before the header. */
    static String toTabs(String text)
    {
        List<String> out = new ArrayList<>();
        boolean inMatrix = false;
        boolean done = false;
        for (String line : text.split("\n", -1)) {
            if (!done && !inMatrix && line.contains("GPU0")) {
                inMatrix = true;
                String header = line.trim()
                        .replace("CPU Affinity", "CPU\u0001Affinity")
                        .replace("NUMA Affinity", "NUMA\u0001Affinity")
                        .replace("GPU NUMA ID", "GPU\u0001NUMA\u0001ID");
                out.add("\t" + String.join("\t", header.split("\\s+")).replace('\u0001', ' '));
                continue;
            }
            if (inMatrix && line.isBlank()) {
                inMatrix = false;
                done = true;
            }
            if (inMatrix) {
                List<String> cells = new ArrayList<>();
                for (String token : line.trim().split("\\s+")) {
                    cells.add(token.equals("X") ? " X " : token);
                }
                out.add(String.join("\t", cells));
            }
            else {
                out.add(line);
            }
        }
        return String.join("\n", out);
    }
}
