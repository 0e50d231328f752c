package io.raftline.cli;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The one-line reason of a failure, unwrapped from the futures and wrappers around it. */
public final class Errors {

    private Errors() {
    }

    public static String describe(Throwable e) {
        Throwable cause = unwrap(e);
        String message = cause.getMessage();
        if (message == null || message.isBlank()) {
            return cause.getClass().getSimpleName();
        }
        return message;
    }

    public static Throwable unwrap(Throwable e) {
        Throwable cause = e;
        while ((cause instanceof ExecutionException || cause instanceof CompletionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
