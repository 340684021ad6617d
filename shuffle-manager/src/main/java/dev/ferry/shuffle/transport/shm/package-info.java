/**
 * HOST_SHM (and HOST_STAGED): host blocks published as private shared-memory files
 * ({@link dev.ferry.shuffle.transport.shm.ShmBlockWriter}, {@link dev.ferry.shuffle.transport.shm.ShmBlockReader}),
 * served by {@link dev.ferry.shuffle.transport.shm.ShmBlockServer} and fetched by
 * {@link dev.ferry.shuffle.transport.shm.ShmBlockFetcher}; only the location crosses the socket.
 */
package dev.ferry.shuffle.transport.shm;
