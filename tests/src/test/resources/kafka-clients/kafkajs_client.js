// Produces keyed records with headers through kafkajs (idempotent, acks=-1), one send per record so that each
// acknowledgement names the record's offset, then consumes them in a consumer group (eachMessage) that commits
// after each record. One JSON object per line on stdout: {"event":"delivered",...} per acknowledged record,
// {"event":"consumed",...} per record read, {"event":"done"} last.
// Usage: NODE_PATH=<folder holding kafkajs> node kafkajs_client.js BOOTSTRAP TOPIC GROUP COUNT
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic, group, countArg] = process.argv.slice(2);
const count = Number(countArg);
const emit = (fields) => process.stdout.write(JSON.stringify(fields) + '\n');

async function main() {
  const kafka = new Kafka({ clientId: 'raftline-kafkajs-test', brokers: bootstrap.split(','), logLevel: logLevel.WARN });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  for (let i = 0; i < count; i++) {
    const [ack] = await producer.send({
      topic, acks: -1, messages: [{ key: `k${i}`, value: `v${i}`, headers: { i: String(i), client: 'kafkajs' } }],
    });
    emit({ event: 'delivered', key: `k${i}`, partition: ack.partition, offset: Number(ack.baseOffset) });
  }
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 10000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let read = 0;
  let finished;
  const allRead = new Promise((resolve) => { finished = resolve; });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic: t, partition, message }) => {
      const headers = {};
      for (const [k, v] of Object.entries(message.headers || {})) {
        headers[k] = v.toString();
      }
      emit({ event: 'consumed', key: message.key.toString(), value: message.value.toString(), partition,
        offset: Number(message.offset), headers });
      await consumer.commitOffsets([{ topic: t, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
      if (++read >= count) {
        finished();
      }
    },
  });
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error(`read ${read} of ${count} records in 60 s`)), 60000).unref());
  await Promise.race([allRead, timeout]);
  await consumer.disconnect();
  emit({ event: 'done' });
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
