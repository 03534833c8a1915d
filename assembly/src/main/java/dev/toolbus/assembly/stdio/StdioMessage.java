package dev.toolbus.assembly.stdio;

import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.spi.BusMessage;
import reactor.core.publisher.Mono;

/** One input line. Acknowledging is a no-op; a dead letter is an {@code error} line on stdout. */
final class StdioMessage implements BusMessage {

    private final byte[] payload;
    private final long lineNumber;
    private final StdioBus bus;

    StdioMessage(byte[] payload, long lineNumber, StdioBus bus) {
        this.payload = payload;
        this.lineNumber = lineNumber;
        this.bus = bus;
    }

    @Override
    public byte[] payload() {
        return payload;
    }

    @Override
    public Mono<Void> ack() {
        return Mono.empty();
    }

    @Override
    public Mono<Void> deadLetter(String reason) {
        return bus.publishUnrouted(new ErrorEvent(null, null, ErrorCode.BAD_EVENT, reason));
    }

    @Override
    public String id() {
        return "stdin:" + lineNumber;
    }
}
