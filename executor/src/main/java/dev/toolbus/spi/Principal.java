package dev.toolbus.spi;

import java.util.Locale;
import java.util.Objects;

/**
 * Who sent a turn or an answer: set by the ingress, never read from the event's JSON. The gateway makes
 * one per bearer token ({@link Kind#TOKEN}, named by the token's scope), a Redis or Kafka bus one from its
 * configuration ({@link Kind#BUS}, {@code bus.principal}, default the bus's name), stdio {@link #stdio()},
 * and an in-process caller {@link #local()} unless it passes its own.
 *
 * <p>Every piece of turn state is bound to the principal of its turn ({@link TurnKey}, {@link CallKey}):
 * a turn id sent again by another principal is a different turn, a session grant covers only its
 * principal, a cut result is read back only by it, and an approval is answered only by a principal
 * that {@link #mayAnswerFor may answer for} the one that asked.
 *
 * <p>Two principals are the same principal when their kind and id are equal ({@link #equals}); the scope
 * (highest permission, whose requests it may answer, whether it may loosen approval) is what the ingress
 * configured for it. Immutable.
 *
 * <pre>{@code
 * Principal bot = Principal.token("discord-bot").maxPermission("admin").build();
 * executor.handle(event, bot);
 * }</pre>
 */
public final class Principal {

    /** Where a principal comes from. */
    public enum Kind {
        /** A bearer token of the gateway or the MCP HTTP server (named by its scope). */
        TOKEN,
        /** A broker bus's configured identity: every turn read from it. */
        BUS,
        /** In-process callers and stdio: trusted as the process itself. */
        LOCAL;

        /** {@code token}, {@code bus}, {@code local}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Whose approval requests a principal may answer besides its own. */
    public enum Approves {
        /** Only its own. */
        OWN,
        /**
         * Its own and those of principals whose highest permission is below its own (the default): a
         * {@code master} token may approve a {@code member} token's call, never the other way round.
         */
        LOWER
    }

    /** The permission ladder's names, lowest first (the tool policy's {@code PermissionLevel}). */
    private static final String[] LADDER = {"member", "admin", "owner", "master"};

    private static final int MAX_ID_CHARS = 256;

    private static final Principal LOCAL = builder(Kind.LOCAL, "local").approvalOverride(true).build();
    private static final Principal STDIO = builder(Kind.LOCAL, "stdio").approvalOverride(true).build();

    private final Kind kind;
    private final String id;
    private final String maxPermission;
    private final Approves approves;
    private final boolean approvalOverride;
    private final String key;

    private Principal(Builder b) {
        this.kind = b.kind;
        this.id = b.id;
        this.maxPermission = b.maxPermission;
        this.approves = b.approves;
        this.approvalOverride = b.approvalOverride;
        this.key = kind.wireName() + ":" + id;
    }

    /** The in-process caller: {@code local}, {@code master}, may loosen approval. */
    public static Principal local() {
        return LOCAL;
    }

    /** The stdio bus's caller (the process that started toolbus): {@code stdio}, {@code master}, may loosen approval. */
    public static Principal stdio() {
        return STDIO;
    }

    /** A broker bus's identity: {@code master}, may loosen approval (an operator trusts its bus). */
    public static Principal bus(String name) {
        return builder(Kind.BUS, name).approvalOverride(true).build();
    }

    /**
     * A builder of a token's principal: {@code master}, answers for {@link Approves#LOWER}, may not loosen
     * approval until told otherwise.
     *
     * @param name the token's scope name (never the token itself)
     */
    public static Builder token(String name) {
        return builder(Kind.TOKEN, name);
    }

    /** A builder of any principal, with the defaults of {@link #token}. */
    public static Builder builder(Kind kind, String id) {
        return new Builder(kind, id);
    }

    /** A builder initialised from this principal. */
    public Builder toBuilder() {
        return new Builder(kind, id).maxPermission(maxPermission).approves(approves).approvalOverride(approvalOverride);
    }

    /** Where it comes from. */
    public Kind kind() {
        return kind;
    }

    /** Its name within its kind (a token's scope name, a bus's name, {@code local}, {@code stdio}). */
    public String id() {
        return id;
    }

    /** {@code <kind>:<id>}: what keys and ids are derived from. */
    public String key() {
        return key;
    }

    /** The highest permission it may claim: {@code member}, {@code admin}, {@code owner} or {@code master}. */
    public String maxPermission() {
        return maxPermission;
    }

    /** Whose approval requests it may answer besides its own. */
    public Approves approves() {
        return approves;
    }

    /**
     * Whether a turn of this principal may loosen approval with {@code context.approval_mode} (for example
     * to {@code off}); without it a turn's mode may only make approval stricter than the configured one.
     */
    public boolean approvalOverride() {
        return approvalOverride;
    }

    /**
     * Whether this principal may answer an approval request raised by a turn of {@code owner}: it is the
     * same principal, or it {@link Approves#LOWER answers for lower ones} and its highest permission is
     * above the owner's.
     */
    public boolean mayAnswerFor(Principal owner) {
        Objects.requireNonNull(owner, "owner");
        if (equals(owner)) {
            return true;
        }
        return approves == Approves.LOWER && rank(maxPermission) > rank(owner.maxPermission);
    }

    private static int rank(String permission) {
        for (int i = 0; i < LADDER.length; i++) {
            if (LADDER[i].equals(permission)) {
                return i;
            }
        }
        return 0;
    }

    /** Same kind and id. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Principal p && kind == p.kind && id.equals(p.id);
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return "Principal[" + key + ", max " + maxPermission + ", approves " + approves.name().toLowerCase(Locale.ROOT)
                + (approvalOverride ? ", approval override" : "") + "]";
    }

    /** Builder of {@link Principal}; setters throw {@link IllegalArgumentException} on a bad value. */
    public static final class Builder {
        private final Kind kind;
        private final String id;
        private String maxPermission = "master";
        private Approves approves = Approves.LOWER;
        private boolean approvalOverride;

        private Builder(Kind kind, String id) {
            this.kind = Objects.requireNonNull(kind, "kind");
            Checks.requireText(id, "principal id");
            Checks.requireArgument(id.length() <= MAX_ID_CHARS,
                    "principal id must be at most " + MAX_ID_CHARS + " characters, got " + id.length());
            this.id = id.strip();
        }

        /** The highest permission: {@code member}, {@code admin}, {@code owner} or {@code master} (default). */
        public Builder maxPermission(String value) {
            Objects.requireNonNull(value, "maxPermission");
            String v = value.strip().toLowerCase(Locale.ROOT);
            Checks.requireArgument(java.util.Arrays.asList(LADDER).contains(v),
                    "maxPermission must be member, admin, owner or master, got '" + value + "'");
            this.maxPermission = v;
            return this;
        }

        /** Whose approval requests it may answer besides its own (default {@link Approves#LOWER}). */
        public Builder approves(Approves value) {
            this.approves = Objects.requireNonNull(value, "approves");
            return this;
        }

        /** Whether its turns may loosen approval with {@code context.approval_mode} (default false). */
        public Builder approvalOverride(boolean value) {
            this.approvalOverride = value;
            return this;
        }

        /** The principal. */
        public Principal build() {
            return new Principal(this);
        }
    }
}
