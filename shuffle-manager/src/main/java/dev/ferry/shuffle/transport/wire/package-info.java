/**
 * The wire protocol: frames ({@link dev.ferry.shuffle.transport.wire.FrameReader},
 * {@link dev.ferry.shuffle.transport.wire.FrameWriter}), one class per message, ids and per-type
 * frame limits in {@link dev.ferry.shuffle.transport.wire.MessageType}. The bottom of the transport:
 * it imports only the SPI's block reference.
 */
package dev.ferry.shuffle.transport.wire;
