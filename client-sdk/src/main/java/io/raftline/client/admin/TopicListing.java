package io.raftline.client.admin;

/**
 * A topic in {@link Admin#listTopics()}.
 *
 * @param name       the topic name
 * @param topicId    its id (22-char URL-safe base64), or null if the broker did not say
 * @param isInternal whether it is an internal topic such as {@code __consumer_offsets}
 */
public record TopicListing(String name, String topicId, boolean isInternal) {
}
