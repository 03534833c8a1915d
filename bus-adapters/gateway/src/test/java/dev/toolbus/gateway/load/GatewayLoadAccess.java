package dev.toolbus.gateway.load;

import java.time.Duration;
import java.util.List;

/** Runs {@link GatewayLoad} from tests in other packages. */
public final class GatewayLoadAccess {

    private GatewayLoadAccess() {
    }

    /** An in-process-server run; the table rows. */
    public static List<String> smoke(int requests, int clients) throws Exception {
        return GatewayLoad.run(new GatewayLoad.Options(requests, clients, false, Duration.ofSeconds(60)))
                .stream().map(GatewayLoad.Phase::row).toList();
    }
}
