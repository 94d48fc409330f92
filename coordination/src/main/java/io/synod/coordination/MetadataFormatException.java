package io.synod.coordination;

/**
 * A znode's bytes do not decode: the message names what is wrong (and the znode path when read
 * from ZooKeeper), for example "shard map: range 3 start key length 70000 exceeds 1024".
 */
public class MetadataFormatException extends CoordinationException {
    public MetadataFormatException(String message) {
        super(message);
    }
}
