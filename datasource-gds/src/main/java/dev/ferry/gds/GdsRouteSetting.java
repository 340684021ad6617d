package dev.ferry.gds;

/** What {@code spark.ferry.gds.route} asks for. */
public enum GdsRouteSetting
{
    /** Per file, from the topology policy: GDS where cuFile can read directly, BOUNCE with a GPU otherwise, HOST without one. */
    AUTO,
    /** cuFile into device buffers; refused where the device runtime cannot do it. */
    GDS,
    /** Pinned host buffers, then a copy to the device. */
    BOUNCE,
    /** Positional reads into host memory; no GPU involved. */
    HOST,
}
