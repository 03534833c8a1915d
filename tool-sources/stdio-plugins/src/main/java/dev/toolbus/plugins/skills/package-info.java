/**
 * Skill documents: instructions in {@code SKILL.md}, {@code *.skill.yaml} or {@code *.skill.json}
 * files, listed to the model by name and description and loaded in full through the {@code load_skill}
 * tool of a {@link dev.toolbus.plugins.skills.SkillCatalog}.
 */
package dev.toolbus.plugins.skills;
