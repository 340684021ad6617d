package dev.ferry.transport.auth;

import dev.ferry.shuffle.transport.tcp.protocol.AuthClientHello;
import dev.ferry.shuffle.transport.tcp.protocol.AuthClientProof;
import dev.ferry.shuffle.transport.tcp.protocol.AuthServerChallenge;
import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pure engines: success, wrong secrets, every single flipped byte, replay and reflection. */
class TestAuthEngine
{
    private static final String APP = "app-20260101-0001";
    private static final String SECRET = "s3cret";

    @Test
    void theSameSecretAuthenticatesBothWays()
            throws GeneralSecurityException
    {
        AuthClientEngine client = new AuthClientEngine(APP, SECRET);
        AuthServerEngine server = new AuthServerEngine(APP, SECRET);
        AuthServerChallenge challenge = server.challenge(client.hello());
        server.verify(client.respond(challenge));
        assertTrue(server.isVerified());
    }

    @Test
    void aWrongSecretIsDetectedByTheClientFirstAndByTheServer()
            throws GeneralSecurityException
    {
        AuthClientEngine client = new AuthClientEngine(APP, "other");
        AuthServerEngine server = new AuthServerEngine(APP, SECRET);
        AuthServerChallenge challenge = server.challenge(client.hello());
        GeneralSecurityException error = assertThrows(GeneralSecurityException.class, () -> client.respond(challenge));
        assertTrue(error.getMessage().contains("Server proof does not match"), error.getMessage());

        // A client that skips its own check still cannot produce the server's expected proof.
        AuthClientEngine impostor = new AuthClientEngine(APP, "other");
        AuthServerEngine honest = new AuthServerEngine(APP, SECRET);
        AuthClientHello hello = impostor.hello();
        AuthServerChallenge real = honest.challenge(hello);
        byte[] forged = forgeClientProof("other", APP, hello.nonce(), real.nonce());
        assertThrows(GeneralSecurityException.class, () -> honest.verify(new AuthClientProof(forged)));
        assertFalse(honest.isVerified());
        assertThrows(IllegalStateException.class, () -> honest.verify(new AuthClientProof(forged)), "one attempt per session");
    }

    @Test
    void everyFlippedByteOfTheServerChallengeIsRejected()
            throws GeneralSecurityException
    {
        AuthServerChallenge template = new AuthServerEngine(APP, SECRET).challenge(new AuthClientEngine(APP, SECRET).hello());
        int fields = template.nonce().length + template.proof().length;
        for (int i = 0; i < fields; i++) {
            AuthClientEngine client = new AuthClientEngine(APP, SECRET);
            AuthServerChallenge challenge = new AuthServerEngine(APP, SECRET).challenge(client.hello());
            byte[] nonce = challenge.nonce();
            byte[] proof = challenge.proof();
            if (i < nonce.length) {
                nonce[i] ^= 0x01;
            }
            else {
                proof[i - nonce.length] ^= (byte) 0x80;
            }
            AuthServerChallenge tampered = new AuthServerChallenge(nonce, proof);
            assertThrows(GeneralSecurityException.class, () -> client.respond(tampered), "flipped byte " + i);
        }
    }

    @Test
    void everyFlippedByteOfTheClientProofOrHelloNonceIsRejected()
            throws GeneralSecurityException
    {
        for (int i = 0; i < AuthProofs.PROOF_BYTES; i++) {
            AuthClientEngine client = new AuthClientEngine(APP, SECRET);
            AuthServerEngine server = new AuthServerEngine(APP, SECRET);
            byte[] proof = client.respond(server.challenge(client.hello())).proof();
            proof[i] ^= 0x01;
            assertThrows(GeneralSecurityException.class, () -> server.verify(new AuthClientProof(proof)), "flipped proof byte " + i);
        }
        for (int i = 0; i < AuthProofs.NONCE_BYTES; i++) {
            AuthClientEngine client = new AuthClientEngine(APP, SECRET);
            AuthClientHello hello = client.hello();
            byte[] nonce = hello.nonce();
            nonce[i] ^= 0x01;
            AuthServerChallenge challenge = new AuthServerEngine(APP, SECRET).challenge(new AuthClientHello(APP, nonce));
            assertThrows(GeneralSecurityException.class, () -> client.respond(challenge), "flipped hello nonce byte " + i);
        }
    }

