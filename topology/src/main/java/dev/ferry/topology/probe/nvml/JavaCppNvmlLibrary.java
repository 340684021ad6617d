package dev.ferry.topology.probe.nvml;

import org.bytedeco.cuda.nvml.nvmlDevice_st;
import org.bytedeco.cuda.nvml.nvmlFieldValue_t;
import org.bytedeco.cuda.nvml.nvmlPciInfo_t;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.CLongPointer;
import org.bytedeco.javacpp.PointerPointer;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static org.bytedeco.cuda.global.nvml.NVML_DEVICE_NAME_V2_BUFFER_SIZE;
import static org.bytedeco.cuda.global.nvml.NVML_DEVICE_UUID_V2_BUFFER_SIZE;
import static org.bytedeco.cuda.global.nvml.NVML_FEATURE_ENABLED;
import static org.bytedeco.cuda.global.nvml.NVML_FI_DEV_NVLINK_GET_STATE;
import static org.bytedeco.cuda.global.nvml.NVML_NVLINK_CAP_P2P_SUPPORTED;
import static org.bytedeco.cuda.global.nvml.NVML_SUCCESS;
import static org.bytedeco.cuda.global.nvml.NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetCount_v2;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetCpuAffinity;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetCudaComputeCapability;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetCurrPcieLinkGeneration;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetCurrPcieLinkWidth;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetFieldValues;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetHandleByIndex_v2;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetMaxPcieLinkGeneration;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetMaxPcieLinkWidth;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetName;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetNvLinkCapability;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetNvLinkRemoteDeviceType;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetNvLinkRemotePciInfo_v2;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetNvLinkState;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetNvLinkVersion;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetP2PStatus;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetPciInfo_v3;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetUUID;
import static org.bytedeco.cuda.global.nvml.nvmlErrorString;
import static org.bytedeco.cuda.global.nvml.nvmlInit_v2;
import static org.bytedeco.cuda.global.nvml.nvmlSystemGetDriverVersion;

/**
 * {@link NvmlLibrary} over {@code org.bytedeco.cuda.global.nvml} (JavaCPP CUDA presets 13.1-9.19-1.5.13).
 * Loaded only by name from {@link NvmlLoader}: referencing this class loads the native bindings.
 * <p>
 * NVML is initialised once and never shut down: {@code nvmlInit}/{@code nvmlShutdown} are
 * reference-counted process-wide, and the verdict is cached for the life of the process anyway.
 * Calls are synchronized because the handle cache is shared; NVML itself is thread-safe.
 */
