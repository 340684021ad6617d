package dev.ferry.transport.auth;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;

/**
 * The HMAC-SHA256 proofs of the authentication protocol (see {@code README.md} beside this class).
 * The key is derived from Spark's shared secret once; each proof covers a role label, the
 * application id and both nonces, so a proof cannot be replayed in another session, reflected
 * back to its sender, or moved to another application.
 */
final class AuthProofs
{
    static final int NONCE_BYTES = 32;
    static final int PROOF_BYTES = 32;
    private static final String ALGORITHM = "HmacSHA256";
    private static final byte[] KEY_LABEL = "ferry-transport-auth-v1".getBytes(StandardCharsets.UTF_8);

    private final byte[] key;

    AuthProofs(String secret)
            throws GeneralSecurityException
    {
        // Derive a purpose-bound key rather than using Spark's secret directly as the MAC key.
        this.key = hmac(secret.getBytes(StandardCharsets.UTF_8), KEY_LABEL);
    }

    byte[] serverProof(String appId, byte[] clientNonce, byte[] serverNonce)
            throws GeneralSecurityException
    {
        return proof("server", appId, clientNonce, serverNonce);
    }

    byte[] clientProof(String appId, byte[] clientNonce, byte[] serverNonce)
            throws GeneralSecurityException
    {
        return proof("client", appId, clientNonce, serverNonce);
    }

    /** Constant-time comparison, so timing tells an attacker nothing about how much of a proof was right. */
    static boolean matches(byte[] expected, byte[] actual)
    {
        return MessageDigest.isEqual(expected, actual);
    }

    private byte[] proof(String role, String appId, byte[] clientNonce, byte[] serverNonce)
            throws GeneralSecurityException
    {
        byte[] roleBytes = role.getBytes(StandardCharsets.UTF_8);
        byte[] appBytes = appId.getBytes(StandardCharsets.UTF_8);
        // Length-prefixed fields: no two different inputs serialise to the same bytes.
        ByteBuffer input = ByteBuffer.allocate(4 * 4 + roleBytes.length + appBytes.length + clientNonce.length + serverNonce.length);
        for (byte[] field : new byte[][] {roleBytes, appBytes, clientNonce, serverNonce}) {
            input.putInt(field.length).put(field);
        }
        return hmac(key, input.array());
    }

    private static byte[] hmac(byte[] key, byte[] data)
            throws GeneralSecurityException
    {
        Mac mac = Mac.getInstance(ALGORITHM);
        mac.init(new SecretKeySpec(key, ALGORITHM));
        return mac.doFinal(data);
    }
}
