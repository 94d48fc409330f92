package io.synod.core.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionOwnership;
import io.synod.protocol.SessionResult;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Sessions belong to their creator, decided where the log applies keep-alive and revoke (docs/security.md). */
class SessionOwnershipTest {
    @Test
    void onlyTheOwnerOrAnyKeepsAliveOrRevokesAndTheOwnerGoesWithTheSession() {
        KvStateMachine m = new KvStateMachine();
        assertEquals(new SessionResult.Granted(1, 5_000), apply(m, 1, new SessionCommand.Grant(5_000, "bob")));
        byte[] owner = m.read(new KvCommand.Get(SessionOwnership.ownerKey(1)).encode());
        assertArrayEquals(new KvResult.Value("bob".getBytes(StandardCharsets.UTF_8)).encode(), owner);

        SessionResult denied = apply(m, 2, new SessionCommand.Revoke(1, "alice"));
        assertTrue(denied instanceof SessionResult.Refused r && r.message().startsWith(SessionOwnership.DENIED), denied.toString());
        assertTrue(apply(m, 3, new SessionCommand.KeepAlive(1, "alice")) instanceof SessionResult.Refused);
        assertEquals(new SessionResult.Applied(true), apply(m, 4, new SessionCommand.KeepAlive(1, "bob")));
        assertEquals(new SessionResult.Applied(true), apply(m, 5, new SessionCommand.Revoke(1, SessionOwnership.ANY)));
        assertArrayEquals(new KvResult.Value(null).encode(), m.read(new KvCommand.Get(SessionOwnership.ownerKey(1)).encode()),
                "the owner record ends with the session");

        // Without an owner (authorization off) a session is anyone's, and its encoding is the one before owners.
        assertArrayEquals(new SessionCommand.Grant(5_000).encode(), new SessionCommand.Grant(5_000, "").encode());
        apply(m, 6, new SessionCommand.Grant(5_000));
        assertEquals(new SessionResult.Applied(true), apply(m, 7, new SessionCommand.Revoke(6, "alice")));
    }

    @Test
    void theOwnerRecordIsAReservedKeyNoClientCommandMayWrite() {
        assertTrue(SessionOwnership.OWNER_PREFIX.startsWith(ReservedKeys.PREFIX));
        assertTrue(!SessionOwnership.OWNER_PREFIX.startsWith(ReservedKeys.AUTH_PREFIX));
        KvStateMachine m = new KvStateMachine();
        assertThrows(IllegalArgumentException.class,
                () -> m.validate(new KvCommand.Put(SessionOwnership.ownerKey(1), new byte[0]).encode()));
    }

    private static SessionResult apply(KvStateMachine m, long slot, SessionCommand c) {
        return SessionResult.decode(m.apply(slot, c.encode()));
    }
}