    @Test
    void proofsCannotBeReplayedReflectedOrMovedToAnotherApplication()
            throws GeneralSecurityException
    {
        AuthClientEngine client = new AuthClientEngine(APP, SECRET);
        AuthServerEngine server = new AuthServerEngine(APP, SECRET);
        AuthClientHello hello = client.hello();
        AuthServerChallenge challenge = server.challenge(hello);
        AuthClientProof recorded = client.respond(challenge);

        AuthServerEngine replayTarget = new AuthServerEngine(APP, SECRET);
        replayTarget.challenge(hello);
        assertThrows(GeneralSecurityException.class, () -> replayTarget.verify(recorded), "a fresh server nonce defeats replay");

        AuthServerEngine reflectionTarget = new AuthServerEngine(APP, SECRET);
        AuthServerChallenge reflected = reflectionTarget.challenge(new AuthClientEngine(APP, SECRET).hello());
        assertThrows(GeneralSecurityException.class, () -> reflectionTarget.verify(new AuthClientProof(reflected.proof())), "the server's proof is not a client proof");

        GeneralSecurityException otherApp = assertThrows(GeneralSecurityException.class,
                () -> new AuthServerEngine("app-other", SECRET).challenge(new AuthClientEngine(APP, SECRET).hello()));
        assertTrue(otherApp.getMessage().contains("app-other"), otherApp.getMessage());
    }

    @Test
    void proofsFollowTheDocumentedConstruction()
            throws GeneralSecurityException
    {
        SecureRandom fixed = new SecureRandom()
        {
            private static final long serialVersionUID = 1L;
            private byte next = 1;

            @Override
            public void nextBytes(byte[] bytes)
            {
                Arrays.fill(bytes, next++);
            }
        };
        AuthClientEngine client = new AuthClientEngine(APP, SECRET, fixed);
        AuthServerEngine server = new AuthServerEngine(APP, SECRET, fixed);
        AuthClientHello hello = client.hello();
        AuthServerChallenge challenge = server.challenge(hello);
        byte[] clientNonce = new byte[32];
        Arrays.fill(clientNonce, (byte) 1);
        byte[] serverNonce = new byte[32];
        Arrays.fill(serverNonce, (byte) 2);
        assertArrayEquals(clientNonce, hello.nonce());
        assertArrayEquals(serverNonce, challenge.nonce());
        assertArrayEquals(proof(SECRET, "server", APP, clientNonce, serverNonce), challenge.proof());
        assertArrayEquals(proof(SECRET, "client", APP, clientNonce, serverNonce), client.respond(challenge).proof());
    }

    private static byte[] forgeClientProof(String secret, String appId, byte[] clientNonce, byte[] serverNonce)
            throws GeneralSecurityException
    {
        return proof(secret, "client", appId, clientNonce, serverNonce);
    }

    /** The README's construction, written out independently of AuthProofs. */
    private static byte[] proof(String secret, String role, String appId, byte[] clientNonce, byte[] serverNonce)
            throws GeneralSecurityException
    {
        byte[] key = hmac(secret.getBytes(StandardCharsets.UTF_8), "ferry-transport-auth-v1".getBytes(StandardCharsets.UTF_8));
        byte[] roleBytes = role.getBytes(StandardCharsets.UTF_8);
        byte[] appBytes = appId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer input = ByteBuffer.allocate(16 + roleBytes.length + appBytes.length + 64);
        input.putInt(roleBytes.length).put(roleBytes).putInt(appBytes.length).put(appBytes)
                .putInt(clientNonce.length).put(clientNonce).putInt(serverNonce.length).put(serverNonce);
        return hmac(key, input.array());
    }

    private static byte[] hmac(byte[] key, byte[] data)
            throws GeneralSecurityException
    {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }
}
