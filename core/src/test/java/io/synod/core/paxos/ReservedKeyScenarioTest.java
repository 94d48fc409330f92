package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.core.kv.ReservedKeys;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionCommand;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Clients cannot change a reserved key ({@link ReservedKeys}, where the quorum-lease configuration lives,
 * docs/leases.md rule C1): the state machine's {@code validate} refuses the command before it is
 * proposed, the replica answers REJECTED naming the key, and nothing is logged. Reads of the key pass.
 * Nor can a client send commands under the replicas' own client id.
 */
class ReservedKeyScenarioTest {
    private static final String CONFIG_KEY = ReservedKeys.PREFIX + "quorum-lease-config";

    @Test
    void everyChangeOfAReservedKeyIsRefusedByValidateAndReadsPass() {
        KvStateMachine machine = new KvStateMachine();
        List<byte[]> changes = List.of(new KvCommand.Put(CONFIG_KEY, new byte[] {1}).encode(),
                new KvCommand.Delete(CONFIG_KEY).encode(), new KvCommand.Append(CONFIG_KEY, 5).encode(),
                new KvCommand.AppendNote(CONFIG_KEY, 5, new byte[] {2}).encode(),
                new KvCommand.CompareAndSet(CONFIG_KEY, null, new byte[] {1}).encode(),
                new KvCommand.CasVersion(CONFIG_KEY, 0, new byte[] {1}).encode(),
                new KvCommand.Put(ReservedKeys.PREFIX + "anything-else", new byte[] {1}).encode(),
                new SessionCommand.Create(CONFIG_KEY, new byte[] {1}, 3, false).encode(),
                new SessionCommand.Create(ReservedKeys.PREFIX + "seq-", new byte[] {1}, 3, true).encode(),
                new SessionCommand.DeleteIf(CONFIG_KEY, SessionCommand.ANY_TOKEN).encode());
        for (byte[] change : changes) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> machine.validate(change));
            assertTrue(e.getMessage().contains("\\0synod/") && e.getMessage().contains("is reserved"), e.getMessage());
        }
        // Reads, and keys that only look alike, pass.
        for (byte[] ok : List.of(new KvCommand.Get(CONFIG_KEY).encode(), new KvCommand.GetVersioned(CONFIG_KEY).encode(),
                new KvCommand.ReadList(CONFIG_KEY).encode(), new KvCommand.Scan("", "", 10).encode(),
                new SessionCommand.GetEntry(CONFIG_KEY).encode(), new SessionCommand.ListPrefix(ReservedKeys.PREFIX, 5).encode(),
                new KvCommand.Put("synod/quorum-lease-config", new byte[] {1}).encode(),
                new KvCommand.Put("\u0000synod", new byte[] {1}).encode())) {
            machine.validate(ok);
        }
    }

    @Test
    void aClientWriteOfTheLeaseConfigurationKeyIsRejectedBeforeItIsProposed() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        cluster.propose(0, 7, 1, new KvCommand.Put(CONFIG_KEY, new byte[] {0x51, 0x4C, 0x43, 0x46}));
        ClientReply reply = cluster.lastReply(7);
        assertEquals(ClientReply.Status.REJECTED, reply.status());
        String message = new String(reply.result(), StandardCharsets.UTF_8);
        assertTrue(message.contains("\"\\0synod/quorum-lease-config\" is reserved"), message);
        cluster.propose(0, 7, 2, new KvCommand.Delete(CONFIG_KEY));
        assertEquals(ClientReply.Status.REJECTED, cluster.lastReply(7).status());
        // Nor can a client use the replicas' own client id (whose sequence numbers are slots).
        cluster.propose(0, ReservedKeys.CLIENT_ID, 1_000_000, new KvCommand.Put("k", new byte[] {1}));
        ClientReply forged = cluster.lastReply(ReservedKeys.CLIENT_ID);
        assertEquals(ClientReply.Status.REJECTED, forged.status());
        assertTrue(new String(forged.result(), StandardCharsets.UTF_8).contains("is reserved for the replicas' own commands"));
        assertEquals(0, cluster.replicas[0].lastSlot(), "nothing was logged");
        // A read of the key is an ordinary read: nothing stored, version 0.
        cluster.propose(0, 8, 1, new KvCommand.GetVersioned(CONFIG_KEY));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(8).status());
        assertEquals(new KvResult.Versioned(null, 0), KvResult.decode(cluster.lastReply(8).result()));
    }
}
