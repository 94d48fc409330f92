package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.synod.protocol.ClientReply;
import io.synod.server.client.NodeClient;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/grafana/synod.json: (a) it has the structure Grafana loads (title, schemaVersion, panels with a
 * type, a title, a grid position inside the 24-column grid and unique ids; every query panel's targets
 * carry a refId and a PromQL expr; every datasource reference names a template variable that exists),
 * and (b) every metric its expressions name is exported by a real running node, scraped from its
 * {@code /metrics} endpoint.
 */
class GrafanaDashboardTest {
    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "synod.json");
    /** Panel types the dashboard may use; all built into Grafana. */
    private static final Set<String> PANEL_TYPES = Set.of("row", "timeseries", "stat", "gauge", "table", "text");
    /** PromQL words that are not metric names: functions, aggregations, keywords. */
    private static final Set<String> PROMQL_WORDS = Set.of("sum", "max", "min", "avg", "count", "rate", "irate",
            "increase", "deriv", "delta", "histogram_quantile", "by", "without", "on", "ignoring", "group_left",
            "group_right", "and", "or", "unless", "offset", "bool", "topk", "bottomk", "abs", "clamp_min",
            "clamp_max", "label_values", "max_over_time", "min_over_time", "avg_over_time");
    /** A template variable's query, label_values(METRIC, LABEL). */
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)");
    private static final Pattern LABEL_MATCHERS = Pattern.compile("\\{[^}]*}");
    private static final Pattern RANGES = Pattern.compile("\\[[^]]*]");
    private static final Pattern GROUPINGS = Pattern.compile("\\b(by|without|on|ignoring)\\s*\\([^)]*\\)");
    private static final Pattern STRINGS = Pattern.compile("\"[^\"]*\"");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.$])[a-zA-Z_:][a-zA-Z0-9_:]*(?![\\w(])");

    @TempDir
    Path dir;

    private static JsonNode dashboard() throws Exception {
        return new ObjectMapper().readTree(DASHBOARD.toFile());
    }

    @Test
    void theDashboardHasGrafanasStructure() throws Exception {
        JsonNode d = dashboard();
        assertTrue(d.path("title").isTextual() && !d.path("title").asText().isBlank(), "title");
        assertTrue(d.path("uid").isTextual(), "uid");
        assertTrue(d.path("schemaVersion").isInt() && d.path("schemaVersion").asInt() >= 36, "schemaVersion");
        Set<String> variables = new HashSet<>();
        for (JsonNode v : d.path("templating").path("list")) {
            assertTrue(v.path("name").isTextual() && v.path("type").isTextual(), "template variable " + v);
            variables.add(v.path("name").asText());
        }
        JsonNode panels = d.path("panels");
        assertTrue(panels.isArray() && panels.size() > 0, "panels[]");
        Set<Integer> ids = new HashSet<>();
        int queries = 0;
        for (JsonNode p : panels) {
            String where = "panel " + p.path("title").asText("?");
            assertTrue(p.path("id").isInt() && ids.add(p.path("id").asInt()), where + ": a unique integer id");
            assertTrue(PANEL_TYPES.contains(p.path("type").asText()), where + ": type " + p.path("type"));
            assertTrue(p.path("title").isTextual() && !p.path("title").asText().isBlank(), where + ": title");
            JsonNode grid = p.path("gridPos");
            for (String f : List.of("x", "y", "w", "h")) {
                assertTrue(grid.path(f).isInt() && grid.path(f).asInt() >= 0, where + ": gridPos." + f);
            }
            assertTrue(grid.path("w").asInt() > 0 && grid.path("x").asInt() + grid.path("w").asInt() <= 24,
                    where + ": inside the 24-column grid");
            if (p.path("type").asText().equals("row") || p.path("type").asText().equals("text")) {
                continue;
            }
            assertDatasource(p.path("datasource"), variables, where);
            JsonNode targets = p.path("targets");
            assertTrue(targets.isArray() && targets.size() > 0, where + ": targets[]");
            Set<String> refIds = new HashSet<>();
            for (JsonNode t : targets) {
                assertTrue(t.path("refId").isTextual() && refIds.add(t.path("refId").asText()), where + ": unique refId");
                assertTrue(t.path("expr").isTextual() && !t.path("expr").asText().isBlank(), where + ": expr");
                assertDatasource(t.path("datasource"), variables, where);
                assertFalse(metricNames(t.path("expr").asText()).isEmpty(), where + ": names no metric");
                queries++;
            }
        }
        assertTrue(queries > 0, "some panel queries Prometheus");
    }

    /** A panel's or target's datasource is the dashboard's Prometheus template variable. */
    private static void assertDatasource(JsonNode ds, Set<String> variables, String where) {
        assertEquals("prometheus", ds.path("type").asText(), where + ": datasource type");
        String uid = ds.path("uid").asText();
        assertTrue(uid.startsWith("${") && uid.endsWith("}") && variables.contains(uid.substring(2, uid.length() - 1)),
                where + ": datasource uid " + uid + " names a template variable");
    }

    @Test
    void metricNamesAreFoundInExpressions() {
        assertEquals(Set.of("synod_commit_latency_seconds_bucket"), metricNames(
                "histogram_quantile(0.99, sum by (le, group) (rate(synod_commit_latency_seconds_bucket{group=~\"$group\"}[$__rate_interval])))"));
        assertEquals(Set.of("synod_batch_entries_sum", "synod_batch_entries_count"), metricNames(
                "sum by (instance) (rate(synod_batch_entries_sum[1m])) / sum by (instance) (rate(synod_batch_entries_count[1m]))"));
    }

    /**
     * Every metric the dashboard's expressions (and its template variables' queries) name appears in the
     * scrape of the leader of a running 3-node cluster after a few writes and reads.
     */
    @Test
    @Timeout(180)
    void everyMetricTheDashboardNamesIsExportedByARunningNode() throws Exception {
        Set<String> named = new TreeSet<>();
        JsonNode d = dashboard();
        for (JsonNode p : d.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                named.addAll(metricNames(t.path("expr").asText()));
            }
        }
        for (JsonNode v : d.path("templating").path("list")) {
            Matcher m = LABEL_VALUES.matcher(v.path("query").asText());
            if (v.path("type").asText().equals("query") && m.find()) {
                named.add(m.group(1));
            }
        }
        assertTrue(named.size() >= 10, "the dashboard names the server's metrics: " + named);
        try (TestingServer zk = new TestingServer(true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1,
                        "dashboard", Map.of("zookeeper.session.timeout.ms", "4000", "metrics.port", "0"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
            try (NodeClient client = cluster.client(3, 2_000)) {
                for (int i = 0; i < 10; i++) {
                    assertEquals(ClientReply.Status.OK,
                            client.put("k" + i, "v".getBytes(StandardCharsets.UTF_8), 30_000).status());
                    assertEquals(ClientReply.Status.OK, client.get("k" + i, 30_000).status());
                }
            }
            Set<String> exported = exportedNames(LocalClusterTest.scrape(cluster.node(cluster.leaderOf(0)).metricsAddress()));
            List<String> missing = new ArrayList<>();
            for (String name : named) {
                if (!exported.contains(name)) {
                    missing.add(name);
                }
            }
            assertEquals(List.of(), missing, "metrics the dashboard names that the node does not export");
        }
    }

    /** Sample names of a Prometheus text exposition: the word before '{' or ' ' of each non-comment line. */
    private static Set<String> exportedNames(String scrape) {
        Set<String> names = new HashSet<>();
        for (String line : scrape.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int end = 0;
            while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
                end++;
            }
            names.add(line.substring(0, end));
        }
        if (names.isEmpty()) {
            fail("empty scrape");
        }
        return names;
    }

    /** The metric names in a PromQL expression: identifiers outside label matchers, ranges and groupings. */
    static Set<String> metricNames(String expr) {
        String bare = STRINGS.matcher(expr).replaceAll("\"\"");
        bare = LABEL_MATCHERS.matcher(bare).replaceAll(" ");
        bare = RANGES.matcher(bare).replaceAll(" ");
        bare = GROUPINGS.matcher(bare).replaceAll(" ");
        Set<String> names = new HashSet<>();
        Matcher m = IDENTIFIER.matcher(bare);
        while (m.find()) {
            if (!PROMQL_WORDS.contains(m.group())) {
                names.add(m.group());
            }
        }
        return names;
    }
}
