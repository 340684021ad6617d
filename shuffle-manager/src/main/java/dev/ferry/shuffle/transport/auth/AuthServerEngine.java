package dev.ferry.shuffle.transport.auth;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.SecureRandom;

import dev.ferry.shuffle.transport.crypto.SessionKeys;
import dev.ferry.shuffle.transport.wire.AuthClientHello;
import dev.ferry.shuffle.transport.wire.AuthClientProof;
import dev.ferry.shuffle.transport.wire.AuthServerChallenge;
import dev.ferry.shuffle.transport.wire.AuthServerProof;

import static java.util.Objects.requireNonNull;

/**
 * The server half of the handshake: pure computation, no I/O, one use. {@link #challenge} a
 * client's hello with a fresh nonce (revealing nothing), {@link #verify} the client's proof, and
 * only then answer with the server's own proof and key. Nothing is served before {@code verify}
 * returns, and an unauthenticated peer never sees a value derived from the secret.
 */
public final class AuthServerEngine
{
    private final String appId;
    private final AuthProofs proofs;
    private final byte[] serverNonce;
    private byte[] clientNonce;
    private byte[] clientKey;
    private SessionKeys sessionKeys;
    private boolean proofChecked;

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
     * @throws GeneralSecurityException when the hello is malformed (a nonce of the wrong size, not an X25519 key)
     */
    public AuthServerChallenge challenge(AuthClientHello hello)
            throws GeneralSecurityException
    {
        requireNonNull(hello, "hello is null");
        if (clientNonce != null) {
            throw new IllegalStateException("challenge() already called: an engine authenticates one session");
        }
        byte[] nonce = hello.nonce();
        if (nonce.length != AuthProofs.NONCE_BYTES) {
            throw new GeneralSecurityException("Client nonce has " + nonce.length + " bytes, expected " + AuthProofs.NONCE_BYTES);
        }
        AuthProofs.decodePublicKey(hello.publicKey());
        clientNonce = nonce;
        clientKey = hello.publicKey();
        return new AuthServerChallenge(serverNonce);
    }

    /**
     * Checks the client's proof; on success returns the server's proof for the client to check.
     *
     * @throws GeneralSecurityException when the client's proof is wrong (a different secret, another application, or tampering)
     */
    public AuthServerProof verify(AuthClientProof proof)
            throws GeneralSecurityException
    {
        requireNonNull(proof, "proof is null");
        if (clientNonce == null || proofChecked) {
            throw new IllegalStateException("verify() needs one challenge() first and runs once");
        }
        // One attempt per session: a failed proof cannot be retried against the same nonces.
        proofChecked = true;
        byte[] expected = proofs.clientProof(appId, clientNonce, clientKey, serverNonce);
        if (!AuthProofs.matches(expected, proof.proof())) {
            throw new GeneralSecurityException("Client proof does not match: the peer does not hold this application's secret, or the handshake was altered");
        }
        KeyPair keys = AuthProofs.newKeyPair();
        byte[] serverKey = keys.getPublic().getEncoded();
        sessionKeys = proofs.sessionKeys(false, keys.getPrivate(), clientKey, appId, clientNonce, clientKey, serverNonce, serverKey);
        return new AuthServerProof(serverKey, proofs.serverProof(appId, clientNonce, clientKey, serverNonce, serverKey));
    }

    public boolean isVerified()
    {
        return sessionKeys != null;
    }

    /** The session's keys, once {@link #verify} succeeded. */
    public SessionKeys sessionKeys()
    {
        if (sessionKeys == null) {
            throw new IllegalStateException("The client has not been verified");
        }
        return sessionKeys;
    }
}
