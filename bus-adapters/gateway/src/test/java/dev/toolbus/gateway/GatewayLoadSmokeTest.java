package dev.toolbus.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.gateway.load.GatewayLoadAccess;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A smoke-sized run of the load harness (in-process server, a few hundred turns). */
class GatewayLoadSmokeTest {

    @Test
    void loadHarnessRunsAndReportsFigures() throws Exception {
        List<String> rows = GatewayLoadAccess.smoke(300, 8);
        assertThat(rows).hasSize(3);
        assertThat(rows.get(0)).startsWith("| in-process executor | 300 | 0 |");
        assertThat(rows.get(1)).startsWith("| HTTP POST /v1/turns | 300 | 0 |");
        assertThat(rows.get(2)).startsWith("| WebSocket /v1/ws | 300 | 0 |");
        rows.forEach(System.out::println);
    }
}
