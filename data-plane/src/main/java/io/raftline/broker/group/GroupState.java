package io.raftline.broker.group;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of a group; the transition table is in {@link GroupCoordinator}'s class comment. The names are the ones
 * the CLI prints.
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String displayName;

    GroupState(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }

    /** The states a group may be in just before entering this one. */
    Set<GroupState> validPrevious() {
        return switch (this) {
            case EMPTY -> EnumSet.of(PREPARING_REBALANCE);
            case PREPARING_REBALANCE -> EnumSet.of(EMPTY, COMPLETING_REBALANCE, STABLE);
            case COMPLETING_REBALANCE -> EnumSet.of(PREPARING_REBALANCE);
            case STABLE -> EnumSet.of(COMPLETING_REBALANCE);
            case DEAD -> EnumSet.of(EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD);
        };
    }

    /** The state named {@code name} as printed, or null. */
    public static GroupState fromDisplayName(String name) {
        for (GroupState s : values()) {
            if (s.displayName.equalsIgnoreCase(name)) {
                return s;
            }
        }
        return null;
    }
}
