package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class QueueNodesTest {

    private static final String OURS = "11111111-1111-1111-1111-111111111111";
    private static final String OTHER = "22222222-2222-2222-2222-222222222222";
    private static final String THIRD = "33333333-3333-3333-3333-333333333333";

    @Test
    void ordersBySequenceNotByName() {
        String a = QueueNodes.namePrefix(THIRD) + "0000000003";
        String b = QueueNodes.namePrefix(OTHER) + "0000000010";
        String ours = QueueNodes.namePrefix(OURS) + "0000000011";
        QueueNodes.View view = QueueNodes.view(List.of(ours, b, a), ours, OURS);
        assertEquals(List.of(a, b, ours), view.ordered);
        assertEquals(b, view.predecessor());
        assertFalse(view.oursIsFirst());
    }

    @Test
    void ignoresForeignChildrenSuchAsTheTestAndSetNode() {
        String ours = QueueNodes.namePrefix(OURS) + "0000000007";
        QueueNodes.View view = QueueNodes.view(List.of("holder", "lock-0000000001", ours), ours, OURS);
        assertEquals(List.of(ours), view.ordered);
        assertTrue(view.oursIsFirst());
    }

    @Test
    void setsAsideOtherNodesOfOurOwnAttempt() {
        String stray = QueueNodes.namePrefix(OURS) + "0000000004";
        String other = QueueNodes.namePrefix(OTHER) + "0000000005";
        String ours = QueueNodes.namePrefix(OURS) + "0000000006";
        QueueNodes.View view = QueueNodes.view(List.of(stray, other, ours), ours, OURS);
        assertEquals(List.of(stray), view.strayDuplicates);
        assertEquals(List.of(other, ours), view.ordered);
        assertEquals(other, view.predecessor());
    }

    @Test
    void reportsOurNodeMissing() {
        String other = QueueNodes.namePrefix(OTHER) + "0000000005";
        QueueNodes.View view = QueueNodes.view(List.of(other), QueueNodes.namePrefix(OURS) + "0000000006", OURS);
        assertFalse(view.containsOurs());
    }

    @Test
    void parsesSequences() {
        assertEquals(42, QueueNodes.sequence(QueueNodes.namePrefix(OURS) + "0000000042"));
        assertEquals(-1, QueueNodes.sequence("holder"));
        assertEquals(-1, QueueNodes.sequence(QueueNodes.namePrefix(OURS) + "x1"));
        assertEquals(-1, QueueNodes.sequence(QueueNodes.namePrefix(OURS)));
    }
}
