package io.synod.server.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Message;
import java.lang.reflect.RecordComponent;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The per-kind counter of a group's sent peer messages knows every kind of message and counts each where it belongs. */
class SentKindsTest {
    @Test
    void everyKindOfPeerMessageHasAKindAndEveryKindIsUsed() {
        Set<SentKinds.Kind> used = EnumSet.noneOf(SentKinds.Kind.class);
        for (Class<?> type : Message.class.getPermittedSubclasses()) {
            SentKinds.Kind kind = SentKinds.kind(instance(type));
            assertNotNull(kind, type.getSimpleName() + " has no kind: add it to SentKinds");
            used.add(kind);
        }
        assertEquals(EnumSet.allOf(SentKinds.Kind.class), used, "a kind no message maps to");
    }

    @Test
    void countsEachKindApart() {
        SentKinds kinds = new SentKinds();
        Ballot b = new Ballot(1, 0);
        for (int i = 0; i < 3; i++) {
            kinds.sent(new Message.Heartbeat(0, 1, b, i));
        }
        kinds.sent(new Message.HeartbeatReply(1, 0, b, 2));
        assertEquals(3, kinds.count(SentKinds.Kind.HEARTBEAT));
        assertEquals(1, kinds.count(SentKinds.Kind.HEARTBEAT_REPLY));
        assertEquals(0, kinds.count(SentKinds.Kind.ACCEPT));
    }

    /** A message of {@code type} built from default component values (the kind depends on the class alone). */
    private static Message instance(Class<?> type) {
        try {
            RecordComponent[] components = type.getRecordComponents();
            Class<?>[] types = new Class<?>[components.length];
            Object[] values = new Object[components.length];
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                values[i] = value(types[i]);
            }
            return (Message) type.getDeclaredConstructor(types).newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot build a " + type.getSimpleName(), e);
        }
    }

    private static Object value(Class<?> type) {
        if (type == int.class) {
            return 0;
        } else if (type == long.class) {
            return 0L;
        } else if (type == boolean.class) {
            return false;
        } else if (type == Ballot.class) {
            return new Ballot(1, 0);
        } else if (type == List.class) {
            return List.of();
        } else if (type == long[].class) {
            return new long[0];
        } else if (type == byte[].class) {
            return new byte[0];
        } else if (type.isEnum()) {
            return type.getEnumConstants()[0];
        }
        return null;
    }
}
