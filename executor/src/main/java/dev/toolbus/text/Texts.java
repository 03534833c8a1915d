package dev.toolbus.text;

import dev.toolbus.protocol.Risk;
import java.util.List;
import java.util.Objects;

/**
 * Every phrase toolbus writes for a model or a user, one method per phrase: generated tool
 * descriptions, result texts, the executor's error messages, limit and approval texts, the marker of
 * a cut result and the built-in tools' texts. One implementation per {@link DescriptionLocale};
 * {@code zh} is MaiBot's and ChatAI's wording byte for byte (tests check it), {@code en} its English
 * mirror. A new locale is one more implementation and one more enum constant.
 *
 * <pre>{@code
 * Texts texts = Texts.of(DescriptionLocale.ZH);
 * String message = texts.timedOut("web_fetch", 30_000);   // "工具 web_fetch 执行超时 (30000ms)，已取消。"
 * }</pre>
 */
public interface Texts {

    /** The catalog of a locale. */
    static Texts of(DescriptionLocale locale) {
        return Objects.requireNonNull(locale, "locale") == DescriptionLocale.ZH ? ChineseTexts.INSTANCE
                : EnglishTexts.INSTANCE;
    }

    /** The locale of this catalog. */
    DescriptionLocale locale();

    // generated tool descriptions

    /** The description of a tool that gave none: {@code 工具 {name}} / {@code Tool {name}}. */
    String toolFallback(String toolName);

    /** The first line of a parameter block. */
    String parameterBlockHeader();

    /** The description of a parameter that gave none. */
    String noParameterDescription();

    /** The description of a legacy Action parameter that gave none. */
    String legacyActionParameter();

    /**
     * One parameter line of a parameter block.
     *
     * <p>zh: {@code - name：type，必填。desc 可选值：a、b。 默认值：5。}<br>
     * en: {@code - name: type, required. desc. Allowed values: a, b. Default: 5}
     *
     * @param enumValues the allowed values, or empty
     * @param defaultValue the default as text, or {@code null}
     */
    String parameterLine(String name, String type, boolean required, String description, List<String> enumValues,
                         String defaultValue);

    /** What joins the items of a list in a sentence ({@code 、} / {@code ", "}). */
    String listJoiner();

    /** The first line of a legacy Action's usage notes. */
    String usageNotesHeader();

    /** The message-types line of a legacy Action ({@code types} already joined). */
    String messageTypesLine(String types);

    /** The activation line of a legacy Action. */
    String activationLine(String activationType);

    /** The activation-keywords line of a legacy Action ({@code keywords} already joined). */
    String keywordsLine(String keywords);

    /** The original-prompt line of a legacy Action. */
    String actionPromptLine(String prompt);

    // results and media

    /** The history label of an image item. */
    String imageContent();

    /** The history label of an audio item. */
    String audioContent();

    /** The history label of a resource link. */
    String resourceLink();

    /** The history label of an embedded resource. */
    String embeddedResource();

    /** The history label of binary content. */
    String binaryContent();

    /** What follows an unknown item type in its history label. */
    String otherContentSuffix();

    /** The text of a successful call that left nothing to read. */
    String toolSucceeded();

    /** The text of a failed call that left nothing to read. */
    String toolFailed(String toolName);

    /** The marker of an attached image in a media message's plain text. */
    String imageMarker();

    /** The error message of a failed foreign value that names none. */
    String foreignToolFailed();

    /** A media item above the size limit ({@code MEDIA_TOO_LARGE}). */
    String mediaTooLarge(int itemNumber, String type, long bytes, long limit);

    /** A result with more content items than allowed ({@code MEDIA_TOO_LARGE}). */
    String tooManyContentItems(int items, int limit);

    // the executor's errors

    /** A call without a tool name ({@code UNKNOWN_TOOL}). */
    String noToolName();

    /** A call of an unknown tool ({@code UNKNOWN_TOOL}). */
    String unknownTool(String toolName);

    /** A tool this session may not use ({@code NOT_AVAILABLE}). */
    String notAvailable(String toolName);

    /** Arguments that are not JSON ({@code INVALID_ARGUMENTS}). */
    String invalidJson(String toolName, String detail);

    /** Arguments that are not a JSON object ({@code INVALID_ARGUMENTS}). */
    String notAnObject(String toolName, String actualType);

    /** A required argument is missing ({@code INVALID_ARGUMENTS}). */
    String missingArgument(String toolName, String argument);

    /** An argument of the wrong type ({@code INVALID_ARGUMENTS}). */
    String wrongArgumentType(String toolName, String argument, String expected, String actual);

    /** Arguments the schema refuses ({@code INVALID_ARGUMENTS}). */
    String schemaViolation(String toolName, String detail);

    /** An argument outside its enum ({@code INVALID_ARGUMENTS}). */
    String notOneOf(String toolName, String argument, String allowed);

    /** A call that timed out ({@code TIMEOUT}). */
    String timedOut(String toolName, long ms);

    /** A cancelled call ({@code CANCELLED}). */
    String cancelled(String toolName);

    /** Too many calls wait for a slot ({@code REJECTED}). */
    String overloaded(int queued);

    /** The executor is closing ({@code REJECTED}). */
    String shuttingDown();

    // limits

    /** A token bucket is empty ({@code RATE_LIMITED}). */
    String rateLimited(String toolName, String rule, long retryAfterMs);

    /** The shared bucket store cannot be reached ({@code RATE_LIMITED}). */
    String limitStoreDown(String toolName, String rule);

    /** Too many calls of one tool in the turn ({@code LIMIT_EXCEEDED}). */
    String perToolCapReached(String toolName, String rule, int max);

