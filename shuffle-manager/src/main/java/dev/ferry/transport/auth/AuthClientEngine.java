package dev.ferry.transport.auth;

import dev.ferry.shuffle.transport.tcp.protocol.AuthClientHello;
import dev.ferry.shuffle.transport.tcp.protocol.AuthClientProof;
import dev.ferry.shuffle.transport.tcp.protocol.AuthServerChallenge;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;

import static java.util.Objects.requireNonNull;

/**
 * The client half of the authentication handshake: pure computation, no I/O, one use.
 * {@link #hello()}, then {@link #respond} to the server's challenge, which first checks that the
 * server knows the secret (mutual authentication).
 */
public final class AuthClientEngine
{
    private final String appId;
    private final AuthProofs proofs;
    private final byte[] clientNonce;
    private boolean helloSent;
    private boolean responded;

    public AuthClientEngine(String appId, String secret)
            throws GeneralSecurityException
    {
        this(appId, secret, new SecureRandom());
    }

    AuthClientEngine(String appId, String secret, SecureRandom random)
            throws GeneralSecurityException
    {
        this.appId = requireNonNull(appId, "appId is null");
        this.proofs = new AuthProofs(requireNonNull(secret, "secret is null"));
        this.clientNonce = new byte[AuthProofs.NONCE_BYTES];
        random.nextBytes(clientNonce);
    }

    public AuthClientHello hello()
    {
        if (helloSent) {
            throw new IllegalStateException("hello() already called: an engine authenticates one session");
        }
        helloSent = true;
        return new AuthClientHello(appId, clientNonce);
    }

    /**
     * Checks the server's proof and answers with the client's.
     *
     * @throws GeneralSecurityException when the server's proof is wrong (a different secret, or tampering)
     */
    public AuthClientProof respond(AuthServerChallenge challenge)
            throws GeneralSecurityException
    {
        requireNonNull(challenge, "challenge is null");
        if (!helloSent || responded) {
            throw new IllegalStateException("respond() needs one hello() first and runs once");
        }
        responded = true;
        byte[] serverNonce = challenge.nonce();
        if (serverNonce.length != AuthProofs.NONCE_BYTES) {
            throw new GeneralSecurityException("Server nonce has " + serverNonce.length + " bytes, expected " + AuthProofs.NONCE_BYTES);
        }
        byte[] expected = proofs.serverProof(appId, clientNonce, serverNonce);
        if (!AuthProofs.matches(expected, challenge.proof())) {
            throw new GeneralSecurityException("Server proof does not match: the peer does not hold this application's secret, or the handshake was altered");
        }
        return new AuthClientProof(proofs.clientProof(appId, clientNonce, serverNonce));
    }
}
