package dev.toolbus.policy;

import java.util.Locale;

/**
 * The permission ladder {@code member < admin < owner < master}.
 *
 * <p>A caller's level that is missing or unknown reads as {@link #MEMBER}; a <em>required</em> level
 * that is unknown matches nobody ({@link #parseRequired} returns {@code null} and the policy denies).
 */
public enum PermissionLevel {
    MEMBER,
    ADMIN,
    OWNER,
    MASTER;

    /** The lower-case name used in configs and contexts. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether this level is at least {@code required}. */
    public boolean atLeast(PermissionLevel required) {
        return compareTo(required) >= 0;
    }

    /** The caller's level: case-insensitive name; empty, {@code null} or unknown → {@link #MEMBER}. */
    public static PermissionLevel parseUser(String value) {
        PermissionLevel l = parseRequired(value);
        return l == null ? MEMBER : l;
    }

    /** A required level: case-insensitive name, or {@code null} when unknown (nobody qualifies). */
    public static PermissionLevel parseRequired(String value) {
        if (value == null) {
            return null;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "member" -> MEMBER;
            case "admin" -> ADMIN;
            case "owner" -> OWNER;
            case "master" -> MASTER;
            default -> null;
        };
    }
}
