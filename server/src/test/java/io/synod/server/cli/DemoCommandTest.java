package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's main command, end to end (a smaller run): failover happens and every acknowledged write is read back. */
class DemoCommandTest {
    @Test
    @Timeout(180)
    void demoFailsOverAndFindsEveryAcknowledgedWrite() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = SynodCli.execute(new String[] {"demo", "--keys", "40", "--session-timeout-ms", "2000"},
                new PrintWriter(out, true), new PrintWriter(err, true));
        String text = out.toString();
        assertEquals(0, code, text + err);
        assertTrue(text.contains("new leader node"), text);
        assertTrue(text.matches("(?s).*verified every acknowledged write: (\\d+)/\\1 readable.*"), text);
        assertTrue(text.contains("result:             OK"), text);
    }

    @Test
    void badOptionsAreOneLineErrors() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = SynodCli.execute(new String[] {"demo", "--nodes", "4"}, new PrintWriter(out, true), new PrintWriter(err, true));
        assertEquals(2, code);
        assertTrue(err.toString().startsWith("error: --nodes must be 3 or 5"), err.toString());
    }
}
