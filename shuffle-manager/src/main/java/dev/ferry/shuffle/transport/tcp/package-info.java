/** The TCP route (TCP, IPOIB_TCP): blocks streamed in their frames by {@link dev.ferry.shuffle.transport.tcp.InlineBlockServer}. */
package dev.ferry.shuffle.transport.tcp;
