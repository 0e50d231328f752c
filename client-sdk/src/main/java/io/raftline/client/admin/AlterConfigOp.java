package io.raftline.client.admin;

/**
 * One change for {@link Admin#incrementalAlterConfigs}: set a value, or delete it (back to the default).
 *
 * @param configEntry the key, and for SET the value
 * @param opType      the operation
 */
public record AlterConfigOp(ConfigEntry configEntry, OpType opType) {

    /** The operations the cluster supports. */
    public enum OpType { SET, DELETE }
}
