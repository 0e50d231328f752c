package io.raftline.metadata.controller;

import java.util.Optional;

/** Kafka's topic name rules. */
public final class TopicNames {

    public static final int MAX_LENGTH = 249;
    /** The one internal topic; only the controller creates it, on a broker's request. */
    public static final String CONSUMER_OFFSETS = "__consumer_offsets";

    private TopicNames() {
    }

    /** Empty when {@code name} is a legal topic name; else why not. */
    public static Optional<String> validate(String name) {
        if (name == null || name.isEmpty()) {
            return Optional.of("topic name is empty");
        }
        if (name.equals(".") || name.equals("..")) {
            return Optional.of("topic name cannot be '.' or '..'");
        }
        if (name.length() > MAX_LENGTH) {
            return Optional.of("topic name is longer than " + MAX_LENGTH + " characters: " + name.length());
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
                || c == '-';
            if (!ok) {
                return Optional.of("topic name '" + name + "' contains '" + c + "'; legal characters are [a-zA-Z0-9._-]");
            }
        }
        return Optional.empty();
    }

    /**
     * Names that differ only by '.' versus '_' collide in metric names, so Kafka refuses the second one: why
     * {@code name} may not be created beside the existing {@code other} (see {@code MetadataImage#collidingTopic}).
     */
    public static String collision(String name, String other) {
        return "topic '" + name + "' collides with existing topic '" + other
            + "' (names that differ only by '.' and '_' collide)";
    }
}
