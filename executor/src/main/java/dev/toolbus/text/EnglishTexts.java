package dev.toolbus.text;

import java.util.List;
import java.util.Locale;

/** The {@code en} catalog: the English mirror of the {@code zh} texts (docs/tools.md and docs/results-and-media.md list both). */
final class EnglishTexts implements Texts {

    static final EnglishTexts INSTANCE = new EnglishTexts();

    private EnglishTexts() {
    }

    @Override
    public DescriptionLocale locale() {
        return DescriptionLocale.EN;
    }

    // generated tool descriptions

    @Override
    public String toolFallback(String toolName) {
        return "Tool " + toolName;
    }

    @Override
    public String parameterBlockHeader() {
        return "Parameter details:";
    }

    @Override
    public String noParameterDescription() {
        return "No additional description";
    }

    @Override
    public String legacyActionParameter() {
        return "Legacy Action parameter";
    }

    @Override
    public String parameterLine(String name, String type, boolean required, String description,
                                List<String> enumValues, String defaultValue) {
        String line = "- " + name + ": " + type + ", " + (required ? "required" : "optional") + ". " + description;
        if (!enumValues.isEmpty()) {
            line = sentence(line, "Allowed values: " + String.join(listJoiner(), enumValues));
        }
        if (defaultValue != null) {
            line = sentence(line, "Default: " + defaultValue);
        }
        return line;
    }

    @Override
    public String listJoiner() {
        return ", ";
    }

    @Override
    public String usageNotesHeader() {
        return "Usage notes:";
    }

    @Override
    public String messageTypesLine(String types) {
        return closed("Message types: ", types);
    }

    @Override
    public String activationLine(String activationType) {
        return closed("Legacy Action activation: ", activationType);
    }

    @Override
    public String keywordsLine(String keywords) {
        return closed("Activation keywords: ", keywords);
    }

    @Override
    public String actionPromptLine(String prompt) {
        return closed("Original Action prompt: ", prompt);
    }

    /** A closing line: the value gets a full stop unless it ends a sentence already. */
    private static String closed(String label, String value) {
        return endsSentence(value) ? label + value : label + value + ".";
    }

    /**
     * Clause joining: {@code text + ". " + next}, or {@code text + " " + next} when the text already ends
     * with sentence punctuation ({@code . ! ? 。 ！ ？}), so a description that ends with a full stop does
     * not get a second one.
     */
    private static String sentence(String text, String next) {
        return endsSentence(text) ? text + " " + next : text + ". " + next;
    }

    private static boolean endsSentence(String text) {
        if (text.isEmpty()) {
            return false;
        }
        char c = text.charAt(text.length() - 1);
        return c == '.' || c == '!' || c == '?' || c == '。' || c == '！' || c == '？';
    }

    // results and media

    @Override
    public String imageContent() {
        return "image content";
    }

    @Override
    public String audioContent() {
        return "audio content";
    }

    @Override
    public String resourceLink() {
        return "resource link";
    }

    @Override
    public String embeddedResource() {
        return "embedded resource";
    }

    @Override
    public String binaryContent() {
        return "binary content";
    }

    @Override
    public String otherContentSuffix() {
        return "content";
    }

    @Override
    public String toolSucceeded() {
        return "Tool executed successfully.";
    }

    @Override
    public String toolFailed(String toolName) {
        return "Tool " + toolName + " failed.";
    }

    @Override
    public String imageMarker() {
        return "[image]";
    }

    @Override
    public String foreignToolFailed() {
        return "Plugin tool execution failed";
    }

    @Override
    public String mediaTooLarge(int itemNumber, String type, long bytes, long limit) {
        return String.format(Locale.ROOT,
                "Content item %d (%s) is about %d bytes once decoded, above the media size limit of %d bytes.",
                itemNumber, type, bytes, limit);
    }

    @Override
    public String tooManyContentItems(int items, int limit) {
        return String.format(Locale.ROOT, "The tool result has %d content items, above the limit of %d.", items, limit);
    }

    // the executor's errors

    @Override
    public String noToolName() {
        return "The tool call has no tool name.";
    }

    @Override
    public String unknownTool(String toolName) {
        return "Unknown tool: " + toolName;
    }

    @Override
    public String notAvailable(String toolName) {
        return "Tool " + toolName + " is not available in this session.";
    }

