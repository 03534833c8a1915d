package dev.toolbus.crossface;

import dev.toolbus.spring.ToolbusLifecycle;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application with the starter, configured by an {@code application.yaml} holding the
 * fixture's toolbus.yaml under {@code toolbus:} (a real context, its real gateway).
 */
final class SpringFace extends GatewayFace {

    /** An application with no tools of its own: every tool comes from the config's sources. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    private final ConfigurableApplicationContext context;
    private final GatewayClient gateway;

    SpringFace(Fixture f) {
        context = new SpringApplication(App.class).run("--spring.main.web-application-type=none",
                "--spring.config.location=file:" + f.applicationYaml);
        String url = context.getBean(ToolbusLifecycle.class).gatewayUrl();
        if (url == null) {
            context.close();
            throw new AssertionError("the Spring application started no gateway from application.yaml");
        }
        gateway = new GatewayClient(url);
    }

    @Override
    public String name() {
        return "Spring Boot application";
    }

    @Override
    public GatewayClient gateway() {
        return gateway;
    }

    @Override
    public void close() {
        context.close();
    }
}
