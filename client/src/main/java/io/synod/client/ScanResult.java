package io.synod.client;

import java.util.List;

/**
 * The answer to a scan: value keys in the range in byte order of their UTF-8 encoding.
 *
 * @param entries at most the requested limit
 * @param more    whether the range holds keys past the last entry (scan again from after it)
 */
public record ScanResult(List<KeyValue> entries, boolean more) {
    public ScanResult {
        entries = List.copyOf(entries);
    }
}
