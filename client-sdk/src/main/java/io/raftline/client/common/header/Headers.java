package io.raftline.client.common.header;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The ordered headers of a record. Several headers may share a key. A producer's headers become read-only once the
 * record is handed to {@code send} (interceptors run before that), so a record cannot change while it is batched.
 */
public final class Headers implements Iterable<Header> {

    private final List<Header> headers;
    private volatile boolean readOnly;

    /** Empty, writable headers. */
    public Headers() {
        this.headers = new ArrayList<>();
    }

    /** Writable headers holding a copy of {@code initial}. */
    public Headers(Iterable<Header> initial) {
        this();
        if (initial != null) {
            for (Header h : initial) {
                headers.add(h);
            }
        }
    }

    /** Appends a header; fails once the headers are read-only. */
    public Headers add(Header header) {
        checkWritable();
        headers.add(header);
        return this;
    }

    /** Appends a header with this key and value. */
    public Headers add(String key, byte[] value) {
        return add(new Header(key, value));
    }

    /** Removes every header with this key. */
    public Headers remove(String key) {
        checkWritable();
        headers.removeIf(h -> h.key().equals(key));
        return this;
    }

    /** The last header with this key, or null. */
    public Header lastHeader(String key) {
        for (int i = headers.size() - 1; i >= 0; i--) {
            if (headers.get(i).key().equals(key)) {
                return headers.get(i);
            }
        }
        return null;
    }

    /** Every header with this key, in order. */
    public List<Header> headers(String key) {
        List<Header> out = new ArrayList<>();
        for (Header h : headers) {
            if (h.key().equals(key)) {
                out.add(h);
            }
        }
        return out;
    }

    /** The headers as an array, in order. */
    public Header[] toArray() {
        return headers.toArray(new Header[0]);
    }

    /** The number of headers. */
    public int size() {
        return headers.size();
    }

    /** Freezes the headers; later changes throw {@link IllegalStateException}. */
    public void setReadOnly() {
        readOnly = true;
    }

    @Override
    public Iterator<Header> iterator() {
        return Collections.unmodifiableList(headers).iterator();
    }

    private void checkWritable() {
        if (readOnly) {
            throw new IllegalStateException("Headers are read-only once the record was sent");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Headers other && headers.equals(other.headers);
    }

    @Override
    public int hashCode() {
        return headers.hashCode();
    }

    @Override
    public String toString() {
        return headers.toString();
    }
}
