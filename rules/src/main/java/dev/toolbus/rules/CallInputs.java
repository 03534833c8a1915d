package dev.toolbus.rules;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Caller;
import dev.toolbus.spi.CallRules;

/** What an evaluation reads of a call besides its tool: a {@link RuleCall}, or an executor's call. */
interface CallInputs {

    /** The arguments, a JSON object. */
    JsonNode args();

    /** The {@code ctx} variable's value. */
    MapValue.Struct ctx();

    /** The calls so far in the turn. */
    CallRules.Counts turn();

    /** Who calls. */
    Caller caller();
}
