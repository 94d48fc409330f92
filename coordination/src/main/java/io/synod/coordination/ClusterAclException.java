package io.synod.coordination;

/**
 * An existing cluster's znodes are protected by an identity this node does not have (another secret, or
 * none): the node must not start, and the message names the configuration keys that fix it.
 */
public final class ClusterAclException extends CoordinationException {
    public ClusterAclException(String message) {
        super(message);
    }
}
