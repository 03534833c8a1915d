/**
 * API: the language of every text toolbus writes. {@link dev.toolbus.text.DescriptionLocale} chooses
 * it, {@link dev.toolbus.text.Texts} is the catalog, one method per phrase, one implementation per
 * locale ({@code zh} is MaiBot's and ChatAI's wording byte for byte, {@code en} its mirror).
 */
package dev.toolbus.text;
