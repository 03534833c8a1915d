package dev.toolbus.bus.tck;

import org.junit.jupiter.api.Assumptions;

/**
 * Where the brokers of the test command are: the variables {@code scripts/lib/services.sh}'s
 * {@code start_services} exports. A broker test that finds its variable missing fails, with a message
 * that says how to start the brokers, so a run that was meant to test a broker never passes without
 * one. {@code -Dtoolbus.brokers=off} opts out: every broker test is skipped instead (docs/buses.md).
 */
public final class Brokers {

    /** The system property that opts out of the broker tests: {@code -Dtoolbus.brokers=off}. */
    public static final String SWITCH = "toolbus.brokers";

    private Brokers() {
    }

    /** {@code TOOLBUS_REDIS_URL}, {@code redis://127.0.0.1:PORT}. */
    public static String redisUrl() {
        return require("TOOLBUS_REDIS_URL");
    }

    /** {@code TOOLBUS_KAFKA_BOOTSTRAP}, {@code 127.0.0.1:PORT}. */
    public static String kafkaBootstrap() {
        return require("TOOLBUS_KAFKA_BOOTSTRAP");
    }

    /**
     * The value of a variable {@code start_services} exports. Skips the calling test when the broker
     * tests are switched off; fails it when the variable is missing.
     */
    public static String require(String variable) {
        if ("off".equalsIgnoreCase(System.getProperty(SWITCH, "on"))) {
            Assumptions.abort("broker tests are off (-D" + SWITCH + "=off)");
        }
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(variable + " is not set, so this broker test cannot run. Start the "
                    + "brokers in the shell that runs Maven: `source scripts/lib/services.sh && start_services` "
                    + "(scripts/test.sh does this), or skip every broker test with -D" + SWITCH + "=off.");
        }
        return value;
    }
}
