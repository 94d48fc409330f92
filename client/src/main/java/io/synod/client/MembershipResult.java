package io.synod.client;

/**
 * The answer to an admin membership request (docs/membership.md, "On the server"): the group, the slot of the change
 * entry its leader proposed (0 for a status) and the group's membership as the leader sees it, as text: the voters,
 * learners and retired replica ids with their nodes and incarnations, the leader, and each member's applied slot.
 */
public record MembershipResult(int group, long slot, String membership) {}
