package dev.ferry.transport.auth;

import dev.ferry.shuffle.transport.tcp.protocol.AuthClientHello;
import dev.ferry.shuffle.transport.tcp.protocol.AuthClientProof;
import dev.ferry.shuffle.transport.tcp.protocol.AuthServerChallenge;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;

import static java.util.Objects.requireNonNull;

/**
 * The server half of the authentication handshake: pure computation, no I/O, one use.
 * {@link #challenge} a client's hello (proving the secret to the client), then {@link #verify}
 * the client's proof. Nothing is served before {@code verify} returns.
 */
public final class AuthServerEngine
{
    private final String appId;
    private final AuthProofs proofs;
    private final byte[] serverNonce;
    private byte[] clientNonce;
    private boolean proofChecked;
    private boolean verified;

    public AuthServerEngine(String appId, String secret)
            throws GeneralSecurityException
    {
        this(appId, secret, new SecureRandom());
    }

    AuthServerEngine(String appId, String secret, SecureRandom random)
            throws GeneralSecurityException
    {
        this.appId = requireNonNull(appId, "appId is null");
        this.proofs = new AuthProofs(requireNonNull(secret, "secret is null"));
        this.serverNonce = new byte[AuthProofs.NONCE_BYTES];
        random.nextBytes(serverNonce);
    }

    /**
     * @throws GeneralSecurityException when the hello is for another application or malformed
     */
    public AuthServerChallenge challenge(AuthClientHello hello)
            throws GeneralSecurityException
    {
        requireNonNull(hello, "hello is null");
        if (clientNonce != null) {
            throw new IllegalStateException("challenge() already called: an engine authenticates one session");
        }
        if (!hello.appId().equals(appId)) {
            throw new GeneralSecurityException("Client asked for application '" + hello.appId() + "', this server serves '" + appId + "'");
        }
        byte[] nonce = hello.nonce();
        if (nonce.length != AuthProofs.NONCE_BYTES) {
            throw new GeneralSecurityException("Client nonce has " + nonce.length + " bytes, expected " + AuthProofs.NONCE_BYTES);
        }
        clientNonce = nonce;
        return new AuthServerChallenge(serverNonce, proofs.serverProof(appId, clientNonce, serverNonce));
    }

    /**
     * @throws GeneralSecurityException when the client's proof is wrong (a different secret, or tampering)
     */
    public void verify(AuthClientProof proof)
            throws GeneralSecurityException
    {
        requireNonNull(proof, "proof is null");
        if (clientNonce == null || proofChecked) {
            throw new IllegalStateException("verify() needs one challenge() first and runs once");
        }
        // One attempt per session: a failed proof cannot be retried against the same nonces.
        proofChecked = true;
        byte[] expected = proofs.clientProof(appId, clientNonce, serverNonce);
        if (!AuthProofs.matches(expected, proof.proof())) {
            throw new GeneralSecurityException("Client proof does not match: the peer does not hold this application's secret, or the handshake was altered");
        }
        verified = true;
    }

    public boolean isVerified()
    {
        return verified;
    }
}
