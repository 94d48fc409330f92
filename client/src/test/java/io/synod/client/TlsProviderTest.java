package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import org.junit.jupiter.api.Test;

/**
 * The SDK and the server ship BoringSSL's natives for Linux x86-64 only: there, TLS must run on OpenSSL (the
 * JDK provider costs about twice the CPU per byte on the write path); elsewhere it falls back to the JDK.
 */
class TlsProviderTest {
    @Test
    void openSslLoadsOnLinuxX86_64() {
        assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux")
                && System.getProperty("os.arch").matches("amd64|x86_64"), "natives shipped for Linux x86-64 only");
        assertEquals(SslProvider.OPENSSL, TlsFiles.provider(),
                () -> "OpenSSL did not load: " + OpenSsl.unavailabilityCause());
    }
}
