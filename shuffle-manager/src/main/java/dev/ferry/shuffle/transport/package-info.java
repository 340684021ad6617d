/**
 * Transport building blocks for Ferry's topology-aware shuffle routes, independent of the shuffle
 * itself: {@code verbs} (RDMA through DiSNI or a simulated NIC), {@code protocol} (the one-sided
 * READ control messages), {@code auth} (Spark shared-secret authentication), {@code local}
 * (same-node GPU blocks over CUDA IPC and host blocks over shared memory) and {@code metrics}
 * (per-route counters and the per-peer route log). Settings: {@link dev.ferry.shuffle.transport.TransportConfigKeys}.
 */
package dev.ferry.shuffle.transport;
