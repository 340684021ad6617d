/**
 * Encryption of Ferry's byte streams with {@code spark.network.crypto.enabled}: AES-GCM records
 * under per-direction keys that the authentication handshake derives ({@link dev.ferry.shuffle.transport.crypto.SessionKeys}).
 */
package dev.ferry.shuffle.transport.crypto;
