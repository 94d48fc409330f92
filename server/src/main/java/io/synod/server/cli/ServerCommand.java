package io.synod.server.cli;

import io.synod.server.config.ConfigException;
import io.synod.server.config.ServerConfig;
import io.synod.server.node.SynodNode;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code synod server --config FILE [--set key=value ...]}: runs one node until SIGTERM/SIGINT. */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = "Run one Synod server node (what docker-compose and deployments run).",
        footer = {"", "Every config key, its default and meaning: docs/server.md (or --print-config)."})
public final class ServerCommand implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "properties file")
    Path config;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "override one config key (repeatable)")
    List<String> overrides = new ArrayList<>();

    @Option(names = "--print-config", description = "print the effective configuration and exit")
    boolean printConfig;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (config == null && overrides.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--config FILE is required (or --set every key)");
        }
        if (config != null && !Files.isRegularFile(config)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "config file " + config + " does not exist");
        }
        ServerConfig cfg;
        try {
            cfg = ServerConfig.load(config, overrides);
        } catch (ConfigException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "config: " + e.getMessage());
        }
        if (printConfig) {
            out.print(cfg.toProperties());
            out.flush();
            return 0;
        }
        SynodNode node;
        try {
            node = new SynodNode(cfg).start();
        } catch (Exception e) {
            spec.commandLine().getErr().println("error: node " + cfg.nodeId() + " failed to start: " + oneLine(e));
            return 1;
        }
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            node.close();
            stop.countDown();
        }, "synod-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        out.printf("synod server node %d up: peer %s, client %s, metrics %s, data %s%n", cfg.nodeId(), node.peerAddress(),
                node.clientAddress(), node.metricsAddress() == null ? "off" : "http:/" + node.metricsAddress() + "/metrics",
                cfg.dataDir());
        out.flush();
        stop.await();
        return 0;
    }

    static String oneLine(Throwable e) {
        StringBuilder b = new StringBuilder(String.valueOf(e.getMessage()));
        Throwable c = e.getCause();
        while (c != null && c != e) {
            if (c.getMessage() != null && !b.toString().contains(c.getMessage())) {
                b.append(": ").append(c.getMessage());
            }
            e = c;
            c = c.getCause();
        }
        return b.toString().replace('\n', ' ');
    }

    static Map<String, String[]> keys() {
        return ServerConfig.KEYS;
    }
}
