package dev.ferry.topology.route;

/**
 * Where the reader of a file wants its bytes, which decides whether a GPU route can pay off. Ferry
 * decodes Parquet on the CPU, so for a {@link #CPU} consumer GDS and BOUNCE only add two PCIe
 * crossings (the raw bytes up into GPU memory and straight back down) and gain nothing.
 */
public enum FileConsumer
{
    /** The data is wanted in host memory: Spark's {@code spark.read.format("gds")} scan, decoded on the CPU. */
    CPU("CPU consumer (decode on the host)"),
    /** The data is wanted in GPU memory: a consumer that keeps batches on the device, such as the examples' GpuDataLoad. */
    DEVICE("device consumer (batches kept in GPU memory)");

    private final String description;

    FileConsumer(String description)
    {
        this.description = description;
    }

    /** How decisions name the consumer they assumed. */
    public String describe()
    {
        return description;
    }
}
