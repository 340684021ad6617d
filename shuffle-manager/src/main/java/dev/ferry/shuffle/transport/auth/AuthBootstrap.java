package dev.ferry.shuffle.transport.auth;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.time.Duration;

import dev.ferry.conf.ConfigSource;
import dev.ferry.shuffle.transport.TransportConfigKeys;
import dev.ferry.shuffle.transport.crypto.SessionKeys;
import dev.ferry.shuffle.transport.wire.AuthClientHello;
import dev.ferry.shuffle.transport.wire.AuthClientProof;
import dev.ferry.shuffle.transport.wire.AuthFailure;
import dev.ferry.shuffle.transport.wire.AuthServerChallenge;
import dev.ferry.shuffle.transport.wire.AuthServerProof;
import dev.ferry.shuffle.transport.wire.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Runs the authentication engines over a {@link AuthChannel}: the client before it hands the
 * channel to anyone, the server before it serves anything on it. The client proves first; a server
 * that rejects a peer answers only {@link #REFUSED} (no proof, no application id, no reason a
 * guesser could use) and fails with an {@link AuthenticationException} whose message has the
 * detail for its own log; the caller then closes the channel. There is no unauthenticated
 * fallback: with {@code spark.authenticate} on, a peer authenticates or is dropped.
 */
public final class AuthBootstrap
{
    /** The only thing a server tells a peer it refused. */
    public static final String REFUSED = "authentication failed";
    private static final Logger log = LoggerFactory.getLogger(AuthBootstrap.class);

    private AuthBootstrap() {}

    /** Client side: hello, prove, check the server's proof; returns the session's keys. */
    public static SessionKeys authenticateClient(AuthChannel channel, SparkAuthSettings settings, Duration timeout)
            throws AuthenticationException
    {
        requireNonNull(channel, "channel is null");
        try {
            AuthClientEngine engine = new AuthClientEngine(settings.appId(), settings.requireSecret());
            channel.send(engine.hello());
            channel.send(engine.prove(expect(channel, AuthServerChallenge.class, timeout)));
            AuthServerProof proof = expect(channel, AuthServerProof.class, timeout);
            try {
                return engine.finish(proof);
            }
            catch (GeneralSecurityException e) {
                tellPeer(channel, REFUSED);
                throw e;
            }
        }
        catch (GeneralSecurityException | IOException e) {
            throw new AuthenticationException("Authentication of server " + channel.peer() + " for application " + settings.appId() + " failed: " + e.getMessage()
                    + (e instanceof GeneralSecurityException ? " (check that both sides use the same spark.authenticate.secret)" : ""), e);
        }
    }

    /** Server side: challenge the hello, verify the client's proof, then prove the server; returns the session's keys. */
    public static SessionKeys authenticateServer(AuthChannel channel, SparkAuthSettings settings, Duration timeout)
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
                tellPeer(channel, REFUSED);
                throw e;
            }
            channel.send(challenge);
            AuthServerProof proof;
            try {
                proof = engine.verify(expect(channel, AuthClientProof.class, timeout));
            }
            catch (GeneralSecurityException e) {
                tellPeer(channel, REFUSED);
                throw e;
            }
            channel.send(proof);
            return engine.sessionKeys();
        }
        catch (GeneralSecurityException | IOException e) {
            throw new AuthenticationException("Authentication of client " + channel.peer() + " failed: " + e.getMessage(), e);
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
}
