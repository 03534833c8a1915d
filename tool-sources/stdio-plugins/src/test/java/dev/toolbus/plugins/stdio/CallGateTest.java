package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

class CallGateTest {

    @Test
    void run_onePermitServesCallsOneAfterTheOtherInArrivalOrder() {
        CallGate gate = new CallGate(1);
        Sinks.One<String> first = Sinks.one();
        List<String> seen = new ArrayList<>();
        gate.run(first::asMono).subscribe(seen::add);
        gate.run(() -> Mono.just("second")).subscribe(seen::add);
        gate.run(() -> Mono.just("third")).subscribe(seen::add);
        assertThat(seen).isEmpty();
        assertThat(gate.active()).isEqualTo(1);
        first.tryEmitValue("first");
        assertThat(seen).containsExactly("first", "second", "third");
        assertThat(gate.active()).isZero();
    }

    @Test
    void run_cancelledWhileWaitingLeavesTheQueue() {
        CallGate gate = new CallGate(1);
        Sinks.One<String> first = Sinks.one();
        List<String> seen = new ArrayList<>();
        gate.run(first::asMono).subscribe(seen::add);
        Disposable waiting = gate.run(() -> Mono.just("never")).subscribe(seen::add);
        gate.run(() -> Mono.just("third")).subscribe(seen::add);
        waiting.dispose();
        first.tryEmitValue("first");
        assertThat(seen).containsExactly("first", "third");
        assertThat(gate.active()).isZero();
    }

    @Test
    void run_cancellingTheHolderReleasesThePermit() {
        CallGate gate = new CallGate(1);
        List<String> seen = new ArrayList<>();
        Disposable holder = gate.run(Mono::<String>never).subscribe(seen::add);
        gate.run(() -> Mono.just("next")).subscribe(seen::add);
        assertThat(seen).isEmpty();
        holder.dispose();
        assertThat(seen).containsExactly("next");
    }

    @Test
    void run_errorsReleaseThePermitToo() {
        CallGate gate = new CallGate(1);
        List<String> seen = new ArrayList<>();
        gate.run(() -> Mono.<String>error(new IllegalStateException("x"))).subscribe(seen::add, e -> seen.add("error"));
        gate.run(() -> Mono.just("next")).subscribe(seen::add);
        assertThat(seen).containsExactly("error", "next");
    }

    @Test
    void lease_retainedByTheBody_keepsThePermitPastACancelUntilReleased() {
        CallGate gate = new CallGate(1);
        CallGate.Lease[] held = new CallGate.Lease[1];
        List<String> seen = new ArrayList<>();
        Disposable first = gate.run(lease -> {
            held[0] = lease;
            return Mono.<String>never().doOnCancel(lease::retain);
        }).subscribe(seen::add);
        gate.run(() -> Mono.just("next")).subscribe(seen::add);

        first.dispose();
        assertThat(seen).isEmpty();
        assertThat(gate.active()).isEqualTo(1);

        held[0].release();
        held[0].release(); // idempotent
        assertThat(seen).containsExactly("next");
        assertThat(gate.active()).isZero();
    }
}
