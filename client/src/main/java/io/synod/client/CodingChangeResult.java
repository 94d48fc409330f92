package io.synod.client;

/**
 * A coding change in force ({@link SynodClient#changeCoding}): the change entry was chosen at {@code slot} of
 * {@code group}'s log and applied by its leader; values proposed after it are coded with {@code coding} (the
 * server's description, e.g. {@code rs-paxos(N=5,F=2,X=1,threshold=4096B)}), entries before it keep the coding they
 * were written with (RS-Paxos §4.6). A refused change fails with {@link BadRequestException} naming the rule
 * broken (X &le; N - 2F, a group without coding); one whose fate is unknown with {@link OutcomeUnknownException}
 * (asking again is harmless: a change sets F, X and the threshold).
 */
public record CodingChangeResult(int group, long slot, String coding) {}
