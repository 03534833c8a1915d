package dev.toolbus.plugins.skills;

import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.SkillText;
import dev.toolbus.protocol.SkillsEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the answer to one {@code list_skills}: the catalogue, and the documents to inject, chosen by
 * mode and spent against {@code maxPromptChars} in the order of {@link SkillText.Reason} (selected,
 * loaded, auto-activated, matched, all). A document that does not fit whole is cut with a marker if
 * at least {@value #MIN_CUT_CHARS} characters are left, else named in {@code omitted}. The catalogue has
 * a bound of its own, also {@code maxPromptChars}.
 */
final class SkillSelection {

    static final int MIN_CUT_CHARS = 200;

    private SkillSelection() {
    }

    static SkillsEvent answer(ListSkillsEvent request, SkillCatalog catalog, SkillSettings settings,
                              List<String> loadedNames) {
        int max = catalog.limits().maxPromptChars();
        Map<String, SkillText.Reason> chosen = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (String name : request.selected()) {
            SkillDocument d = catalog.find(name);
            if (d == null) {
                missing.add(name);
            } else {
                chosen.putIfAbsent(d.name(), SkillText.Reason.SELECTED);
            }
        }
        List<String> loaded = new ArrayList<>();
        for (String name : loadedNames) {
            SkillDocument d = catalog.find(name);
            if (d != null) { // a skill removed since it was loaded is not handed back
                loaded.add(d.name());
                chosen.putIfAbsent(d.name(), SkillText.Reason.LOADED);
            }
        }
        for (SkillDocument d : catalog.skills()) {
            if (settings.fileAutoActivate() && d.autoActivate() || contains(settings.autoActivate(), d.name())) {
                chosen.putIfAbsent(d.name(), SkillText.Reason.AUTO_ACTIVATE);
            }
        }
        if (settings.mode() == SkillSettings.Mode.AUTO && request.text() != null) {
            SkillMatch match = new SkillMatch(request.text());
            for (SkillDocument d : catalog.skills()) {
                if (!chosen.containsKey(d.name()) && match.matches(d, triggers(settings, d.name()))) {
                    chosen.put(d.name(), SkillText.Reason.MATCHED);
                }
            }
        } else if (settings.mode() == SkillSettings.Mode.ALL && request.selected().isEmpty()) {
            catalog.skills().forEach(d -> chosen.putIfAbsent(d.name(), SkillText.Reason.ALL));
        }
        List<SkillText> documents = new ArrayList<>();
        List<String> omitted = new ArrayList<>();
        int left = max;
        boolean truncated = false;
        for (SkillText.Reason reason : SkillText.Reason.values()) {
            for (Map.Entry<String, SkillText.Reason> e : chosen.entrySet()) {
                if (e.getValue() != reason) {
                    continue;
                }
                String full = catalog.find(e.getKey()).fullText();
                if (full.length() <= left) {
                    documents.add(new SkillText(e.getKey(), reason, full, false, full.length()));
                    left -= full.length();
                } else if (left >= MIN_CUT_CHARS) {
                    documents.add(new SkillText(e.getKey(), reason, PromptCut.cut(full, left).text(), true,
                            full.length()));
                    left = 0;
                    truncated = true;
                } else {
                    omitted.add(e.getKey());
                    truncated = true;
                }
            }
        }
        List<SkillsEvent.SkillEntry> entries = new ArrayList<>();
        int used = 0;
        for (SkillDocument d : catalog.skills()) {
            int cost = d.name().length() + d.description().length() + 4;
            if (used + cost > max) {
                break;
            }
            used += cost;
            entries.add(new SkillsEvent.SkillEntry(d.name(), d.description()));
        }
        int entriesOmitted = catalog.skills().size() - entries.size();
        return SkillsEvent.builder().streamId(request.streamId()).requestId(request.requestId())
                .mode(settings.mode().wireName()).skills(entries).skillsOmitted(entriesOmitted).documents(documents)
                .loaded(loaded).missing(missing).omitted(omitted).truncated(truncated || entriesOmitted > 0).build();
    }

    private static List<String> triggers(SkillSettings settings, String name) {
        List<String> t = settings.triggers().get(name);
        return t == null ? List.of() : t;
    }

    private static boolean contains(List<String> names, String name) {
        for (String n : names) {
            if (n.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }
}
