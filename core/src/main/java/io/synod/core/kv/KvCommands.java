package io.synod.core.kv;

import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionCommand;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The meaning of the key-value commands (put, delete, compare-and-set by value and by version, list append, and the
 * reads), written once over {@link KvData}: every machine, in memory or in RocksDB, gives the same results and the
 * same error strings because it runs this code.
 */
public final class KvCommands {
    private KvCommands() {}

    /**
     * Applies {@code command} at {@code slot} and records its watch event in {@code watches} (a put, or a delete of a
     * key that existed; nothing for a read, an error or a compare-and-set that did not swap).
     */
    public static KvResult apply(KvData data, KvWatchLog watches, long slot, KvCommand command) {
        boolean existed = !command.isReadOnly() && (data.holdsValue(command.key()) || data.holdsList(command.key()));
        KvResult result = execute(data, slot, command);
        watches.recordChange(slot, command, existed, result);
        return result;
    }

    /**
     * The read-only command {@code payload} holds, decoded: a {@link SessionCommand} or a {@link KvCommand}; a write
     * is refused ({@link IllegalArgumentException}, as is a payload that does not decode).
     */
    public static Object decodeRead(byte[] payload) {
        boolean readOnly;
        Object command;
        if (SessionCommand.isSessionCommand(payload)) {
            SessionCommand session = SessionCommand.decode(payload);
            readOnly = session.isReadOnly();
            command = session;
        } else {
            KvCommand kv = KvCommand.decode(payload);
            readOnly = kv.isReadOnly();
            command = kv;
        }
        if (!readOnly) {
            throw new IllegalArgumentException("read() needs a read-only command, got " + command.getClass().getSimpleName());
        }
        return command;
    }

    /** The data command {@code payload} holds, or null for a session command or a payload that does not decode. */
    public static KvCommand decodeData(byte[] payload) {
        if (SessionCommand.isSessionCommand(payload)) {
            return null;
        }
        try {
            return KvCommand.decode(payload);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Whether {@code payload} is a read-only command (a payload that does not decode is not: it applies as an error). */
    public static boolean isReadOnly(byte[] payload) {
        try {
            if (SessionCommand.isSessionCommand(payload)) {
                return SessionCommand.decode(payload).isReadOnly();
            }
            return KvCommand.decode(payload).isReadOnly();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Decodes {@code payload} and refuses a change of a reserved key ({@link ReservedKeys}), naming the key. */
    public static void validate(byte[] payload) {
        if (SessionCommand.isSessionCommand(payload)) {
            ReservedKeys.refuseChanges(SessionCommand.decode(payload));
            return;
        }
        ReservedKeys.refuseChanges(KvCommand.decode(payload));
    }

    /** Applies {@code command} at {@code slot} (a read-only command is answered without a change). */
    public static KvResult execute(KvData data, long slot, KvCommand command) {
        String key = command.key();
        if (command.isReadOnly()) {
            return query(data, command);
        }
        boolean listOp = command instanceof KvCommand.Append || command instanceof KvCommand.AppendNote;
        if (listOp && data.holdsValue(key)) {
            return holdsValue(key);
        }
        if (!listOp && !(command instanceof KvCommand.Delete) && data.holdsList(key)) {
            return holdsList(key);
        }
        if (command instanceof KvCommand.Put p) {
            data.write(key, p.value(), slot);
            return new KvResult.Done();
        } else if (command instanceof KvCommand.Delete) {
            data.delete(key);
            return new KvResult.Done();
        } else if (command instanceof KvCommand.CompareAndSet c) {
            if (!KvCommand.sameValue(data.value(key), c.expected())) {
                return new KvResult.Swapped(false);
            }
            data.write(key, c.value(), slot);
            return new KvResult.Swapped(true);
        } else if (command instanceof KvCommand.CasVersion c) {
            if (data.version(key) != c.expectedVersion()) {
                return new KvResult.Swapped(false);
            }
            data.write(key, c.value(), slot);
            return new KvResult.Swapped(true);
        }
        data.append(key, command instanceof KvCommand.AppendNote n ? n.element() : ((KvCommand.Append) command).element());
        return new KvResult.Done();
    }

    /** Answers a read-only command (get, versioned get, list read, scan). */
    public static KvResult query(KvData data, KvCommand command) {
        String key = command.key();
        if (command instanceof KvCommand.Scan scan) {
            return scan(data, scan);
        }
        if (command instanceof KvCommand.Get || command instanceof KvCommand.GetVersioned) {
            if (data.holdsList(key)) {
                return holdsList(key);
            }
            byte[] value = data.value(key);
            return command instanceof KvCommand.Get ? new KvResult.Value(value)
                    : new KvResult.Versioned(value, value == null ? 0 : data.version(key));
        }
        if (data.holdsValue(key)) {
            return holdsValue(key);
        }
        return new KvResult.ListValue(data.list(key));
    }

    /** The value keys in the scan's range in UTF-8 byte order, bounded as {@link KvCommand.Scan} says. */
    private static KvResult scan(KvData data, KvCommand.Scan scan) {
        List<KvResult.Entry> out = new ArrayList<>();
        long[] bytes = {0};
        boolean[] more = {false};
        data.scanValues(scan, (key, value, version) -> {
            long size = key.getBytes(StandardCharsets.UTF_8).length + (long) value.length;
            if (out.size() == scan.limit() || (!out.isEmpty() && bytes[0] + size > KvCommand.MAX_SCAN_REPLY_BYTES)) {
                more[0] = true;
                return false;
            }
            out.add(new KvResult.Entry(key, value, version));
            bytes[0] += size;
            return true;
        });
        return new KvResult.Entries(out, more[0]);
    }

    private static KvResult holdsList(String key) {
        return new KvResult.Error("key " + key + " holds a list, not a value");
    }

    private static KvResult holdsValue(String key) {
        return new KvResult.Error("key " + key + " holds a value, not a list");
    }
}
