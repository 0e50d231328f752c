"""Produces keyed records with confluent-kafka (librdkafka), idempotent at acks=all, then consumes them back in a
consumer group that commits after each record. One JSON object per line on stdout:
{"event":"delivered",...} per acknowledged record, {"event":"consumed",...} per record read, {"event":"done"} last.
Usage: confluent_kafka_client.py BOOTSTRAP TOPIC GROUP COUNT"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer

bootstrap, topic, group, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
deadline = time.monotonic() + 60


def emit(**fields):
    print(json.dumps(fields), flush=True)


def delivered(err, msg):
    if err is not None:
        raise KafkaException(err)
    emit(event="delivered", key=msg.key().decode(), partition=msg.partition(), offset=msg.offset())


producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 5})
for i in range(count):
    producer.produce(topic, key=b"k%d" % i, value=b"v%d" % i, headers=[("i", str(i).encode())], on_delivery=delivered)
    producer.poll(0)
if producer.flush(30) != 0:
    sys.exit("records not acknowledged within 30 s")

consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                     "enable.auto.commit": False})
consumer.subscribe([topic])
read = 0
while read < count:
    if time.monotonic() > deadline:
        sys.exit("read %d of %d records before the deadline" % (read, count))
    msg = consumer.poll(1.0)
    if msg is None:
        continue
    if msg.error():
        raise KafkaException(msg.error())
    headers = {k: v.decode() for k, v in (msg.headers() or [])}
    emit(event="consumed", key=msg.key().decode(), value=msg.value().decode(), partition=msg.partition(),
         offset=msg.offset(), headers=headers)
    consumer.commit(message=msg, asynchronous=False)
    read += 1
consumer.close()
emit(event="done")
