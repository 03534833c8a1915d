package dev.toolbus.mcp.server;

import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;
import reactor.core.publisher.Mono;

/**
 * Three small tools for trying the MCP server ({@link McpServerMain} serves them): {@code echo} (text),
 * {@code add} (text and structured data) and {@code draw} (a PNG image, which becomes a media item).
 * The CLI's own demo tools are {@code dev.toolbus.server.samples.SampleTools}.
 *
 * <pre>{@code
 * ToolExecutor executor = ToolExecutor.builder().tools(McpDemoTools.all()).build();
 * McpToolServer.builder(executor).build().serveStdio(System.in, System.out).block();
 * }</pre>
 */
public final class McpDemoTools {

    private static final Map<String, Color> COLORS = Map.of("red", Color.RED, "green", Color.GREEN, "blue",
            Color.BLUE, "black", Color.BLACK, "white", Color.WHITE, "yellow", Color.YELLOW);

    private McpDemoTools() {
    }

    /** {@code echo}, {@code add} and {@code draw}. */
    public static List<ToolSpec> all() {
        return List.of(echo(), add(), draw());
    }

    /** {@code echo(text)}: returns the text. */
    public static ToolSpec echo() {
        ToolDefinition def = ToolDefinition.builder("echo").description("Echo the given text back.")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "The text to echo"))
                .metadata("sample", true)
                .build();
        return new ToolSpec(def, (args, ctx) -> Mono.just(ToolResult.text(args.string("text", ""))));
    }

    /** {@code add(a, b)}: the sum as text and as {@code {"sum": ...}} data. */
    public static ToolSpec add() {
        ToolDefinition def = ToolDefinition.builder("add").description("Add two numbers.")
                .parameter(ToolParameter.of("a", ToolParamType.NUMBER, "The first number"))
                .parameter(ToolParameter.of("b", ToolParamType.NUMBER, "The second number"))
                .build();
        return new ToolSpec(def, (args, ctx) -> {
            // 34 significant digits and plain digits only for sane exponents: 1e999999999 must not expand
            BigDecimal sum = args.get("a").decimalValue().add(args.get("b").decimalValue(), MathContext.DECIMAL128)
                    .stripTrailingZeros();
            String text = Math.abs((long) sum.scale()) > 64 ? sum.toString()
                    : sum.scale() <= 0 ? sum.toBigInteger().toString() : sum.toPlainString();
            return Mono.just(ToolResult.builder().content(text).data(Map.of("sum", sum)).build());
        });
    }

    /** {@code draw(color, size)}: a square PNG of that colour. */
    public static ToolSpec draw() {
        ToolDefinition def = ToolDefinition.builder("draw").description("Draw a filled square and return it as a PNG image.")
                .parameter(ToolParameter.builder("color", ToolParamType.STRING).description("The colour")
                        .enumValues(List.of("red", "green", "blue", "black", "white", "yellow")).required(false)
                        .defaultValue("red").build())
                .parameter(ToolParameter.builder("size", ToolParamType.INTEGER).description("Side in pixels, 1 to 256")
                        .required(false).defaultValue(16).build())
                .build();
        return new ToolSpec(def, (args, ctx) -> {
            String color = args.string("color", "red").toLowerCase(Locale.ROOT);
            int size = (int) Math.max(1, Math.min(256, args.integer("size", 16)));
            Color c = COLORS.getOrDefault(color, Color.RED);
            return Mono.just(ToolResult.builder()
                    .content("A " + size + "x" + size + " " + color + " square.")
                    .item(ContentItem.image(png(c, size), "image/png").withName(color + "-square.png"))
                    .build());
        });
    }

    /** A square PNG of one colour, {@code size} pixels a side. */
    public static byte[] png(Color color, int size) {
        BufferedImage img = new BufferedImage(size, size, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < size; y++) {
            for (int x = 0; x < size; x++) {
                img.setRGB(x, y, color.getRGB());
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ImageIO.write(img, "png", out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
