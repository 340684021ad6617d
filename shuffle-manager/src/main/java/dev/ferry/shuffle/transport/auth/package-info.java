/**
 * Authentication with Spark's shared secret when {@code spark.authenticate} is on: pure engines
 * (HMAC-SHA256 over both nonces) and a bootstrap that runs them over an {@link dev.ferry.shuffle.transport.auth.AuthChannel}. The
 * protocol is specified in {@code README.md} beside these classes.
 */
package dev.ferry.shuffle.transport.auth;
