package io.synod.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.server.cli.SynodCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The commands README.md and docs/ show are the commands the code has. Every line of a fenced code
 * block in README.md and docs that runs {@code ./synod ...} (optionally after a {@code $ } prompt) is
 * checked against the picocli model of {@code synod} (server module) or {@code synod bench} / {@code
 * synod torture} and {@code synod nemesis} (bench module): its subcommands must exist and every {@code --option} it names must
 * be an option of that subcommand; a line without placeholders (no {@code [..]}, {@code a|b},
 * {@code ...} or upper-case words such as {@code FILE}) must also parse completely: option values of
 * the right type, required options present, positional arity. Nothing is executed. This does not check
 * what a command prints or whether it succeeds at run time (the demo, cluster and kv lines of the
 * README are exercised by DemoCommandTest, ClusterProcessesTest and KvCliTest).
 *
 * <p>Also: docs/cli.md has a section for every command and names every one of its options (regenerate
 * its reference part with {@code scripts/cli-help.sh}).
 */
class DocCommandsTest {
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Set<String> SHELL_OPERATORS = Set.of("<", ">", ">>", "|", "&&", "||", ";", "2>&1", "&");
    private static final Pattern PLACEHOLDER = Pattern.compile("^[A-Z][A-Z0-9_]*([=,:.][A-Z0-9_,:.=]*)?$");

    /** One shown command: where it is and its words after {@code ./synod}. */
    record Shown(String where, String line, List<String> words) {}

    static List<Shown> shownCommands() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(REPO.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(REPO.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<Shown> shown = new ArrayList<>();
        for (Path file : files) {
            List<String> lines = Files.readAllLines(file);
            boolean inCode = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                if (line.startsWith("```")) {
                    inCode = !inCode;
                    continue;
                }
                if (!inCode) {
                    continue;
                }
                String command = line.startsWith("$ ") ? line.substring(2).strip() : line;
                if (!command.startsWith("./synod ")) {
                    continue;
                }
                List<String> words = words(command.substring("./synod ".length()));
                shown.add(new Shown(REPO.relativize(file) + ":" + (i + 1), line, words));
            }
        }
        return shown;
    }

