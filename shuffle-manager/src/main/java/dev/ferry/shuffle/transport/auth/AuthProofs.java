package dev.ferry.shuffle.transport.auth;

import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;

import dev.ferry.shuffle.transport.crypto.DirectionKey;
import dev.ferry.shuffle.transport.crypto.SessionKeys;
import dev.ferry.shuffle.transport.wire.MessageType;

/**
 * The cryptography of the handshake (see {@code README.md} beside this class): HMAC-SHA256 proofs
 * under a key derived once from Spark's shared secret, each over a role label, the application id
 * (never sent: both sides put their own in) and the handshake so far, so a proof cannot be replayed
 * in another session, reflected to its sender, or moved to another application; X25519 ephemeral
 * keys whose shared secret, with the proof key, yields the session's per-direction AES-GCM keys.
 */
final class AuthProofs
{
    static final int NONCE_BYTES = 32;
    static final int PROOF_BYTES = 32;
    private static final String MAC = "HmacSHA256";
    private static final String CURVE = "X25519";
    // The wire version is in the key: peers of another layout fail the handshake instead of misreading frames.
    private static final byte[] KEY_LABEL = ("ferry-transport-auth-v" + MessageType.WIRE_VERSION).getBytes(StandardCharsets.UTF_8);

    private final byte[] key;

    AuthProofs(String secret)
            throws GeneralSecurityException
    {
        // A purpose-bound key rather than Spark's secret itself as the MAC key.
        this.key = hmac(secret.getBytes(StandardCharsets.UTF_8), KEY_LABEL);
    }

    /** The client's proof: it holds the secret, for this application, in this session (server nonce), with this key. */
    byte[] clientProof(String appId, byte[] clientNonce, byte[] clientKey, byte[] serverNonce)
            throws GeneralSecurityException
    {
        return hmac(key, fields("client", appId, clientNonce, clientKey, serverNonce));
    }

    /** The server's proof, over the whole handshake: it also binds the server's key, so no one in the middle can swap it. */
    byte[] serverProof(String appId, byte[] clientNonce, byte[] clientKey, byte[] serverNonce, byte[] serverKey)
            throws GeneralSecurityException
    {
        return hmac(key, fields("server", appId, clientNonce, clientKey, serverNonce, serverKey));
    }

    /** Per-direction AES-GCM keys from the X25519 shared secret and the whole handshake; {@code client}: whose side is asking. */
    SessionKeys sessionKeys(boolean client, PrivateKey own, byte[] peerKey, String appId, byte[] clientNonce, byte[] clientKey, byte[] serverNonce, byte[] serverKey)
            throws GeneralSecurityException
    {
        KeyAgreement agreement = KeyAgreement.getInstance(CURVE);
        agreement.init(own);
        agreement.doPhase(decodePublicKey(peerKey), true);
        byte[] shared = agreement.generateSecret();
        byte[] session = hmac(key, fields("session", appId, shared, clientNonce, clientKey, serverNonce, serverKey));
        Arrays.fill(shared, (byte) 0);
        DirectionKey toServer = direction(session, "client->server");
        DirectionKey toClient = direction(session, "server->client");
        return client ? new SessionKeys(toServer, toClient) : new SessionKeys(toClient, toServer);
    }

    static KeyPair newKeyPair()
            throws GeneralSecurityException
    {
        return KeyPairGenerator.getInstance(CURVE).generateKeyPair();
    }

    /** A peer's public key as it came off the wire; anything but an X25519 key is refused. */
    static PublicKey decodePublicKey(byte[] encoded)
            throws GeneralSecurityException
    {
        return KeyFactory.getInstance(CURVE).generatePublic(new X509EncodedKeySpec(encoded));
    }

    /** Constant-time comparison, so timing tells an attacker nothing about how much of a proof was right. */
    static boolean matches(byte[] expected, byte[] actual)
    {
        return MessageDigest.isEqual(expected, actual);
    }

    private static DirectionKey direction(byte[] session, String label)
            throws GeneralSecurityException
    {
        byte[] derived = hmac(session, label.getBytes(StandardCharsets.UTF_8));
        return new DirectionKey(Arrays.copyOfRange(derived, 0, DirectionKey.KEY_BYTES),
                Arrays.copyOfRange(derived, DirectionKey.KEY_BYTES, DirectionKey.KEY_BYTES + DirectionKey.SALT_BYTES));
    }

    /** Length-prefixed fields: no two different inputs serialise to the same bytes. */
    private static byte[] fields(String role, String appId, byte[]... rest)
    {
        byte[][] all = new byte[rest.length + 2][];
        all[0] = role.getBytes(StandardCharsets.UTF_8);
        all[1] = appId.getBytes(StandardCharsets.UTF_8);
        int total = 0;
        for (int i = 0; i < rest.length; i++) {
            all[i + 2] = rest[i];
        }
        for (byte[] field : all) {
            total += 4 + field.length;
        }
        ByteBuffer input = ByteBuffer.allocate(total);
        for (byte[] field : all) {
            input.putInt(field.length).put(field);
        }
        return input.array();
    }

    private static byte[] hmac(byte[] key, byte[] data)
            throws GeneralSecurityException
    {
        Mac mac = Mac.getInstance(MAC);
        mac.init(new SecretKeySpec(key, MAC));
        return mac.doFinal(data);
    }
}
