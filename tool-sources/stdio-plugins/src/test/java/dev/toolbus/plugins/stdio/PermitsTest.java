package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

class PermitsTest {

    @Test
    void run_onePermitServesCallsOneAfterTheOtherInArrivalOrder() {
        Permits permits = new Permits(1);
        Sinks.One<String> first = Sinks.one();
        List<String> seen = new ArrayList<>();
        permits.run(first::asMono).subscribe(seen::add);
        permits.run(() -> Mono.just("second")).subscribe(seen::add);
        permits.run(() -> Mono.just("third")).subscribe(seen::add);
        assertThat(seen).isEmpty();
        assertThat(permits.active()).isEqualTo(1);
        first.tryEmitValue("first");
        assertThat(seen).containsExactly("first", "second", "third");
        assertThat(permits.active()).isZero();
    }

    @Test
    void run_cancelledWhileWaitingLeavesTheQueue() {
        Permits permits = new Permits(1);
        Sinks.One<String> first = Sinks.one();
        List<String> seen = new ArrayList<>();
        permits.run(first::asMono).subscribe(seen::add);
        Disposable waiting = permits.run(() -> Mono.just("never")).subscribe(seen::add);
        permits.run(() -> Mono.just("third")).subscribe(seen::add);
        waiting.dispose();
        first.tryEmitValue("first");
        assertThat(seen).containsExactly("first", "third");
        assertThat(permits.active()).isZero();
    }

    @Test
    void run_cancellingTheHolderReleasesThePermit() {
        Permits permits = new Permits(1);
        List<String> seen = new ArrayList<>();
        Disposable holder = permits.run(Mono::<String>never).subscribe(seen::add);
        permits.run(() -> Mono.just("next")).subscribe(seen::add);
        assertThat(seen).isEmpty();
        holder.dispose();
        assertThat(seen).containsExactly("next");
    }

    @Test
    void run_errorsReleaseThePermitToo() {
        Permits permits = new Permits(1);
        List<String> seen = new ArrayList<>();
        permits.run(() -> Mono.<String>error(new IllegalStateException("x"))).subscribe(seen::add, e -> seen.add("error"));
        permits.run(() -> Mono.just("next")).subscribe(seen::add);
        assertThat(seen).containsExactly("error", "next");
    }

    @Test
    void lease_retainedByTheBody_keepsThePermitPastACancelUntilReleased() {
        Permits permits = new Permits(1);
        Permits.Lease[] held = new Permits.Lease[1];
        List<String> seen = new ArrayList<>();
        Disposable first = permits.run(lease -> {
            held[0] = lease;
            return Mono.<String>never().doOnCancel(lease::retain);
        }).subscribe(seen::add);
        permits.run(() -> Mono.just("next")).subscribe(seen::add);

        first.dispose();
        assertThat(seen).isEmpty();
        assertThat(permits.active()).isEqualTo(1);

        held[0].release();
        held[0].release(); // idempotent
        assertThat(seen).containsExactly("next");
        assertThat(permits.active()).isZero();
    }
}