    /** Shell-like words: quotes group and are removed; a '#' word starts a comment; "[exit N]" ends the line. */
    static List<String> words(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                word = word == null ? new StringBuilder() : word;
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else if (word == null && (c == '#' || text.startsWith("[exit", i))) {
                break;
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        // A shell operator ends the command: what follows is the shell's (a redirect, a pipe).
        for (int i = 0; i < words.size(); i++) {
            if (SHELL_OPERATORS.contains(words.get(i))) {
                return words.subList(0, i);
            }
        }
        return words;
    }

    /**
     * Each model is built once: picocli builds it by reflection over every command class, which took about
     * 0.1 s per build on a loaded 2-core machine, twice per shown command (about 200 builds). Reusing one for many parses is what picocli supports: every
     * parseArgs first resets each option and parameter to its initial value (the negative controls in
     * theCheckCatchesAWrongCommandAnOptionAndAValue run on these same models).
     */
    private static final CommandLine SYNOD = new CommandLine(new SynodCli()).setCaseInsensitiveEnumValuesAllowed(true);
    private static final CommandLine BENCH = BenchCli.commandLine();

    private static CommandLine commandLineFor(List<String> words) {
        if (!words.isEmpty() && (words.get(0).equals("bench") || words.get(0).equals("torture")
                || words.get(0).equals("nemesis"))) {
            return BENCH;
        }
        return SYNOD;
    }

    private static List<String> argsFor(List<String> words) {
        return !words.isEmpty() && words.get(0).equals("bench") ? words.subList(1, words.size()) : words;
    }

    private static boolean hasPlaceholders(List<String> args) {
        for (String w : args) {
            String value = w.startsWith("--") && w.contains("=") ? w.substring(w.indexOf('=') + 1) : w;
            if (w.contains("[") || w.contains("]") || w.contains("|") || w.contains("...")
                    || PLACEHOLDER.matcher(value).matches()) {
                return true;
            }
        }
        return false;
    }

    /** Problems with one shown command, or an empty list. */
    static List<String> check(Shown shown) {
        List<String> problems = new ArrayList<>();
        List<String> args = argsFor(shown.words());
        CommandLine root = commandLineFor(shown.words());
        CommandLine current = root;
        for (String word : args) {
            if (word.startsWith("-") && !word.equals("-")) { // "-": standard input, a value
                String name = word.contains("=") ? word.substring(0, word.indexOf('=')) : word;
                name = name.replaceAll("[\\[\\]]", "");
                if (current.getCommandSpec().findOption(name) == null) {
                    problems.add("option " + name + " is not an option of '" + current.getCommandSpec().qualifiedName() + "'");
                }
            } else if (current.getSubcommands().containsKey(word)) {
                current = current.getSubcommands().get(word);
            }
        }
        if (current == root && !args.isEmpty() && !args.get(0).startsWith("-")) {
            problems.add("no command '" + args.get(0) + "' in '" + root.getCommandSpec().qualifiedName() + "'");
        }
        if (problems.isEmpty() && !hasPlaceholders(args)) {
            try {
                root.parseArgs(args.toArray(String[]::new));
            } catch (CommandLine.ParameterException e) {
                problems.add("does not parse: " + e.getMessage());
            }
        }
        return problems;
    }

    @Test
    void everyShownSynodCommandMatchesTheCommandLine() throws IOException {
        List<Shown> shown = shownCommands();
        assertTrue(shown.size() >= 20, "the README and docs show synod commands: " + shown.size());
        List<String> failures = new ArrayList<>();
        for (Shown s : shown) {
            for (String problem : check(s)) {
                failures.add(s.where() + ": " + s.line() + "\n    " + problem);
            }
        }
        assertEquals("", String.join("\n", failures), failures.size() + " shown command(s) do not match the code");
    }

    @Test
    void theCheckCatchesAWrongCommandAnOptionAndAValue() {
        assertEquals(List.of(), check(shown("simulate --nodes 3 --seeds 2 --faults all")));
        assertEquals(List.of(), check(shown("bench kv --quick")));
        assertEquals(1, check(shown("simulate --nodes 3 --no-such-option")).size());
        assertFalse(check(shown("cluster begin --dir /tmp/x")).isEmpty());
        assertFalse(check(shown("cluster begin")).isEmpty());
        assertFalse(check(shown("nosuchcommand")).isEmpty());
        assertTrue(check(shown("simulate --nodes three")).get(0).startsWith("does not parse"));
        assertEquals(List.of(), check(shown("simulate --nodes N --seeds N")), "placeholders are not parsed");
        assertEquals(List.of("a b", "c"), words("'a b' c # comment"));
        assertEquals(List.of("kv", "put", "k", "-"), words("kv put k - < file.txt"));
    }

    private static Shown shown(String command) {
        return new Shown("test", command, words(command));
    }

    @Test
    void cliDocHasEveryCommandAndOption() throws IOException {
        String doc = Files.readString(REPO.resolve("docs/cli.md"));
        List<String> missing = new ArrayList<>();
        collect(new CommandLine(new SynodCli()), "synod", doc, missing);
        collect(BenchCli.commandLine(), "synod bench", doc, missing);
        assertEquals(List.of(), missing, "missing from docs/cli.md (run scripts/cli-help.sh)");
    }

    private static void collect(CommandLine command, String name, String doc, List<String> missing) {
        if (!doc.contains("### `" + name + "`")) {
            missing.add("section ### `" + name + "`");
        }
        CommandSpec spec = command.getCommandSpec();
        for (OptionSpec option : spec.options()) {
            String negatable = "--[no-]" + option.longestName().substring(2);
            if (!option.hidden() && !doc.contains(option.longestName()) && !doc.contains(negatable)) {
                missing.add(name + " " + option.longestName());
            }
        }
        command.getSubcommands().forEach((sub, child) -> {
            if (!sub.equals("help")) {
                collect(child, name + " " + sub, doc, missing);
            }
        });
    }
}
