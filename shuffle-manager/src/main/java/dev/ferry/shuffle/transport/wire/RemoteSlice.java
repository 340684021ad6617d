package dev.ferry.shuffle.transport.wire;

/**
 * A range a peer may READ: one registered region's address range and its rkey. A block spanning
 * two registration chunks is two slices; a single READ never crosses a region boundary.
 *
 * @param offset where the slice starts inside the requested range
 */
public record RemoteSlice(long offset, long address, int length, int rkey) {}
