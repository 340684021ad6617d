/**
 * Same-node routes: GPU blocks exported as CUDA IPC handles and copied by the reader
 * (NVLINK, PCIE_P2P, HOST_STAGED or to host), and host blocks published as private shared-memory
 * files (HOST_SHM).
 */
package dev.ferry.shuffle.transport.shm;
