package dev.toolbus.config;

/** A config file that cannot be read or is not valid YAML. Bad values never raise it: they fall back. */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, with the file's path
     * @param cause the underlying failure
     */
    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
