/**
 * Verbs through DiSNI 2.1. Only {@link dev.ferry.shuffle.transport.rdma.verbs.disni.DisniProbe} is linked by the
 * rest of Ferry; every other class here names DiSNI types and is reached by reflection after the
 * probe succeeded, so a missing {@code libdisni} is a cached reason, never a {@code LinkageError}.
 */
package dev.ferry.shuffle.transport.rdma.verbs.disni;
