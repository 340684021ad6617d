package dev.ferry.device.kernel;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class TestKernelErrorFlags
{
    @Test
    public void everyKernelDefineHasTheJavaValue()
            throws Exception
    {
        Pattern define = Pattern.compile("#define FERRY_ERROR_(\\w+) (\\d+)u");
        int seen = 0;
        for (Path source : TestKernelSourcesCompile.kernelSources()) {
            Matcher matcher = define.matcher(Files.readString(source));
            while (matcher.find()) {
                int expected = (int) KernelErrorFlags.class.getField(matcher.group(1)).get(null);
                assertEquals(expected, Integer.parseInt(matcher.group(2)), source.getFileName() + " FERRY_ERROR_" + matcher.group(1));
                seen++;
            }
        }
        assertTrue(seen >= 5, "found only " + seen + " error defines");
    }

    @Test
    public void describesTheBits()
    {
        assertEquals("no error", KernelErrorFlags.describe(0));
        assertTrue(KernelErrorFlags.describe(KernelErrorFlags.OVERRUN | KernelErrorFlags.VALUE_RANGE).contains("past the page"));
        assertTrue(KernelErrorFlags.describe(64).contains("unknown error bits 0x40"));
    }
}
