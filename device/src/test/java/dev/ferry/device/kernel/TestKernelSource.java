package dev.ferry.device.kernel;

import dev.ferry.common.FerryException;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class TestKernelSource
{
    @Test
    public void loadsEveryKernelResourceWithItsSha256()
            throws Exception
    {
        for (Path file : TestKernelSourcesCompile.kernelSources()) {
            byte[] bytes = Files.readAllBytes(file);
            KernelSource source = KernelSource.load(file.getFileName().toString());
            assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), source.sha256());
            assertEquals(new String(bytes, java.nio.charset.StandardCharsets.UTF_8), source.text());
        }
    }

    @Test
    public void theLevelsSourceDefinesBothKernels()
    {
        String text = KernelSource.load("parquet_levels.cu").text();
        assertTrue(text.contains("extern \"C\" __global__ void ferry_levels_to_validity("));
        assertTrue(text.contains("extern \"C\" __global__ void ferry_scatter_spaced("));
    }

    @Test
    public void theDecodeKernelListMatchesTheSources()
    {
        java.util.regex.Pattern kernel = java.util.regex.Pattern.compile("extern \"C\" __global__ void (\\w+)\\(");
        for (java.util.Map.Entry<String, java.util.List<String>> entry : KernelCheck.DECODE_KERNELS.entrySet()) {
            java.util.regex.Matcher matcher = kernel.matcher(KernelSource.load(entry.getKey()).text());
            java.util.Set<String> defined = new java.util.TreeSet<>();
            while (matcher.find()) {
                defined.add(matcher.group(1));
            }
            assertEquals(new java.util.TreeSet<>(entry.getValue()), defined, entry.getKey());
        }
    }

    @Test
    public void aMissingSourceNamesItsResource()
    {
        FerryException error = assertThrows(FerryException.class, () -> KernelSource.load("no_such_kernel.cu"));
        assertTrue(error.getMessage().contains("dev/ferry/device/kernel/no_such_kernel.cu"), error.getMessage());
    }
}
