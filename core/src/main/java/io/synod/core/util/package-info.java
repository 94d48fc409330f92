/** Always-on invariant checks ({@link io.synod.core.util.Check}) used instead of Java {@code assert}. */
package io.synod.core.util;
