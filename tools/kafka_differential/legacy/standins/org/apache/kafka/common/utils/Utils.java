// Stand-in written for tools/kafka_differential (copied for legacy.py; not Kafka's file): the smallest surface the client
// assignors and protocol/types use, so they compile without the rest of the client.
package org.apache.kafka.common.utils;

import org.apache.kafka.common.KafkaException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/** The members of Kafka's Utils that the assignors and protocol/types call, behaving as Kafka's at 1eb7644 (Apache-2.0). */
public final class Utils {
    private Utils() {
    }

    public static <T extends Comparable<? super T>> List<T> sorted(Collection<T> collection) {
        List<T> res = new ArrayList<>(collection);
        Collections.sort(res);
        return Collections.unmodifiableList(res);
    }

    public static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    public static String utf8(ByteBuffer buffer, int length) {
        byte[] bytes = new byte[length];
        ByteBuffer dup = buffer.duplicate();
        dup.get(bytes);
        return utf8(bytes);
    }

    public static byte[] utf8(String string) {
        return string.getBytes(StandardCharsets.UTF_8);
    }

    public static int utf8Length(CharSequence s) {
        int count = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char ch = s.charAt(i);
            if (ch <= 0x7F) {
                count++;
            } else if (ch <= 0x7FF) {
                count += 2;
            } else if (Character.isHighSurrogate(ch)) {
                count += 4;
                ++i;
            } else {
                count += 3;
            }
        }
        return count;
    }

    public static <T> Class<? extends T> loadClass(String klass, Class<T> base) throws ClassNotFoundException {
        return Class.forName(klass, true, Utils.class.getClassLoader()).asSubclass(base);
    }

    public static <T> T newInstance(Class<T> c) {
        try {
            return c.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new KafkaException("Could not instantiate class " + c.getName(), e);
        }
    }

    public static ClassLoader getContextOrKafkaClassLoader() {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        return cl == null ? Utils.class.getClassLoader() : cl;
    }
}
