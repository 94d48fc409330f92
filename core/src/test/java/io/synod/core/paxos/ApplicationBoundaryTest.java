package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The replica hands committed entries out and never calls the application (etcd-io/raft's Ready
 * contract): in this package only the {@link Applier} invokes a {@link StateMachine} method or keeps a
 * {@code StateMachine} in a field; every other class sees the {@link AppliedState}. Checked on the
 * compiled classes: a call through a {@code StateMachine} reference, even of an {@code AppliedState}
 * method, is a method reference to {@code StateMachine} in the caller's constant pool.
 */
class ApplicationBoundaryTest {
    private static final String STATE_MACHINE = "io/synod/core/paxos/StateMachine";
    /** The one class of the package that calls the application. */
    private static final String APPLIER = "Applier.class";

    @Test
    void onlyTheApplierCallsTheStateMachine() throws Exception {
        List<String> offenders = new ArrayList<>();
        for (Path file : replicaSideClassFiles()) {
            for (String call : stateMachineCalls(file)) {
                offenders.add(file.getFileName() + " calls StateMachine." + call);
            }
        }
        assertEquals(List.of(), offenders, "only the Applier may call the application");
    }

    @Test
    void onlyTheApplierHoldsTheStateMachine() throws Exception {
        List<String> offenders = new ArrayList<>();
        for (Path file : replicaSideClassFiles()) {
            String name = file.getFileName().toString();
            Class<?> type = Class.forName("io.synod.core.paxos." + name.substring(0, name.length() - ".class".length()));
            for (Field field : type.getDeclaredFields()) {
                if (StateMachine.class.isAssignableFrom(field.getType())) {
                    offenders.add(type.getSimpleName() + "." + field.getName());
                }
            }
        }
        assertEquals(List.of(), offenders, "only the Applier may hold the application");
    }

    /** Negative control: the scan finds the calls that are there, so an empty result above means something. */
    @Test
    void theScanSeesTheApplierCalls() throws Exception {
        Path applier = packageClassFiles().stream().filter(p -> p.getFileName().toString().equals(APPLIER)).findFirst()
                .orElseThrow();
        Set<String> calls = stateMachineCalls(applier);
        assertTrue(calls.containsAll(Set.of("apply", "applyDeferred", "read", "isReadOnly", "validate")), "found " + calls);
        assertFalse(stateMachineCalls(classFile(Learner.class)).contains("resolve"),
                "the learner resolves through its AppliedState, not a StateMachine reference");
    }

    /** The package's classes but the Applier and the StateMachine itself (its defaults call its other methods). */
    private static List<Path> replicaSideClassFiles() throws IOException, URISyntaxException {
        return packageClassFiles().stream().filter(p -> !p.getFileName().toString().equals(APPLIER)
                && !p.getFileName().toString().startsWith("StateMachine")).toList();
    }

    private static List<Path> packageClassFiles() throws IOException, URISyntaxException {
        Path dir = classFile(Replica.class).getParent();
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> classes = files.filter(p -> p.toString().endsWith(".class")).sorted().toList();
            assertTrue(classes.size() > 20, "the package's classes were not found in " + dir);
            return classes;
        }
    }

    private static Path classFile(Class<?> type) throws URISyntaxException {
        return Path.of(type.getResource(type.getSimpleName() + ".class").toURI());
    }

    /** The names of the StateMachine methods {@code file}'s code refers to (calls and method references). */
    static Set<String> stateMachineCalls(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file); DataInputStream data = new DataInputStream(in)) {
            if (data.readInt() != 0xCAFEBABE) {
                throw new IOException(file + " is not a class file");
            }
            data.readUnsignedShort(); // minor
            data.readUnsignedShort(); // major
            int count = data.readUnsignedShort();
            String[] utf8 = new String[count];
            int[] classNames = new int[count];
            int[] refClass = new int[count];
            int[] refNameAndType = new int[count];
            int[] nameAndTypeName = new int[count];
            boolean[] isMethodRef = new boolean[count];
            for (int i = 1; i < count; i++) {
                int tag = data.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = data.readUTF();
                    case 3, 4 -> data.readInt();
                    case 5, 6 -> {
                        data.readLong();
                        i++; // Longs and doubles take two entries.
                    }
                    case 7 -> classNames[i] = data.readUnsignedShort();
                    case 8, 16, 19, 20 -> data.readUnsignedShort();
                    case 9, 10, 11 -> {
                        refClass[i] = data.readUnsignedShort();
                        refNameAndType[i] = data.readUnsignedShort();
                        isMethodRef[i] = tag != 9;
                    }
                    case 12 -> {
                        nameAndTypeName[i] = data.readUnsignedShort();
                        data.readUnsignedShort();
                    }
                    case 15 -> {
                        data.readUnsignedByte();
                        data.readUnsignedShort();
                    }
                    case 17, 18 -> data.readInt();
                    default -> throw new IOException(file + ": unknown constant pool tag " + tag);
                }
            }
            Set<String> calls = new TreeSet<>();
            for (int i = 1; i < count; i++) {
                if (isMethodRef[i] && STATE_MACHINE.equals(utf8[classNames[refClass[i]]])) {
                    calls.add(utf8[nameAndTypeName[refNameAndType[i]]]);
                }
            }
            return calls;
        }
    }
}
