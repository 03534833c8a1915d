package dev.toolbus.tool;

/** Who shares a cached result of a tool. */
public enum CacheScope {
    /** Same stream and same user (the default). */
    STREAM_USER,
    /** Everyone: the result depends on the arguments only. */
    GLOBAL,
    /** Never cached. */
    NONE
}
