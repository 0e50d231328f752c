package io.raftline.broker;

import java.io.PrintWriter;

/** Lets tests in other packages run the node's command line in-process. */
public final class ServerMainAccess {

    private ServerMainAccess() {
    }

    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        return ServerMain.run(args, out, err);
    }
}
