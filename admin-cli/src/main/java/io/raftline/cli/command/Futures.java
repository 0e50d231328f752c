package io.raftline.cli.command;

import io.raftline.cli.CliException;
import io.raftline.cli.Errors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Waits on the SDK's futures and turns their failures into the CLI's one-line errors. */
public final class Futures {

    private Futures() {
    }

    public static <T> T get(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw new CliException(Errors.describe(e), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted");
        }
    }
}
