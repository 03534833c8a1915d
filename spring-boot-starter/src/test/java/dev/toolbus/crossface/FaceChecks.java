package dev.toolbus.crossface;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The 13 checks of the house review (issue 19: "passes 5 of 13 checks in a Spring application and 13
 * of 13 under toolbus serve"), recreated against the fixture: each one a thing a user of
 * {@code toolbus.yaml} counts on. A check that needs a gateway does not apply to a face without one.
 * Each check records what it saw, so faces can be compared with each other.
 */
final class FaceChecks {

    /** The checks, in order. */
    static final List<String> NAMES = List.of(
            "1 stdio plugin tools listed",
            "2 MCP server tools listed",
            "3 skill documents: load_skill loads",
            "4 plugins.<id>.config reaches the plugin",
            "5 policy: draw hidden from member, shown to owner",
            "6 policy: member's call of draw refused",
            "7 approval: the high-risk tool asks",
            "8 approval: deny is NOT_APPROVED, the tool does not run",
            "9 approval: approve runs the tool",
            "10 limits: the third add in the period is refused",
            "11 scoped tokens: member token cannot claim owner",
            "12 scoped tokens: member token only on its streams",
            "13 gateway.maxConnections: at the cap an idle connection is closed");

    /**
     * One check's outcome.
     *
     * @param applies whether the check applies to the face
     * @param passed whether it passed
     * @param detail what was seen
     */
    record Outcome(boolean applies, boolean passed, String detail) {
        static Outcome of(boolean passed, String detail) {
            return new Outcome(true, passed, detail);
        }
    }

    /**
     * What one face showed.
     *
     * @param face the face
     * @param outcomes by check name
     * @param memberTools the member session's tools
     * @param ownerTools the owner session's tools
     * @param hiddenCode the code of the member's call of the hidden tool
     * @param deniedCode the code of a denied approval
     * @param limitCodes the codes of the three adds ("ok" for a success)
     */
    record Report(String face, Map<String, Outcome> outcomes, List<String> memberTools, List<String> ownerTools,
                  String hiddenCode, String deniedCode, List<String> limitCodes) {
        long passed() {
            return outcomes.values().stream().filter(o -> o.applies() && o.passed()).count();
        }

        long applicable() {
            return outcomes.values().stream().filter(Outcome::applies).count();
        }

        String tally() {
            StringBuilder sb = new StringBuilder(face + ": " + passed() + " of " + applicable() + " checks pass");
            outcomes.forEach((k, o) -> sb.append("\n  ").append(!o.applies() ? "n/a " : o.passed() ? "PASS" : "FAIL")
                    .append(' ').append(k).append(o.applies() && !o.passed() ? " (" + o.detail() + ")" : ""));
            return sb.toString();
        }
    }

    private FaceChecks() {
    }

    /** Runs every check against the face; a check that throws fails. */
    static Report run(Face face, Fixture fixture) {
        Map<String, Outcome> out = new LinkedHashMap<>();
        NAMES.forEach(n -> out.put(n, Outcome.of(false, "not run")));
        List<String> member = List.of();
        List<String> owner = List.of();
        String listing = "";
        try {
            member = face.tools(Face.Session.MEMBER);
            owner = face.tools(Face.Session.OWNER);
        } catch (Exception | AssertionError e) {
            listing = "; listing failed: " + e;
        }
        List<String> m = member;
        List<String> o = owner;
        out.put(NAMES.get(0), Outcome.of(m.contains("note_add") && m.contains("note_wipe"), "member sees " + m + listing));
        out.put(NAMES.get(1), Outcome.of(m.contains("echo") && m.contains("add"), "member sees " + m + listing));
        out.put(NAMES.get(2), check(() -> {
            Face.Result r = face.call(Face.Session.MEMBER, "load_skill", "{\"name\":\"pdf-tools\"}", Face.Answer.DENY);
            return Outcome.of(m.contains("load_skill") && !r.error() && r.content().contains("Use pdftk to merge."),
                    r.toString());
        }));
        out.put(NAMES.get(3), check(() -> {
            Face.Result r = face.call(Face.Session.MEMBER, "note_add", "{\"text\":\"hi\"}", Face.Answer.DENY);
            return Outcome.of(!r.error() && r.content().equals("noted hi in " + fixture.notes), r.toString());
        }));
        out.put(NAMES.get(4), Outcome.of(!m.isEmpty() && !m.contains("draw") && o.contains("draw"),
                "member " + m + ", owner " + o));
        String[] hidden = new String[1];
        out.put(NAMES.get(5), check(() -> {
            Face.Result r = face.call(Face.Session.MEMBER, "draw", "{\"size\":4}", Face.Answer.DENY);
            hidden[0] = r.code();
            return Outcome.of(r.error() && ("PERMISSION_DENIED".equals(r.code()) || "NOT_AVAILABLE".equals(r.code())),
                    r.toString());
        }));
        String[] denied = new String[1];
        out.put(NAMES.get(6), check(() -> {
            long before = fixture.wipes();
            Face.Result r = face.call(Face.Session.OWNER, "note_wipe", "{}", Face.Answer.DENY);
            denied[0] = r.code();
            out.put(NAMES.get(7), Outcome.of(r.asked() && "NOT_APPROVED".equals(r.code()) && fixture.wipes() == before,
                    r + ", wipes " + before + " -> " + fixture.wipes()));
            return Outcome.of(r.asked(), r.toString());
        }));
        out.put(NAMES.get(8), check(() -> {
            long before = fixture.wipes();
            Face.Result r = face.call(Face.Session.OWNER, "note_wipe", "{}", Face.Answer.APPROVE);
            return Outcome.of(r.asked() && !r.error() && r.content().startsWith("wiped") && fixture.wipes() == before + 1,
                    r + ", wipes " + before + " -> " + fixture.wipes());
        }));
        List<String> limit = new java.util.ArrayList<>();
        out.put(NAMES.get(9), check(() -> {
            for (int i = 0; i < 3; i++) {
                Face.Result r = face.call(Face.Session.OWNER, "add", "{\"a\":1,\"b\":" + i + "}", Face.Answer.DENY);
                limit.add(r.error() ? r.code() : "ok");
            }
            return Outcome.of(limit.get(0).equals("ok") && limit.get(1).equals("ok")
                    && (limit.get(2).equals("RATE_LIMITED") || limit.get(2).equals("LIMIT_EXCEEDED")), limit.toString());
        }));
        GatewayClient g = face.gateway();
        if (g == null) {
            for (int i = 10; i < 13; i++) {
                out.put(NAMES.get(i), new Outcome(false, false, "no gateway"));
            }
        } else {
            out.put(NAMES.get(10), check(() -> {
                int claimed = g.tools(Fixture.MEMBER_TOKEN, "owner", "web:x").status();
                int own = g.tools(Fixture.MEMBER_TOKEN, "member", "web:x").status();
                int none = g.tools("not-a-token", "member", "web:x").status();
                return Outcome.of(claimed == 403 && own == 200 && none == 401,
                        "member token as owner " + claimed + ", as member " + own + ", bad token " + none);
            }));
            out.put(NAMES.get(11), check(() -> {
                int other = g.tools(Fixture.MEMBER_TOKEN, "member", "admin:x").status();
                int owners = g.tools(Fixture.OWNER_TOKEN, "owner", "admin:x").status();
                return Outcome.of(other == 403 && owners == 200, "member on admin:x " + other + ", owner " + owners);
            }));
            out.put(NAMES.get(12), check(() -> Outcome.of(g.capClosesAnIdleConnection(Fixture.MAX_CONNECTIONS),
                    "no idle connection was closed at the cap of " + Fixture.MAX_CONNECTIONS)));
        }
        return new Report(face.name(), out, member, owner, hidden[0], denied[0], List.copyOf(limit));
    }

    private interface Check {
        Outcome run() throws Exception;
    }

    private static Outcome check(Check c) {
        try {
            return c.run();
        } catch (Exception | AssertionError e) {
            return Outcome.of(false, e.toString());
        }
    }
}
