package dev.toolbus.bus.tck;

import dev.toolbus.spi.ToolBus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import reactor.core.Disposable;

/**
 * What every contract suite shares: a {@link BrokerFixture} per test from the subclass, and the things
 * a test opens, closed in reverse order after it (then the fixture).
 */
public abstract class AbstractBusTests {

    /** This test's broker. */
    protected BrokerFixture broker;
    private final List<AutoCloseable> opened = new ArrayList<>();

    /** The broker of this test (a fresh prefix each time); it fails the test when the broker is not running. */
    protected abstract BrokerFixture openBroker();

    @BeforeEach
    void openTheBroker() {
        broker = openBroker();
    }

    @AfterEach
    void closeWhatTheTestOpened() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
        if (broker != null) {
            broker.close();
        }
    }

    /** Closes this after the test (before what was registered earlier). */
    protected <T extends AutoCloseable> T closeLater(T closeable) {
        opened.add(closeable);
        return closeable;
    }

    /** An echo stand-in attached to the bus until the test ends. */
    protected EchoDriver attach(ToolBus bus) {
        EchoDriver driver = new EchoDriver();
        Disposable d = driver.attach(bus);
        opened.add(d::dispose);
        return driver;
    }
}