    /** Too many matching calls in the turn ({@code LIMIT_EXCEEDED}). */
    String perTurnCapReached(String toolName, String rule, int max);

    /** Too many calls wait for one concurrency cap ({@code REJECTED}). */
    String tooManyWaiting(String toolName, String rule, int waiting);

    // approval

    /**
     * One call as an approval request lists it.
     *
     * @param tool the tool's name
     * @param risk its risk
     * @param argumentsSummary its arguments, summarised
     */
    record ApprovalLine(String tool, Risk risk, String argumentsSummary, String reason) {
        /**
         * @param reason why it asks, when a rule over the call asked ({@code ""}: the approval settings did)
         */
        public ApprovalLine {
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(risk, "risk");
            Objects.requireNonNull(argumentsSummary, "argumentsSummary");
            reason = reason == null ? "" : reason;
        }

        /** A line the approval settings asked for. */
        public ApprovalLine(String tool, Risk risk, String argumentsSummary) {
            this(tool, risk, argumentsSummary, "");
        }
    }

    /**
     * The prompt of an approval request, for example (en):
     * <pre>
     * The model requested these tools:
     * [1] wipe risk: high
     * arguments: {"target":"disk"}
     * Reply: confirm / cancel / allow for this conversation
     * </pre>
     * A call a rule asked for has a {@code reason: …} line after its arguments.
     */
    String approvalPrompt(List<ApprovalLine> calls);

    /** The user said no ({@code NOT_APPROVED}). */
    String approvalDeclined();

    /** The user said no and why ({@code NOT_APPROVED}); {@code message} is the user's, bounded by the protocol. */
    String approvalDeclinedWith(String message);

    /**
     * An approval carried edited arguments without naming its call while the request has several
     * ({@code NOT_APPROVED}): toolbus does not guess which call the edit is for.
     */
    String approvalEditNamesNoCall();

    /** Nobody answered in time ({@code NOT_APPROVED}). */
    String approvalExpired(long timeoutMs);

    /** The request could not be published ({@code NOT_APPROVED}). */
    String approvalUnsent(String reason);

    /**
     * Too many turns wait for approval now, by the bytes they hold: the call was not asked
     * ({@code REJECTED}).
     */
    String approvalBusy(long waitingBytes, long maxBytes);

    /** The mode is {@code ask}: nothing runs ({@code NOT_APPROVED}). */
    String askModeRunsNothing();

    /**
     * A call made by code the model runs needs approval, and code cannot wait for a person
     * ({@code NOT_APPROVED}, unless {@code approval.programmatic: ask}).
     */
    String programmaticCannotWait(String tool);

    // rules over the call and callers

    /** A rule asked for approval where there is no approval step, or its mode is {@code off} ({@code NOT_ALLOWED}). */
    String ruleAskWithoutApproval(String tool, String rule);

    /**
     * The caller is not one the tool allows ({@code NOT_ALLOWED}).
     *
     * @param caller {@code direct} or {@code programmatic}
     * @param allowed the callers it allows, e.g. {@code direct}
     */
    String callerNotAllowed(String tool, String caller, String allowed);

    // output schemas

    /** The result's data does not match the tool's output schema ({@code INVALID_OUTPUT}); {@code problem} names the path. */
    String invalidOutput(String tool, String problem);

    /** The result has no data though the tool declares an output schema ({@code INVALID_OUTPUT}). */
    String noOutputData(String tool);

    // the turn state

    /**
     * A call that is not safe to run twice had started before its turn was interrupted and run again
     * ({@code OUTCOME_UNKNOWN}): it may or may not have taken effect; check before calling it again.
     */
    String outcomeUnknown(String tool);

    /** The turn state could not be read or written, so the call did not start ({@code STATE_UNAVAILABLE}). */
    String stateUnavailable(String tool, String reason);

    /** A call that finished before its turn was run again; its result was too large to keep. */
    String finishedResultNotKept(String tool);

    // cut results

    /** What replaces the cut part of an error message. */
    String errorCut(int cutChars);

    /** The marker of a cut result whose full text was not kept. */
    String cutNotKept(int total, int shown, int cut);

    /**
     * The marker of a cut result whose full text is kept.
     *
     * @param readTool the tool that reads on ({@code read_tool_result})
     * @param arguments its arguments as JSON
     */
    String cutKept(int total, int shown, int cut, String readTool, String arguments);

    // read_tool_result

    /** The description of {@code read_tool_result}. */
    String readToolResultDescription();

    /** The description of its {@code tool_call_id} parameter. */
    String readToolCallIdParameter();

    /** The description of its {@code offset} parameter. */
    String readOffsetParameter();

    /** The description of its {@code length} parameter. */
    String readLengthParameter();

    /** No full text of that call is kept for this conversation. */
    String resultNotKept(String toolCallId);

    /** The offset is outside the kept text. */
    String offsetOutOfRange(long offset, int total);

    /**
     * The footer of a piece with more to read.
     *
     * @param readTool the tool that reads on
     * @param nextArguments its arguments for the next piece, as JSON
     */
    String readMore(int offset, int end, int total, String readTool, String nextArguments);

    /** The footer of the last piece. */
    String readEnd(int offset, int end, int total);

    // tool_search

    /** The description of {@code tool_search}. */
    String toolSearchDescription();

    /** The description of its {@code query} parameter. */
    String toolSearchQueryParameter();

    /** The description of its {@code limit} parameter. */
    String toolSearchLimitParameter();

    /** No deferred tool matches the query. */
    String noToolsMatch(String query);

    /** The line before the found tools' definitions. */
    String toolsFound(int count);
}
