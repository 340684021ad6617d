/**
 * A narrow verbs interface for one-sided RDMA READs: open a device ({@link dev.ferry.shuffle.transport.rdma.verbs.VerbsProvider}),
 * register memory in its protection domain (chunked below 2 GiB, with access flags), connect with
 * a deadline, post READs, poll completions ({@link dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection}),
 * and {@link dev.ferry.shuffle.transport.rdma.verbs.RemoteReader} to read published slices in signaled windows.
 * Two implementations: {@code disni} (real NICs, probed and loaded lazily) and {@code simulated}
 * (a loopback-TCP "NIC" that enforces the hardware's rules across processes).
 * {@code rdma.VerbsProviders}, one package up, chooses between them (this SPI names neither).
 */
package dev.ferry.shuffle.transport.rdma.verbs;
