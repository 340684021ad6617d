/**
 * The reader's side of the stream: {@link dev.ferry.shuffle.transport.client.TcpConnection} (one
 * authenticated, optionally encrypted connection; a route's request and its in-order answers) and
 * {@link dev.ferry.shuffle.transport.client.TcpShuffleTransport} (connections pooled per peer,
 * bounded, retried). Knows no route but the inline one every route falls back to for empty blocks.
 */
package dev.ferry.shuffle.transport.client;
