package dev.ferry.shuffle.transport.auth;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;

import dev.ferry.shuffle.transport.crypto.SessionKeys;
import dev.ferry.shuffle.transport.wire.AuthClientHello;
import dev.ferry.shuffle.transport.wire.AuthClientProof;
import dev.ferry.shuffle.transport.wire.AuthServerChallenge;
import dev.ferry.shuffle.transport.wire.AuthServerProof;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pure engines: success and keys, wrong secrets, every flipped byte, replay, reflection, and no oracle before the client proved. */
class TestAuthEngine
{
    private static final String APP = "app-20260101-0001";
    private static final String SECRET = "s3cret";

    @Test
    void theSameSecretAuthenticatesBothWaysAndAgreesOnKeys()
            throws GeneralSecurityException
    {
        AuthClientEngine client = new AuthClientEngine(APP, SECRET);
        AuthServerEngine server = new AuthServerEngine(APP, SECRET);
        AuthServerChallenge challenge = server.challenge(client.hello());
        AuthServerProof proof = server.verify(client.prove(challenge));
        SessionKeys clientKeys = client.finish(proof);
        assertTrue(server.isVerified());
        SessionKeys serverKeys = server.sessionKeys();
        assertEquals(clientKeys.send(), serverKeys.receive());
        assertEquals(clientKeys.receive(), serverKeys.send());
        assertNotEquals(clientKeys.send(), clientKeys.receive(), "each direction has its own key");
    }

    @Test
    void anUnauthenticatedPeerLearnsNothingDerivedFromTheSecret()
            throws GeneralSecurityException
    {
        // What a server sends before the client proved is its nonce alone: equal for any secret and application given the same randomness.
        AuthServerChallenge one = new AuthServerEngine(APP, SECRET, fixed()).challenge(new AuthClientEngine(APP, SECRET).hello());
        AuthServerChallenge other = new AuthServerEngine("another-app", "another-secret", fixed()).challenge(new AuthClientEngine(APP, SECRET).hello());
        assertEquals(one, other);
        assertEquals(AuthProofs.NONCE_BYTES + 4, one.encodedLength(), "the challenge carries nothing but the nonce");
    }

    @Test
    void aWrongSecretIsRefusedByTheServerBeforeItProvesAnything()
            throws GeneralSecurityException
    {
        AuthClientEngine client = new AuthClientEngine(APP, "other");
        AuthServerEngine server = new AuthServerEngine(APP, SECRET);
        AuthClientProof proof = client.prove(server.challenge(client.hello()));
        GeneralSecurityException error = assertThrows(GeneralSecurityException.class, () -> server.verify(proof));
        assertTrue(error.getMessage().contains("Client proof does not match"), error.getMessage());
        assertFalse(server.isVerified());
        assertThrows(IllegalStateException.class, () -> server.verify(proof), "one attempt per session");
        assertThrows(IllegalStateException.class, server::sessionKeys);
    }

    @Test
    void anotherApplicationsProofIsRefused()
            throws GeneralSecurityException
    {
        AuthClientEngine client = new AuthClientEngine("app-other", SECRET);
        AuthServerEngine server = new AuthServerEngine(APP, SECRET);
        AuthClientProof proof = client.prove(server.challenge(client.hello()));
        GeneralSecurityException error = assertThrows(GeneralSecurityException.class, () -> server.verify(proof));
        assertFalse(error.getMessage().contains("app-other"), "the refusal does not echo application ids: " + error.getMessage());
    }

    @Test
    void aServerWithoutTheSecretIsRefusedByTheClient()
            throws GeneralSecurityException
    {
        AuthClientEngine client = new AuthClientEngine(APP, SECRET);
        AuthServerEngine impostor = new AuthServerEngine(APP, "guess");
        AuthClientHello hello = client.hello();
        AuthServerChallenge challenge = impostor.challenge(hello);
        AuthClientProof proof = client.prove(challenge);
        // The impostor cannot verify the proof, so it forges an answer with its own key.
        AuthServerProof forged = new AuthServerProof(hello.publicKey(), new byte[AuthProofs.PROOF_BYTES]);
        GeneralSecurityException error = assertThrows(GeneralSecurityException.class, () -> client.finish(forged));
        assertTrue(error.getMessage().contains("Server proof does not match"), error.getMessage());
        assertThrows(GeneralSecurityException.class, () -> impostor.verify(proof));
    }

