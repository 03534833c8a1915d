package dev.toolbus.plugins.skills;

import java.io.IOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.EnumSet;
import java.util.List;

/**
 * A hash of the skill files' paths, sizes and modification times under some folders: when it changes,
 * something was added, changed or removed. Constant memory however many files there are.
 */
final class SkillFingerprint {

    private SkillFingerprint() {
    }

    static long of(List<Path> roots, int maxDepth) {
        long[] h = {1125899906842597L};
        for (Path root : roots) {
            mix(h, root.toString());
            if (!Files.exists(root)) {
                continue;
            }
            try {
                Files.walkFileTree(root, EnumSet.noneOf(FileVisitOption.class), maxDepth + 1, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
                        if (SkillFiles.isSkillFile(f)) {
                            mix(h, f.toString());
                            try {
                                // a link's target counts: an edit of the file it points to is a change
                                BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
                                mix(h, a.size() + ":" + a.lastModifiedTime().toMillis());
                            } catch (IOException e) {
                                mix(h, "unreadable");
                            }
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path f, IOException e) {
                        mix(h, f + ":failed");
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException e) {
                mix(h, root + ":failed");
            }
        }
        return h[0];
    }

    private static void mix(long[] h, String s) {
        for (int i = 0; i < s.length(); i++) {
            h[0] = 31 * h[0] + s.charAt(i);
        }
        h[0] = h[0] * 0x9E3779B97F4A7C15L + 1;
    }
}
