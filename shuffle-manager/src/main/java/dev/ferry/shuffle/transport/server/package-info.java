/**
 * The block server: {@link dev.ferry.shuffle.transport.server.TcpBlockServer} accepts (bounded),
 * a connection handler authenticates and answers each request in one switch, a fetch going to its
 * route's {@link dev.ferry.shuffle.transport.server.RouteServer}; what a request holds for its peer
 * is owned by one {@link dev.ferry.shuffle.transport.server.HeldBlocks}. Knows no route.
 */
package dev.ferry.shuffle.transport.server;
