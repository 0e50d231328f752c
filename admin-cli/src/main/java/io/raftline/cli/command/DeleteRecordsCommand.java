package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.Errors;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.DeletedRecords;
import io.raftline.client.admin.RecordsToDelete;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.common.TopicPartition;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline delete-records}: as kafka-delete-records, deletes the records below the given offsets. The file
 * is checked first (its syntax, and that every topic and partition exists): a bad one deletes nothing. Then each
 * partition's leader moves its log start offset; a partition whose leader refuses (an offset above its high
 * watermark) is reported with its error, the others still go ahead, and the command exits 1.
 */
@Command(name = "delete-records", mixinStandardHelpOptions = true,
    description = "Deletes the records below the given offsets (as kafka-delete-records); prints each partition's low "
        + "watermark (its new log start offset).",
    footer = {"", "Example:", "  raftline delete-records --offset-json-file offsets.json",
        "  (offsets.json: " + OffsetJsonFile.SHAPE + "; offset -1 means the high watermark)"})
public final class DeleteRecordsCommand implements Callable<Integer> {

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--offset-json-file", required = true, paramLabel = "FILE",
        description = "The partitions and offsets: " + OffsetJsonFile.SHAPE + ".")
    Path file;

    @Override
    public Integer call() {
        Map<TopicPartition, Long> offsets = read(file);
        Map<TopicPartition, Long> lowWatermarks = new LinkedHashMap<>();
        Map<TopicPartition, String> failures = new LinkedHashMap<>();
        try (Admin admin = options.admin()) {
            checkPartitionsExist(admin, offsets);
            Map<TopicPartition, RecordsToDelete> request = new LinkedHashMap<>();
            offsets.forEach((tp, offset) -> request.put(tp, RecordsToDelete.beforeOffset(offset)));
            Map<TopicPartition, CompletableFuture<DeletedRecords>> answers = admin.deleteRecords(request).lowWatermarks();
            for (TopicPartition tp : offsets.keySet()) {
                try {
                    lowWatermarks.put(tp, answers.get(tp).get().lowWatermark());
                } catch (ExecutionException e) {
                    failures.put(tp, Errors.describe(e));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CliException("interrupted");
                }
            }
        }
        print(offsets, lowWatermarks, failures);
        if (!failures.isEmpty()) {
            Map.Entry<TopicPartition, String> first = failures.entrySet().iterator().next();
            throw new CliException(failures.size() + " of " + offsets.size() + " partition(s) failed; " + first.getKey() + ": "
                + first.getValue());
        }
        return 0;
    }

    private static Map<TopicPartition, Long> read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new CliException("cannot read the offset file " + file + ": " + e);
        }
        try {
            return OffsetJsonFile.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CliException("the offset file " + file + " is not valid: " + e.getMessage());
        }
    }

    /** An unknown topic or partition fails the whole command before anything is deleted. */
    private static void checkPartitionsExist(Admin admin, Map<TopicPartition, Long> offsets) {
        List<String> topics = offsets.keySet().stream().map(TopicPartition::topic).distinct().toList();
        Map<String, CompletableFuture<TopicDescription>> described = admin.describeTopics(topics).topicNameValues();
        for (String topic : topics) {
            TopicDescription d = Futures.get(described.get(topic));
            for (TopicPartition tp : offsets.keySet()) {
                if (tp.topic().equals(topic) && d.partitions().stream().noneMatch(p -> p.partition() == tp.partition())) {
                    throw new CliException("partition " + tp.partition() + " of topic '" + topic + "' does not exist (it has "
                        + d.partitions().size() + " partition(s)); nothing was deleted");
                }
            }
        }
    }

    private void print(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> lowWatermarks,
                       Map<TopicPartition, String> failures) {
        PrintWriter out = spec.commandLine().getOut();
        if (options.json()) {
            ObjectNode doc = Json.object();
            ArrayNode array = doc.putArray("partitions");
            for (TopicPartition tp : offsets.keySet()) {
                ObjectNode p = array.addObject().put("topic", tp.topic()).put("partition", tp.partition());
                if (failures.containsKey(tp)) {
                    p.putNull("lowWatermark").put("error", failures.get(tp));
                } else {
                    p.put("lowWatermark", lowWatermarks.get(tp)).putNull("error");
                }
            }
            Json.print(out, doc);
            return;
        }
        Table table = new Table("TOPIC", "PARTITION", "LOW-WATERMARK", "ERROR");
        for (TopicPartition tp : offsets.keySet()) {
            table.row(tp.topic(), tp.partition(), lowWatermarks.get(tp), failures.get(tp));
        }
        table.print(out);
    }
}