    @Test
    void everyFlippedByteOfTheHandshakeIsRejected()
            throws GeneralSecurityException
    {
        for (int i = 0; i < AuthProofs.PROOF_BYTES; i++) {
            AuthClientEngine client = new AuthClientEngine(APP, SECRET);
            AuthServerEngine server = new AuthServerEngine(APP, SECRET);
            byte[] proof = client.prove(server.challenge(client.hello())).proof();
            proof[i] ^= 0x01;
            assertThrows(GeneralSecurityException.class, () -> server.verify(new AuthClientProof(proof)), "flipped client proof byte " + i);
        }
        for (int i = 0; i < AuthProofs.NONCE_BYTES; i++) {
            AuthClientEngine client = new AuthClientEngine(APP, SECRET);
            AuthServerEngine server = new AuthServerEngine(APP, SECRET);
            server.challenge(client.hello());
            byte[] nonce = new AuthServerEngine(APP, SECRET, fixed()).challenge(new AuthClientEngine(APP, SECRET).hello()).nonce();
            nonce[i] ^= 0x01;
            // A proof over a nonce the server did not send is refused.
            AuthClientProof proof = client.prove(new AuthServerChallenge(nonce));
            assertThrows(GeneralSecurityException.class, () -> server.verify(proof), "flipped server nonce byte " + i);
        }
        AuthClientEngine client = new AuthClientEngine(APP, SECRET);
        AuthServerEngine server = new AuthServerEngine(APP, SECRET);
        AuthServerProof proof = server.verify(client.prove(server.challenge(client.hello())));
        for (int i = 0; i < proof.proof().length + proof.publicKey().length; i += 3) {
            AuthClientEngine fresh = new AuthClientEngine(APP, SECRET);
            AuthServerEngine honest = new AuthServerEngine(APP, SECRET);
            AuthServerProof answer = honest.verify(fresh.prove(honest.challenge(fresh.hello())));
            byte[] key = answer.publicKey();
            byte[] mac = answer.proof();
            if (i < mac.length) {
                mac[i] ^= 0x01;
            }
            else {
                key[i - mac.length] ^= 0x01;
            }
            AuthServerProof tampered = new AuthServerProof(key, mac);
            assertThrows(GeneralSecurityException.class, () -> fresh.finish(tampered), "flipped server proof byte " + i);
        }
    }

    @Test
    void proofsCannotBeReplayedOrReflected()
            throws GeneralSecurityException
    {
        AuthClientEngine client = new AuthClientEngine(APP, SECRET);
        AuthServerEngine server = new AuthServerEngine(APP, SECRET);
        AuthClientHello hello = client.hello();
        AuthClientProof recorded = client.prove(server.challenge(hello));
        AuthServerProof serverProof = server.verify(recorded);

        AuthServerEngine replayTarget = new AuthServerEngine(APP, SECRET);
        replayTarget.challenge(hello);
        assertThrows(GeneralSecurityException.class, () -> replayTarget.verify(recorded), "a fresh server nonce defeats replay");

        AuthServerEngine reflectionTarget = new AuthServerEngine(APP, SECRET);
        reflectionTarget.challenge(hello);
        assertThrows(GeneralSecurityException.class, () -> reflectionTarget.verify(new AuthClientProof(serverProof.proof())), "the server's proof is not a client proof");
    }

    @Test
    void proofsFollowTheDocumentedConstruction()
            throws GeneralSecurityException
    {
        AuthClientEngine client = new AuthClientEngine(APP, SECRET, fixed());
        AuthServerEngine server = new AuthServerEngine(APP, SECRET, fixed());
        AuthClientHello hello = client.hello();
        AuthServerChallenge challenge = server.challenge(hello);
        byte[] nonce = new byte[32];
        Arrays.fill(nonce, (byte) 1);
        assertArrayEquals(nonce, hello.nonce());
        assertArrayEquals(nonce, challenge.nonce());
        assertArrayEquals(proof(SECRET, "client", APP, hello.nonce(), hello.publicKey(), challenge.nonce()), client.prove(challenge).proof());
    }

    private static SecureRandom fixed()
    {
        return new SecureRandom()
        {
            private static final long serialVersionUID = 1L;

            @Override
            public void nextBytes(byte[] bytes)
            {
                Arrays.fill(bytes, (byte) 1);
            }
        };
    }

    /** The README's construction, written out independently of AuthProofs. */
    private static byte[] proof(String secret, String role, String appId, byte[]... fields)
            throws GeneralSecurityException
    {
        byte[] key = hmac(secret.getBytes(StandardCharsets.UTF_8), "ferry-transport-auth-v3".getBytes(StandardCharsets.UTF_8));
        byte[] roleBytes = role.getBytes(StandardCharsets.UTF_8);
        byte[] appBytes = appId.getBytes(StandardCharsets.UTF_8);
        int length = 8 + roleBytes.length + appBytes.length;
        for (byte[] field : fields) {
            length += 4 + field.length;
        }
        ByteBuffer input = ByteBuffer.allocate(length);
        input.putInt(roleBytes.length).put(roleBytes).putInt(appBytes.length).put(appBytes);
        for (byte[] field : fields) {
            input.putInt(field.length).put(field);
        }
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