    @Override
    public String invalidJson(String toolName, String detail) {
        return "Invalid arguments for " + toolName + ": not valid JSON (" + detail + ").";
    }

    @Override
    public String notAnObject(String toolName, String actualType) {
        return "Invalid arguments for " + toolName + ": arguments must be a JSON object, got " + actualType + ".";
    }

    @Override
    public String missingArgument(String toolName, String argument) {
        return "Invalid arguments for " + toolName + ": missing required argument '" + argument + "'.";
    }

    @Override
    public String wrongArgumentType(String toolName, String argument, String expected, String actual) {
        return "Invalid arguments for " + toolName + ": argument '" + argument + "' must be " + expected + ", got "
                + actual + ".";
    }

    @Override
    public String schemaViolation(String toolName, String detail) {
        return "Invalid arguments for " + toolName + ": " + detail + ".";
    }

    @Override
    public String notOneOf(String toolName, String argument, String allowed) {
        return "Invalid arguments for " + toolName + ": argument '" + argument + "' must be one of: " + allowed + ".";
    }

    @Override
    public String timedOut(String toolName, long ms) {
        return "Tool " + toolName + " timed out after " + ms + " ms and was cancelled.";
    }

    @Override
    public String cancelled(String toolName) {
        return "The call to " + toolName + " was cancelled.";
    }

    @Override
    public String overloaded(int queued) {
        return "toolbus is overloaded (" + queued + " calls waiting); try again later.";
    }

    @Override
    public String shuttingDown() {
        return "toolbus is shutting down; try again later.";
    }

    // limits

    @Override
    public String rateLimited(String toolName, String rule, long retryAfterMs) {
        return "Tool " + toolName + " is rate limited (rule " + rule + "); retry after " + retryAfterMs + " ms.";
    }

    @Override
    public String limitStoreDown(String toolName, String rule) {
        return "Tool " + toolName + " is rate limited: the shared store of rule " + rule
                + " cannot be reached, so the call was refused; retry later.";
    }

    @Override
    public String perToolCapReached(String toolName, String rule, int max) {
        return "Tool " + toolName + " was not run: at most " + max + " calls of it per turn (rule " + rule + ").";
    }

    @Override
    public String perTurnCapReached(String toolName, String rule, int max) {
        return "Tool " + toolName + " was not run: at most " + max + " such calls per turn (rule " + rule + ").";
    }

    @Override
    public String tooManyWaiting(String toolName, String rule, int waiting) {
        return "Tool " + toolName + " is busy: " + waiting + " calls already wait for it (rule " + rule
                + "); retry later.";
    }

    // approval

    @Override
    public String approvalPrompt(List<ApprovalLine> calls) {
        StringBuilder b = new StringBuilder("The model requested these tools:");
        for (int i = 0; i < calls.size(); i++) {
            ApprovalLine l = calls.get(i);
            b.append('\n').append('[').append(i + 1).append("] ").append(l.tool())
                    .append(" risk: ").append(l.risk().wireName())
                    .append('\n').append("arguments: ").append(l.argumentsSummary());
            if (!l.reason().isEmpty()) {
                b.append('\n').append("reason: ").append(l.reason());
            }
        }
        b.append('\n').append("Reply: confirm / cancel / allow for this conversation");
        return b.toString();
    }

    @Override
    public String approvalDeclined() {
        return "Tool not executed: the user declined.";
    }

    @Override
    public String approvalDeclinedWith(String message) {
        return "Tool not executed: the user declined, saying: " + message;
    }

    @Override
    public String approvalEditNamesNoCall() {
        return "Tool not executed: the approval edited arguments without naming which call (tool_call_id) they are for.";
    }

    @Override
    public String approvalExpired(long timeoutMs) {
        return "Tool not executed: no answer to the approval request within " + timeoutMs + " ms.";
    }

    @Override
    public String approvalBusy(long waitingBytes, long maxBytes) {
        return "Tool not executed: too many calls wait for approval now (" + waitingBytes + " of at most " + maxBytes
                + " bytes of their turns are held); try again once some are answered.";
    }

    @Override
    public String approvalUnsent(String reason) {
        return "Tool not executed: the approval request could not be sent (" + reason + ").";
    }

