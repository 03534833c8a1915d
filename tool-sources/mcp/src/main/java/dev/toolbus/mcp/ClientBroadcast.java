package dev.toolbus.mcp;

/** A server transport that can tell every connected client something outside any request. */
interface ClientBroadcast {

    /** Sends a notification without params to every client that has a session. */
    void notifyClients(String method);
}
