package dev.toolbus.assembly;

import dev.toolbus.executor.approval.ApprovalSettings;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * An override of the live approval settings (command-line flags over the config): computed again only
 * when the base changes (a reload), so each call reads it with one volatile read.
 */
final class ApprovalOverride implements Supplier<ApprovalSettings> {

    private final Supplier<ApprovalSettings> base;
    private final UnaryOperator<ApprovalSettings> override;
    private final AtomicReference<Memo> memo = new AtomicReference<>();

    private record Memo(ApprovalSettings base, ApprovalSettings result) {
    }

    ApprovalOverride(Supplier<ApprovalSettings> base, UnaryOperator<ApprovalSettings> override) {
        this.base = base;
        this.override = override;
    }

    @Override
    public ApprovalSettings get() {
        ApprovalSettings b = base.get();
        Memo m = memo.get();
        if (m == null || m.base() != b) {
            m = new Memo(b, override.apply(b));
            memo.set(m);
        }
        return m.result();
    }
}
