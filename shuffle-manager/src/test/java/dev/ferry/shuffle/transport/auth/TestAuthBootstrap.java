package dev.ferry.shuffle.transport.auth;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.ferry.common.FerryException;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.shuffle.transport.auth.StreamAuthChannel;
import dev.ferry.shuffle.transport.wire.MessageType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bootstrap over real loopback sockets: success, a wrong secret (the server refuses, revealing nothing), a silent peer. */
class TestAuthBootstrap
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static SparkAuthSettings settings(String secret)
    {
        return SparkAuthSettings.from(new MapConfigSource(Map.of("spark.authenticate", "true", "spark.authenticate.secret", secret, "spark.app.id", "app-7")));
    }

    /** Runs the server side on another thread and the client here; returns the server's outcome (null on success). */
    private static Throwable handshake(SparkAuthSettings clientSettings, SparkAuthSettings serverSettings, boolean clientSpeaks, Throwable[] clientOutcome)
            throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket clientSocket = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
                Socket serverSocket = listener.accept()) {
            StreamAuthChannel client = new StreamAuthChannel(clientSocket, clientSocket.getInputStream(), clientSocket.getOutputStream(), MessageType.CLIENT_HANDSHAKE);
            StreamAuthChannel server = new StreamAuthChannel(serverSocket, serverSocket.getInputStream(), serverSocket.getOutputStream(), MessageType.SERVER_HANDSHAKE);
            CompletableFuture<Void> serving = CompletableFuture.runAsync(() -> {
                try {
                    AuthBootstrap.authenticateServer(server, serverSettings, clientSpeaks ? TIMEOUT : Duration.ofMillis(200));
                }
                catch (AuthenticationException e) {
                    throw new RuntimeException(e);
                }
            });
            if (clientSpeaks) {
                try {
                    AuthBootstrap.authenticateClient(client, clientSettings, TIMEOUT);
                }
                catch (AuthenticationException e) {
                    clientOutcome[0] = e;
                }
            }
            try {
                serving.get(30, TimeUnit.SECONDS);
                return null;
            }
            catch (ExecutionException e) {
                return e.getCause().getCause();
            }
        }
    }

    @Test
    void peersWithTheSameSecretAuthenticate()
            throws Exception
    {
        Throwable[] client = new Throwable[1];
        assertEquals(null, handshake(settings("shared"), settings("shared"), true, client));
        assertEquals(null, client[0]);
    }

    @Test
    void aWrongSecretFailsBothSidesWithTheirPeerNamed()
            throws Exception
    {
        Throwable[] client = new Throwable[1];
        Throwable server = handshake(settings("mine"), settings("theirs"), true, client);
        assertInstanceOf(AuthenticationException.class, client[0]);
        String clientMessage = client[0].getMessage();
        assertTrue(clientMessage.startsWith("Authentication of server ") && clientMessage.contains("127.0.0.1:") && clientMessage.contains("application app-7")
                && clientMessage.contains("spark.authenticate.secret"), clientMessage);
        assertInstanceOf(AuthenticationException.class, server);
        assertTrue(server.getMessage().startsWith("Authentication of client ") && server.getMessage().contains("127.0.0.1:")
                && server.getMessage().contains("Client proof does not match"), server.getMessage());
        // The client learns only that it was refused: not the server's application id, not why.
        assertTrue(clientMessage.contains("the peer refused: " + AuthBootstrap.REFUSED), clientMessage);
        assertFalse(clientMessage.contains("does not match"), clientMessage);
    }

    @Test
    void aSilentClientTimesOut()
            throws Exception
    {
        Throwable server = handshake(settings("shared"), settings("shared"), false, new Throwable[1]);
        assertInstanceOf(AuthenticationException.class, server);
        assertTrue(server.getMessage().contains("No message from"), server.getMessage());
    }

    @Test
    void settingsFollowSparkAndNeverPrintTheSecret()
    {
        assertFalse(SparkAuthSettings.from(MapConfigSource.empty()).enabled());
        assertThrows(FerryException.class, () -> SparkAuthSettings.from(new MapConfigSource(Map.of("spark.authenticate", "true", "spark.app.id", "a"))));
        assertFalse(settings("hunter2").toString().contains("hunter2"));
    }
}
