package io.synod.coordination;

import java.util.Map;

/** Told the full set of live members whenever it changes (join, leave, data update). */
@FunctionalInterface
public interface MembershipListener {
    /** @param members live members by node id (an immutable snapshot) */
    void onMembersChanged(Map<Integer, MemberInfo> members);
}
