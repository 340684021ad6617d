package dev.ferry.topology.probe.nvml;

/** Turns NVML's CPU bitmasks into the kernel's list syntax ({@code 0-23,48-71}). */
public final class CpuMasks
{
    private CpuMasks() {}

    /** @param words 64 CPUs per element, CPU 0 in bit 0 of element 0 */
    public static String toCpuList(long[] words)
    {
        StringBuilder list = new StringBuilder();
        int total = words.length * Long.SIZE;
        int cpu = 0;
        while (cpu < total) {
            if (!isSet(words, cpu)) {
                cpu++;
                continue;
            }
            int start = cpu;
            while (cpu + 1 < total && isSet(words, cpu + 1)) {
                cpu++;
            }
            if (list.length() > 0) {
                list.append(',');
            }
            list.append(start);
            if (cpu > start) {
                list.append('-').append(cpu);
            }
            cpu++;
        }
        return list.toString();
    }

    private static boolean isSet(long[] words, int cpu)
    {
        return (words[cpu / Long.SIZE] & (1L << (cpu % Long.SIZE))) != 0;
    }
}
