package io.raftline.client.admin;

/** Options of {@link Admin#createTopics}. */
public final class CreateTopicsOptions {

    private boolean validateOnly;
    private Integer timeoutMs;

    /** Only check the request; create nothing. */
    public CreateTopicsOptions validateOnly(boolean value) {
        this.validateOnly = value;
        return this;
    }

    /** Overrides {@code default.api.timeout.ms} for this call. */
    public CreateTopicsOptions timeoutMs(Integer value) {
        this.timeoutMs = value;
        return this;
    }

    /** Whether only validation is asked for. */
    public boolean shouldValidateOnly() {
        return validateOnly;
    }

    /** The timeout override, or null. */
    public Integer timeoutMs() {
        return timeoutMs;
    }
}
