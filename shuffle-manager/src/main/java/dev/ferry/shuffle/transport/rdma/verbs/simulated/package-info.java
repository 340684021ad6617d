/**
 * The simulated verbs layer. Each device is a loopback TCP listener standing for its NIC; a
 * connection is a queue pair. READs cross the socket, so they work between JVMs exactly like
 * between two executors, and the serving side answers them from its region table alone (no
 * application handler), enforcing keys, bounds and access flags as an HCA does. TCP rather than
 * shared memory was chosen so the same layer simulates cross-node reads (it has no notion of a
 * shared host) and a dead peer shows up as a broken connection, as on a real fabric.
 */
package dev.ferry.shuffle.transport.rdma.verbs.simulated;
