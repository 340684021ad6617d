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
 * The client half of the handshake: pure computation, no I/O, one use. {@link #hello()}, then
 * {@link #prove} in answer to the server's challenge (the client proves first), then
 * {@link #finish} with the server's proof, which yields the session keys only if the server holds
 * the secret too (mutual authentication).
 */
public final class AuthClientEngine
{
    private final String appId;
    private final AuthProofs proofs;
    private final byte[] clientNonce;
    private final KeyPair keys;
    private final byte[] publicKey;
    private byte[] serverNonce;
    private boolean helloSent;
    private boolean finished;

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
        this.keys = AuthProofs.newKeyPair();
        this.publicKey = keys.getPublic().getEncoded();
    }

    public AuthClientHello hello()
    {
        if (helloSent) {
            throw new IllegalStateException("hello() already called: an engine authenticates one session");
        }
        helloSent = true;
        return new AuthClientHello(clientNonce, publicKey);
    }

    /** The client's proof over the server's fresh nonce. */
    public AuthClientProof prove(AuthServerChallenge challenge)
            throws GeneralSecurityException
    {
        requireNonNull(challenge, "challenge is null");
        if (!helloSent || serverNonce != null) {
            throw new IllegalStateException("prove() needs one hello() first and runs once");
        }
        byte[] nonce = challenge.nonce();
        if (nonce.length != AuthProofs.NONCE_BYTES) {
            throw new GeneralSecurityException("Server nonce has " + nonce.length + " bytes, expected " + AuthProofs.NONCE_BYTES);
        }
        serverNonce = nonce;
        return new AuthClientProof(proofs.clientProof(appId, clientNonce, publicKey, serverNonce));
    }

    /**
     * Checks the server's proof and derives the session keys.
     *
     * @throws GeneralSecurityException when the server's proof is wrong (a different secret, or tampering)
     */
    public SessionKeys finish(AuthServerProof proof)
            throws GeneralSecurityException
    {
        requireNonNull(proof, "proof is null");
        if (serverNonce == null || finished) {
            throw new IllegalStateException("finish() needs one prove() first and runs once");
        }
        finished = true;
        byte[] serverKey = proof.publicKey();
        byte[] expected = proofs.serverProof(appId, clientNonce, publicKey, serverNonce, serverKey);
        if (!AuthProofs.matches(expected, proof.proof())) {
            throw new GeneralSecurityException("Server proof does not match: the peer does not hold this application's secret, or the handshake was altered");
        }
        return proofs.sessionKeys(true, keys.getPrivate(), serverKey, appId, clientNonce, publicKey, serverNonce, serverKey);
    }
}
