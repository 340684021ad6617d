/**
 * Routes by topology: {@link dev.ferry.shuffle.transport.routing.RoutingShuffleTransport} picks a
 * route per peer and fetches through that route's client handler;
 * {@link dev.ferry.shuffle.transport.routing.BlockServers} assembles an executor's block server
 * from the routes its parts allow.
 */
package dev.ferry.shuffle.transport.routing;
