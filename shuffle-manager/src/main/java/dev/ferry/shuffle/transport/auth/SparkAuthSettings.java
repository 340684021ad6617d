package dev.ferry.shuffle.transport.auth;

import java.util.Optional;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;

import static java.util.Objects.requireNonNull;

/**
 * Spark's own authentication settings, which Ferry's transports follow rather than duplicate:
 * {@code spark.authenticate}, {@code spark.authenticate.secret} and {@code spark.app.id} (these are
 * Spark keys, so they are read here by name instead of being defined as Ferry keys).
 */
public record SparkAuthSettings(boolean enabled, String appId, Optional<String> secret)
{
    public static final String AUTHENTICATE = "spark.authenticate";
    public static final String SECRET = "spark.authenticate.secret";
    public static final String APP_ID = "spark.app.id";

    public SparkAuthSettings
    {
        requireNonNull(appId, "appId is null");
        requireNonNull(secret, "secret is null");
        if (enabled && secret.map(String::isEmpty).orElse(true)) {
            throw new FerryException(ErrorCategory.USER_ERROR, AUTHENTICATE + " is true but no " + SECRET + " is set for application " + appId);
        }
    }

    public static SparkAuthSettings from(ConfigSource config)
    {
        boolean enabled = config.get(AUTHENTICATE).map(value -> Boolean.parseBoolean(value.trim())).orElse(false);
        String appId = config.get(APP_ID).orElse("");
        return new SparkAuthSettings(enabled, appId, config.get(SECRET));
    }

    /** The secret; only meaningful when {@link #enabled()}. */
    public String requireSecret()
    {
        return secret.orElseThrow(() -> new FerryException(ErrorCategory.USER_ERROR, "No " + SECRET + " for application " + appId));
    }

    @Override
    public String toString()
    {
        // Never print the secret.
        return "SparkAuthSettings[enabled=" + enabled + ", appId=" + appId + ", secret=" + (secret.isPresent() ? "<set>" : "<unset>") + "]";
    }
}
