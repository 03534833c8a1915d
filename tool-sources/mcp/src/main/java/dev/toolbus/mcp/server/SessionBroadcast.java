package dev.toolbus.mcp.server;

/** A server transport that can tell every session it serves something outside any request. */
interface SessionBroadcast {

    /** Sends a notification without params to the client of every session. */
    void notifySessions(String method);
}
