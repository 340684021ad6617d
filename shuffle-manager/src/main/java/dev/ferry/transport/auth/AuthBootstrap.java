package dev.ferry.transport.auth;

import dev.ferry.conf.ConfigSource;
import dev.ferry.transport.TransportConfigKeys;
import dev.ferry.shuffle.transport.tcp.protocol.AuthClientHello;
import dev.ferry.shuffle.transport.tcp.protocol.AuthClientProof;
import dev.ferry.shuffle.transport.tcp.protocol.AuthFailure;
import dev.ferry.shuffle.transport.tcp.protocol.AuthServerChallenge;
import dev.ferry.shuffle.transport.tcp.protocol.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Runs the authentication engines over a {@link AuthChannel}: the client before it hands the
 * channel to anyone, the server before it serves anything on it. The side that detects a bad
 * proof tells the other with an {@link AuthFailure} and fails with an
 * {@link AuthenticationException} naming the peer; the caller then closes the channel. There is
 * no unauthenticated fallback: with {@code spark.authenticate} on, a peer authenticates or is dropped.
 */
public final class AuthBootstrap
{
    private static final Logger log = LoggerFactory.getLogger(AuthBootstrap.class);
    private static final AtomicLong FAILURES = new AtomicLong();

    private AuthBootstrap() {}

    /** Client side: hello, check the server's proof, send ours. */
    public static void authenticateClient(AuthChannel channel, SparkAuthSettings settings, Duration timeout)
            throws AuthenticationException
    {
        requireNonNull(channel, "channel is null");
        try {
            AuthClientEngine engine = new AuthClientEngine(settings.appId(), settings.requireSecret());
            channel.send(engine.hello());
            AuthServerChallenge challenge = expect(channel, AuthServerChallenge.class, timeout);
            AuthClientProof proof;
            try {
                proof = engine.respond(challenge);
            }
            catch (GeneralSecurityException e) {
                tellPeer(channel, "authentication failed: server proof rejected by the client");
                throw e;
            }
            channel.send(proof);
        }
        catch (GeneralSecurityException | IOException e) {
            throw failure("Authentication of server " + channel.peer() + " for application " + settings.appId() + " failed: ", e);
        }
    }

    /** Server side: answer the hello with a challenge, then verify the client's proof. */
    public static void authenticateServer(AuthChannel channel, SparkAuthSettings settings, Duration timeout)
            throws AuthenticationException
    {
        requireNonNull(channel, "channel is null");
        try {
            AuthServerEngine engine = new AuthServerEngine(settings.appId(), settings.requireSecret());
            AuthClientHello hello = expect(channel, AuthClientHello.class, timeout);
            AuthServerChallenge challenge;
            try {
                challenge = engine.challenge(hello);
            }
            catch (GeneralSecurityException e) {
                tellPeer(channel, "authentication failed: " + e.getMessage());
                throw e;
            }
            channel.send(challenge);
            AuthClientProof proof = expect(channel, AuthClientProof.class, timeout);
            try {
                engine.verify(proof);
            }
            catch (GeneralSecurityException e) {
                tellPeer(channel, "authentication failed: client proof rejected by the server");
                throw e;
            }
        }
        catch (GeneralSecurityException | IOException e) {
            throw failure("Authentication of client " + channel.peer() + " for application " + settings.appId() + " failed: ", e);
        }
    }

    /** How long each authentication step may wait: {@code spark.ferry.transport.auth.timeoutMillis}. */
    public static Duration timeout(ConfigSource config)
    {
        int millis = TransportConfigKeys.AUTH_TIMEOUT_MILLIS.get(config);
        if (millis <= 0) {
            throw new IllegalArgumentException(TransportConfigKeys.AUTH_TIMEOUT_MILLIS.name() + " must be positive, got " + millis);
        }
        return Duration.ofMillis(millis);
    }

    /** Authentication failures in this JVM (each is also logged). */
    public static long failures()
    {
        return FAILURES.get();
    }

    private static <T extends Message> T expect(AuthChannel channel, Class<T> type, Duration timeout)
            throws IOException, GeneralSecurityException
    {
        Message message = channel.receive(timeout);
        if (message instanceof AuthFailure failure) {
            throw new GeneralSecurityException("the peer refused: " + failure.reason());
        }
        if (!type.isInstance(message)) {
            throw new GeneralSecurityException("expected " + type.getSimpleName() + ", got " + message.type());
        }
        return type.cast(message);
    }

    private static void tellPeer(AuthChannel channel, String why)
    {
        try {
            channel.send(new AuthFailure(why));
        }
        catch (IOException e) {
            log.debug("Could not tell {} that authentication failed: {}", channel.peer(), e.toString());
        }
    }

    private static AuthenticationException failure(String prefix, Exception cause)
    {
        FAILURES.incrementAndGet();
        String message = prefix + cause.getMessage()
                + (cause instanceof GeneralSecurityException ? " (check that both sides use the same spark.authenticate.secret)" : "");
        log.warn(message);
        return new AuthenticationException(message, cause);
    }
}
