package io.raftline.client.errors;

/**
 * The broker's ACLs do not let this client's principal do what it asked; nothing was changed. Not retriable: ask an
 * administrator for an ACL ({@code raftline acls add}). Subclasses name the resource type, as Kafka's do.
 */
public class AuthorizationException extends ApiException {

    /** Creates the exception with the broker's message ("not authorized to WRITE topic 'orders'"). */
    public AuthorizationException(String message) {
        super(message);
    }
}
