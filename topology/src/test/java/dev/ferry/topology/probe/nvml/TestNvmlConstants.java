package dev.ferry.topology.probe.nvml;

import org.bytedeco.cuda.global.nvml;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The copied constants match the pinned bindings. The bytedeco fields are compile-time constants, so
 * javac inlines them and this test never loads the native library.
 */
class TestNvmlConstants
{
    @Test
    void copiedConstantsMatchTheBindings()
    {
        assertEquals(nvml.NVML_SUCCESS, NvmlConstants.NVML_SUCCESS);
        assertEquals(nvml.NVML_ERROR_NOT_SUPPORTED, NvmlConstants.NVML_ERROR_NOT_SUPPORTED);
        assertEquals(nvml.NVML_P2P_CAPS_INDEX_READ, NvmlConstants.NVML_P2P_CAPS_INDEX_READ);
        assertEquals(nvml.NVML_P2P_CAPS_INDEX_WRITE, NvmlConstants.NVML_P2P_CAPS_INDEX_WRITE);
        assertEquals(nvml.NVML_P2P_STATUS_OK, NvmlConstants.NVML_P2P_STATUS_OK);
        assertEquals(nvml.NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED, NvmlConstants.NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED);
        assertEquals(nvml.NVML_P2P_STATUS_GPU_NOT_SUPPORTED, NvmlConstants.NVML_P2P_STATUS_GPU_NOT_SUPPORTED);
        assertEquals(nvml.NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED, NvmlConstants.NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED);
        assertEquals(nvml.NVML_P2P_STATUS_DISABLED_BY_REGKEY, NvmlConstants.NVML_P2P_STATUS_DISABLED_BY_REGKEY);
        assertEquals(nvml.NVML_P2P_STATUS_NOT_SUPPORTED, NvmlConstants.NVML_P2P_STATUS_NOT_SUPPORTED);
        assertEquals(nvml.NVML_P2P_STATUS_UNKNOWN, NvmlConstants.NVML_P2P_STATUS_UNKNOWN);
        assertEquals(nvml.NVML_NVLINK_DEVICE_TYPE_GPU, NvmlConstants.NVML_NVLINK_DEVICE_TYPE_GPU);
        assertEquals(nvml.NVML_NVLINK_DEVICE_TYPE_IBMNPU, NvmlConstants.NVML_NVLINK_DEVICE_TYPE_IBMNPU);
        assertEquals(nvml.NVML_NVLINK_DEVICE_TYPE_SWITCH, NvmlConstants.NVML_NVLINK_DEVICE_TYPE_SWITCH);
        assertEquals(nvml.NVML_NVLINK_DEVICE_TYPE_UNKNOWN, NvmlConstants.NVML_NVLINK_DEVICE_TYPE_UNKNOWN);
        assertEquals(nvml.NVML_NVLINK_VERSION_INVALID, NvmlConstants.NVML_NVLINK_VERSION_INVALID);
        assertEquals(nvml.NVML_NVLINK_VERSION_1_0, NvmlConstants.NVML_NVLINK_VERSION_1_0);
        assertEquals(nvml.NVML_NVLINK_VERSION_2_0, NvmlConstants.NVML_NVLINK_VERSION_2_0);
        assertEquals(nvml.NVML_NVLINK_VERSION_2_2, NvmlConstants.NVML_NVLINK_VERSION_2_2);
        assertEquals(nvml.NVML_NVLINK_VERSION_3_0, NvmlConstants.NVML_NVLINK_VERSION_3_0);
        assertEquals(nvml.NVML_NVLINK_VERSION_3_1, NvmlConstants.NVML_NVLINK_VERSION_3_1);
        assertEquals(nvml.NVML_NVLINK_VERSION_4_0, NvmlConstants.NVML_NVLINK_VERSION_4_0);
        assertEquals(nvml.NVML_NVLINK_VERSION_5_0, NvmlConstants.NVML_NVLINK_VERSION_5_0);
    }
}
