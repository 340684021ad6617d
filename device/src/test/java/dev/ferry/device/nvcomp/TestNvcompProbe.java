package dev.ferry.device.nvcomp;

import dev.ferry.device.kernel.KernelAvailability;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class TestNvcompProbe
{
    @Test
    public void probeGivesAVerdictWithAReasonNeverALinkError()
    {
        // Without libnvcomp (this CUDA-less machine) the verdict is "unavailable" with the loader's reason.
        KernelAvailability availability = NvcompProbe.availability();
        assertFalse(availability.reason().isBlank(), availability.toString());
        if (!availability.available()) {
            assertTrue(availability.reason().startsWith("nvCOMP does not load: "), availability.reason());
        }
        assertSame(availability, NvcompProbe.availability());
    }

    @Test
    public void parquetCodecsMapToNvcompOrStayOnTheCpu()
    {
        assertEquals(NvcompCodec.SNAPPY, NvcompCodec.forParquet("SNAPPY").orElseThrow());
        assertEquals(NvcompCodec.ZSTD, NvcompCodec.forParquet("zstd").orElseThrow());
        assertEquals(NvcompCodec.LZ4_RAW, NvcompCodec.forParquet("LZ4_RAW").orElseThrow());
        assertEquals(NvcompCodec.GZIP, NvcompCodec.forParquet("GZIP").orElseThrow());
        // Hadoop-framed LZ4 and BROTLI have no nvCOMP decompressor.
        assertTrue(NvcompCodec.forParquet("LZ4").isEmpty());
        assertTrue(NvcompCodec.forParquet("BROTLI").isEmpty());
    }
}