public final class JavaCppNvmlLibrary
        implements NvmlLibrary
{
    private final Map<Integer, nvmlDevice_st> handles = new HashMap<>();

    private JavaCppNvmlLibrary() {}

    /** Initialises NVML; throws what the native load throws, or {@link NvmlCallException}. */
    public static NvmlLibrary open()
    {
        check("nvmlInit_v2", nvmlInit_v2());
        return new JavaCppNvmlLibrary();
    }

    @Override
    public synchronized String driverVersion()
    {
        byte[] buffer = new byte[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
        check("nvmlSystemGetDriverVersion", nvmlSystemGetDriverVersion(buffer, buffer.length));
        return cString(buffer);
    }

    @Override
    public synchronized int deviceCount()
    {
        int[] count = new int[1];
        check("nvmlDeviceGetCount_v2", nvmlDeviceGetCount_v2(count));
        return count[0];
    }

    @Override
    public synchronized String name(int device)
    {
        byte[] buffer = new byte[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
        check("nvmlDeviceGetName", nvmlDeviceGetName(handle(device), buffer, buffer.length));
        return cString(buffer);
    }

    @Override
    public synchronized String uuid(int device)
    {
        byte[] buffer = new byte[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        check("nvmlDeviceGetUUID", nvmlDeviceGetUUID(handle(device), buffer, buffer.length));
        return cString(buffer);
    }

    @Override
    public synchronized String pciBusId(int device)
    {
        try (nvmlPciInfo_t info = new nvmlPciInfo_t()) {
            check("nvmlDeviceGetPciInfo_v3", nvmlDeviceGetPciInfo_v3(handle(device), info));
            return busId(info);
        }
    }

    @Override
    public synchronized int[] computeCapability(int device)
    {
        int[] major = new int[1];
        int[] minor = new int[1];
        check("nvmlDeviceGetCudaComputeCapability", nvmlDeviceGetCudaComputeCapability(handle(device), major, minor));
        return new int[] {major[0], minor[0]};
    }

    @Override
    public synchronized int maxPcieGeneration(int device)
    {
        return intResult("nvmlDeviceGetMaxPcieLinkGeneration", value -> nvmlDeviceGetMaxPcieLinkGeneration(handle(device), value));
    }

    @Override
    public synchronized int maxPcieWidth(int device)
    {
        return intResult("nvmlDeviceGetMaxPcieLinkWidth", value -> nvmlDeviceGetMaxPcieLinkWidth(handle(device), value));
    }

    @Override
    public synchronized int currentPcieGeneration(int device)
    {
        return intResult("nvmlDeviceGetCurrPcieLinkGeneration", value -> nvmlDeviceGetCurrPcieLinkGeneration(handle(device), value));
    }

    @Override
    public synchronized int currentPcieWidth(int device)
    {
        return intResult("nvmlDeviceGetCurrPcieLinkWidth", value -> nvmlDeviceGetCurrPcieLinkWidth(handle(device), value));
    }

    @Override
    public synchronized long[] cpuAffinity(int device, int words)
    {
        try (CLongPointer mask = new CLongPointer(words)) {
            check("nvmlDeviceGetCpuAffinity", nvmlDeviceGetCpuAffinity(handle(device), words, mask));
            long[] result = new long[words];
            for (int index = 0; index < words; index++) {
                result[index] = mask.get(index);
            }
            return result;
        }
    }

    @Override
    public synchronized boolean nvLinkP2pSupported(int device, int link)
    {
        return intResult("nvmlDeviceGetNvLinkCapability",
                value -> nvmlDeviceGetNvLinkCapability(handle(device), link, NVML_NVLINK_CAP_P2P_SUPPORTED, value)) != 0;
    }

    @Override
    public synchronized boolean nvLinkActive(int device, int link)
    {
        int[] value = new int[1];
        int result = nvmlDeviceGetNvLinkState(handle(device), link, value);
        if (result == NVML_SUCCESS) {
            return value[0] == NVML_FEATURE_ENABLED;
        }
        // Hopper and later answer through field values (NCCL asks NVML_FI_DEV_NVLINK_GET_STATE from sm90 on)
        try (nvmlFieldValue_t field = new nvmlFieldValue_t()) {
            field.fieldId(NVML_FI_DEV_NVLINK_GET_STATE).scopeId(link);
            check("nvmlDeviceGetFieldValues", nvmlDeviceGetFieldValues(handle(device), 1, field));
            check("nvmlDeviceGetFieldValues(NVML_FI_DEV_NVLINK_GET_STATE)", field.nvmlReturn());
            return field.value().uiVal() == NVML_FEATURE_ENABLED;
        }
        catch (NvmlCallException e) {
            check("nvmlDeviceGetNvLinkState", result);
            throw e;
        }
    }

    @Override
    public synchronized int nvLinkVersion(int device, int link)
    {
        return intResult("nvmlDeviceGetNvLinkVersion", value -> nvmlDeviceGetNvLinkVersion(handle(device), link, value));
    }

    @Override
    public synchronized String nvLinkRemoteBusId(int device, int link)
    {
        try (nvmlPciInfo_t info = new nvmlPciInfo_t()) {
            check("nvmlDeviceGetNvLinkRemotePciInfo_v2", nvmlDeviceGetNvLinkRemotePciInfo_v2(handle(device), link, info));
            return busId(info);
        }
    }

    @Override
    public synchronized int nvLinkRemoteDeviceType(int device, int link)
    {
        return intResult("nvmlDeviceGetNvLinkRemoteDeviceType", value -> nvmlDeviceGetNvLinkRemoteDeviceType(handle(device), link, value));
    }

    @Override
    public synchronized int p2pStatus(int device, int peer, int capability)
    {
        return intResult("nvmlDeviceGetP2PStatus", value -> nvmlDeviceGetP2PStatus(handle(device), handle(peer), capability, value));
    }

    private nvmlDevice_st handle(int device)
    {
        nvmlDevice_st handle = handles.get(device);
        if (handle == null) {
            try (PointerPointer<nvmlDevice_st> out = new PointerPointer<>(1)) {
                check("nvmlDeviceGetHandleByIndex_v2", nvmlDeviceGetHandleByIndex_v2(device, out));
                handle = new nvmlDevice_st(out.get(0));
            }
            handles.put(device, handle);
        }
        return handle;
    }

    private static String busId(nvmlPciInfo_t info)
    {
        BytePointer busId = info.busId();
        return busId == null ? "" : busId.getString(StandardCharsets.US_ASCII).trim();
    }

    /** Calls an NVML getter that answers through one {@code unsigned int *} out-parameter. */
    private static int intResult(String function, IntOutCall call)
    {
        int[] value = new int[1];
        check(function, call.invoke(value));
        return value[0];
    }

    private static void check(String function, int result)
    {
        if (result != NVML_SUCCESS) {
            BytePointer description = nvmlErrorString(result);
            throw new NvmlCallException(function, result, description == null ? "unknown error" : description.getString());
        }
    }

    private static String cString(byte[] buffer)
    {
        int length = 0;
        while (length < buffer.length && buffer[length] != 0) {
            length++;
        }
        return new String(buffer, 0, length, StandardCharsets.US_ASCII).trim();
    }

    /** An NVML call writing its answer into {@code value[0]} and returning an {@code nvmlReturn_t}. */
    @FunctionalInterface
    private interface IntOutCall
    {
        int invoke(int[] value);
    }
}
