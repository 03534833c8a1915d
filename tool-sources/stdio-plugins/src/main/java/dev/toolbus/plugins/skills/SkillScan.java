package dev.toolbus.plugins.skills;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass over the skill folders. A file that cannot be used is skipped with a reason; when the
 * previous catalogue had a skill from that same file, that last good version is kept instead.
 */
final class SkillScan {

    private static final Logger log = LoggerFactory.getLogger(SkillScan.class);

    /** At most this many skills in one catalogue (the rest are skipped with a reason). */
    static final int MAX_SKILLS = 1000;

    private final SkillLimits limits;
    private final Map<Path, SkillDocument> previous = new LinkedHashMap<>();
    private final List<SkillDocument> found = new ArrayList<>();
    private final Map<Path, String> skipped = new LinkedHashMap<>();
    private final Set<String> names = new HashSet<>();

    private SkillScan(SkillLimits limits, SkillCatalog before) {
        this.limits = limits;
        if (before != null) {
            before.skills().forEach(s -> previous.put(s.path(), s));
        }
    }

    static SkillCatalog run(List<Path> paths, SkillLimits limits, SkillCatalog before) {
        SkillScan scan = new SkillScan(limits, before);
        for (Path root : paths) {
            scan.root(root);
        }
        return new SkillCatalog(scan.found, scan.skipped, limits);
    }

    private void root(Path root) {
        if (!Files.exists(root)) {
            log.debug("skill path {} does not exist", root);
            return;
        }
        Path realRoot;
        try {
            realRoot = root.toRealPath();
        } catch (IOException e) {
            skip(root, "cannot be resolved: " + e.getMessage());
            return;
        }
        Path base = Files.isDirectory(realRoot) ? realRoot : realRoot.getParent();
        for (Path file : files(root)) {
            String why;
            try {
                // a link (the file or a folder on its way) may not lead out of the scanned folder
                Path real = file.toRealPath();
                if (!real.startsWith(base)) {
                    why = "it links outside " + root + " (to " + real + ")";
                } else {
                    why = add(file, real, relative(root, file));
                }
            } catch (IOException | RuntimeException e) {
                why = "cannot be read: " + firstLine(e);
            }
            if (why != null) {
                SkillDocument last = previous.get(file);
                if (last != null && names.add(last.name()) && found.size() < MAX_SKILLS) {
                    found.add(last);
                    why = why + "; the last good version is kept";
                }
                skip(file, why);
            }
        }
    }

    /** Reads and adds one file; the reason it was not added, or {@code null}. */
    private String add(Path file, Path real, String relative) throws IOException {
        long size = Files.size(real);
        if (size > limits.maxFileBytes()) {
            return "larger than " + limits.maxFileBytes() + " bytes (" + size + ")";
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(real)) {
            // the file may grow between size() and the read: never read past the bound
            bytes = in.readNBytes(limits.maxFileBytes() + 1);
        }
        if (bytes.length > limits.maxFileBytes()) {
            return "larger than " + limits.maxFileBytes() + " bytes";
        }
        SkillDocument doc = SkillFiles.parse(file, SkillFiles.text(bytes)).relativeTo(relative);
        if (!names.add(doc.name())) {
            return "a skill named '" + doc.name() + "' was found first";
        }
        if (found.size() >= MAX_SKILLS) {
            return "more than " + MAX_SKILLS + " skills are installed";
        }
        found.add(doc);
        return null;
    }

    private List<Path> files(Path root) {
        if (!Files.isDirectory(root)) {
            return SkillFiles.isSkillFile(root) ? List.of(root) : List.of();
        }
        List<Path> out = new ArrayList<>();
        // depth counts folders below root; the files of the deepest folder are one level further down;
        // folder links are not followed (no loops), file links are checked against the root above
        try {
            Files.walkFileTree(root, EnumSet.noneOf(FileVisitOption.class), limits.maxDepth() + 1,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
                            if (SkillFiles.isSkillFile(f) && (attrs.isRegularFile() || attrs.isSymbolicLink())) {
                                out.add(f);
                            } else if (attrs.isSymbolicLink() && Files.isDirectory(f)) {
                                log.debug("skill folder link {} is not followed", f);
                            }
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path f, IOException e) {
                            skip(f, "cannot be scanned: " + e.getMessage());
                            return FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException e) {
            skip(root, "cannot be scanned: " + e.getMessage());
        }
        out.sort(null);
        return out;
    }

    private void skip(Path file, String why) {
        log.warn("skill file {} is skipped: {}", file, why);
        skipped.put(file, why);
    }

    private static String relative(Path root, Path file) {
        Path r = Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS) || Files.isDirectory(root)
                ? root.relativize(file) : file.getFileName();
        return r.toString().replace('\\', '/');
    }

    private static String firstLine(Throwable e) {
        return String.valueOf(e.getMessage()).lines().findFirst().orElse(e.getClass().getSimpleName());
    }
}
