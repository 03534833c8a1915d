package dev.toolbus.spi;

import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.SkillsEvent;
import reactor.core.publisher.Mono;

/**
 * Answers {@code list_skills} for an executor ({@code ToolExecutor.Builder.skills}): the skill
 * catalogue and the documents to inject now. The executor knows skills only through this interface;
 * {@code dev.toolbus.plugins.skills.SkillAnswers} is the implementation over skill folders.
 */
@FunctionalInterface
public interface SkillProvider {

    /**
     * The answer to one request. Called on bus and event-loop threads: it must not block (answer from
     * memory, or hand file work to a scheduler of its own).
     */
    Mono<SkillsEvent> answer(ListSkillsEvent request);
}
