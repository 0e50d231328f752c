package io.raftline.client.admin;

/** The kind of leader election {@link Admin#electLeaders} asks for. */
public enum ElectionType {
    /** Move leadership to the first replica in the assignment, if it is in sync. */
    PREFERRED,
    /** Elect a leader from outside the ISR if no in-sync replica is alive (may lose acknowledged data). */
    UNCLEAN
}