    @Override
    public String askModeRunsNothing() {
        return "Tool not executed: ask mode runs no tools.";
    }

    @Override
    public String programmaticCannotWait(String tool) {
        return "Tool " + tool + " not executed: it needs a person's approval, and a call made from code cannot wait "
                + "for one. Call it directly instead.";
    }

    @Override
    public String ruleAskWithoutApproval(String tool, String rule) {
        return "Tool " + tool + " not executed: the rule '" + rule + "' asks for a person's approval, and approval "
                + "is off here.";
    }

    @Override
    public String callerNotAllowed(String tool, String caller, String allowed) {
        return "Tool " + tool + " cannot be called by a " + caller + " caller; it allows: " + allowed + ".";
    }

    @Override
    public String invalidOutput(String tool, String problem) {
        return "The result of tool " + tool + " does not match its output schema: " + problem;
    }

    @Override
    public String noOutputData(String tool) {
        return "The result of tool " + tool + " has no data, though the tool declares an output schema.";
    }

    @Override
    public String outcomeUnknown(String tool) {
        return "Outcome unknown: the call to " + tool + " started before this turn was interrupted and did not report "
                + "back, so it may or may not have taken effect. It was not run again. Check whether it took effect "
                + "before calling it again.";
    }

    @Override
    public String stateUnavailable(String tool, String reason) {
        return "Tool not executed: " + tool + " was not started because toolbus could not record it in its turn state ("
                + reason + "). Try again later.";
    }

    @Override
    public String finishedResultNotKept(String tool) {
        return "The call to " + tool + " finished before this turn was run again; its result was too large to keep, "
                + "so it is not shown again. Do not call it again for the same purpose.";
    }

    // cut results

    @Override
    public String errorCut(int cutChars) {
        return "…[" + cutChars + " characters cut]";
    }

    @Override
    public String cutNotKept(int total, int shown, int cut) {
        return "[toolbus: this result is " + total + " characters long; the first " + shown + " are shown and "
                + cut + " were cut. The rest was not kept.]";
    }

    @Override
    public String cutKept(int total, int shown, int cut, String readTool, String arguments) {
        return "[toolbus: this result is " + total + " characters long; the first " + shown + " are shown and "
                + cut + " were cut. To read the rest, call " + readTool + " with " + arguments + ".]";
    }

    // read_tool_result

    @Override
    public String readToolResultDescription() {
        return "Read more of a tool result that was cut for being too long: give the tool_call_id and the "
                + "offset named in the cut notice.";
    }

    @Override
    public String readToolCallIdParameter() {
        return "The tool_call_id of the call whose result was cut";
    }

    @Override
    public String readOffsetParameter() {
        return "The character to start at (from 0)";
    }

    @Override
    public String readLengthParameter() {
        return "How many characters to read at most (default and maximum: the limit that cut it)";
    }

    @Override
    public String resultNotKept(String toolCallId) {
        return "No full result of call '" + toolCallId + "' is kept for this conversation: it was not cut, it "
                + "expired, or it belongs to another conversation.";
    }

    @Override
    public String offsetOutOfRange(long offset, int total) {
        return "offset " + offset + " is out of range: the result has " + total + " characters (0 to " + (total - 1)
                + ").";
    }

    @Override
    public String readMore(int offset, int end, int total, String readTool, String nextArguments) {
        return "[toolbus: characters " + offset + " to " + end + " of " + total + "; " + (total - end)
                + " more. To go on, call " + readTool + " with " + nextArguments + ".]";
    }

    @Override
    public String readEnd(int offset, int end, int total) {
        return "[toolbus: characters " + offset + " to " + end + " of " + total + "; this is the end.]";
    }

    // tool_search

    @Override
    public String toolSearchDescription() {
        return "Search for more tools by name or purpose and get their definitions; "
                + "the tools found can be called afterwards.";
    }

    @Override
    public String toolSearchQueryParameter() {
        return "Words describing the tool or its name";
    }

    @Override
    public String toolSearchLimitParameter() {
        return "Maximum number of tools to return";
    }

    @Override
    public String noToolsMatch(String query) {
        return "No tools match '" + query + "'.";
    }

    @Override
    public String toolsFound(int count) {
        return "Found " + count + " tool(s); they can be called now:\n";
    }
}
