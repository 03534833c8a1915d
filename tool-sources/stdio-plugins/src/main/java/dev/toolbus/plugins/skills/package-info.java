/**
 * Skill documents: instructions in {@code SKILL.md}, {@code *.skill.yaml} or {@code *.skill.json}
 * files, listed to the model by name and description and loaded in full through the {@code load_skill}
 * tool of a {@link dev.toolbus.plugins.skills.SkillCatalog}. A
 * {@link dev.toolbus.plugins.skills.SkillLibrary} keeps a catalogue current (watched folders), remembers
 * per stream what {@code load_skill} loaded, and answers {@code list_skills} as the executor's
 * {@link dev.toolbus.spi.SkillProvider} ({@link dev.toolbus.plugins.skills.SkillSettings}: modes,
 * auto-activation, triggers).
 */
package dev.toolbus.plugins.skills;
