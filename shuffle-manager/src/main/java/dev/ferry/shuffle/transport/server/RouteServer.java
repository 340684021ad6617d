package dev.ferry.shuffle.transport.server;

import java.io.IOException;

import dev.ferry.shuffle.transport.wire.FetchRequest;
import dev.ferry.shuffle.transport.wire.FrameWriter;

/**
 * The server side of one route: answers every block of a {@link FetchRequest} on its route, in
 * order, one message per block (its bytes, its location or a {@code FetchFailure}), and hands what
 * the peer may still be reading to {@code held}. Implemented in the route packages; the connection
 * handler picks one by the request's route. An {@link IOException} closes the connection.
 */
@FunctionalInterface
public interface RouteServer
{
    void serve(FetchRequest request, ServedBlocks blocks, FrameWriter writer, HeldBlocks held)
            throws IOException;
}
