#!/usr/bin/env python3
"""side-by-side.py -- Raftline against Apache Kafka 4.4.0 on this machine, with the same workloads, as ratios.

    tests/scripts/side-by-side.py WORKLOAD [--rounds R] [--records N] [--raftline DIR] [--only kafka|raftline]
                                  [--protocol grpc|kafka]
    tests/scripts/side-by-side.py list       the workloads, one per line: name TAB what it does
    tests/scripts/side-by-side.py fetch      only download Kafka's jars and build the helpers (into the cache)

WORKLOAD runs R rounds of each system (default 3), alternating Kafka, Raftline, Kafka, ..., each on a fresh cluster on
127.0.0.1 in a fresh temporary folder. --records sets the records (topics for the topics rows) per round; default the
workload's. --raftline is the Raftline checkout whose ./raftline runs (default: the one holding this script).
--only runs one system's rounds (no ratio then). --protocol kafka runs the Raftline rounds with Kafka's own tools too
(exactly what the Kafka rounds run) against the `raftline dev` cluster's Kafka listeners (kafkaBootstrap in its
cluster.json): the same client on both sides; the system is then reported as raftline@<sha>(kafka-protocol). Not for
failover workloads.

Output (stdout): each round's JSON line when it is done, then one summary line:
    {"summary":true,"workload":...,"metric":"recordsPerSec","higherIsBetter":true,
     "kafka":{"system":"kafka-4.4.0","median":...,"values":[...]},"raftline":{"system":"raftline@<sha>",...},
     "ratio":...,"ratioIs":"raftline/kafka","better":true,"others":{"mbPerSec":{"kafka":...,"raftline":...,"ratio":...},...}}
For throughputs the ratio is raftline/kafka, for latencies and failover times kafka/raftline: either way a ratio above
1 means Raftline did better. Progress goes to stderr. Exit codes: 0 done, 1 a step failed, 2 bad command line.

Kafka. On first use `mvn -f tests/kafka-bench/pom.xml package` fetches Kafka 4.4.0's broker, tools and clients from
Maven Central into the cache ${RAFTLINE_BENCH_CACHE:-~/.cache/raftline-bench}/kafka-4.4.0/libs and builds the two
helpers of tests/kafka-bench (BenchAdmin, FailoverProbe) there, and Kafka Connect with MirrorMaker 2 into
connect-libs (tests/kafka-bench/connect, for KafkaConnectIT and MirrorMakerIT); later runs reuse it (KafkaRebalanceBench
and the ITs that start Kafka's own processes read the same libs/). Each node is broker+controller with the stock config/server.properties values, formatted with Kafka's
StorageTool and run as `kafka.Kafka` at -Xmx1g -Xms1g with kafka-run-class.sh's G1 flags. The workloads run Kafka's
own tools: ProducerPerformance, ConsumerPerformance, EndToEndLatency; topics and failover use the helpers.

Raftline. The same parameters through the user-facing CLI: `./raftline dev --nodes N` (RAFTLINE_HEAP_OPTS, default
-Xmx1g -Xms1g), `topics create` and `topics describe` until every partition has a leader and a full ISR, then
`perf produce|consume|e2e|topics --output json`; failover feeds `raftline produce --acks all --report-acks` at 5,000
records/s and times every ack line, kills the victim (pid from cluster.json) with SIGKILL, waits for the new leader,
restarts it with `raftline server --config` and waits until it is back in every ISR. Both waits use the same waiter as
Kafka's rounds (BenchAdmin wait-leaders / wait-isr: one JVM polling every 50 ms) against the cluster's Kafka
listeners, so both systems' newLeaderMs and rejoinIsrMs are timed alike ("waiter" in the round's line; a cluster
without Kafka listeners falls back to one `topics describe` JVM per poll, about a second each). topics-3n-c8 runs
`perf topics --clients 8`.

Processes: every process is a child of this script (the Raftline nodes are children of `raftline dev`), signalled
only through its own handle or, for a dev node, by the pid from cluster.json after checking that this pid still runs
that node's config. Each one is told to die with this script (setpriv --pdeathsig), every step has a timeout, and
Ctrl-C or SIGTERM stops everything the run started and removes its folder.

Environment (optional): RAFTLINE_BENCH_CACHE; KAFKA_BENCH_BASE_PORT (19092: Kafka node i listens on P+10(i-1) and,
controller, P+10(i-1)+1); RAFTLINE_BENCH_BASE_PORT (29092: `raftline dev --base-port`); RAFTLINE_BENCH_STEP_TIMEOUT_S
(900: one step); SIDE_BY_SIDE_KEEP_LOGS=DIR (copy each round's logs there); RAFTLINE_HEAP_OPTS; TMPDIR; JAVA, MVN.
Needs python3, a JDK 17+ and, for the first fetch, Maven with access to Maven Central.

Reading the numbers: throughput rounds run closed-loop (--throughput -1), so their latencies are queueing latencies;
neither system fsyncs on the produce path by default; client and brokers share this machine's cores, so run nothing
else meanwhile, and quote only full default-count runs (short runs read low: JIT warm-up).
"""
import argparse
import base64
import fcntl
import hashlib
import io
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH_POM_DIR = os.path.join(REPO, "tests", "kafka-bench")
KAFKA_VERSION = "4.4.0"
KAFKA_SYSTEM = "kafka-" + KAFKA_VERSION
RECORD_SIZE = 1024
FAILOVER_RATE = 5000
FAILOVER_KILL_AFTER_S = 20

SERVER_JVM = ["-Xmx1g", "-Xms1g", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
              "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-XX:MaxInlineLevel=15",
              "-Djava.awt.headless=true"]
TOOL_JVM = ["-Xmx512m", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35", "-Djava.awt.headless=true"]

TUNED = {"linger.ms": "5", "batch.size": "65536"}


class Workload:
    def __init__(self, name, nodes, rf, min_isr, partitions, kind, records, about, producer=None, rate=None,
                 victim=None, clients=1, cold=False, warmup=0):
        self.name, self.nodes, self.rf, self.min_isr, self.partitions = name, nodes, rf, min_isr, partitions
        self.kind, self.records, self.about = kind, records, about
        self.producer = producer or {}     # producer properties of a produce workload ("acks" among them)
        self.rate = rate                   # a fixed send rate (records/s) instead of --throughput -1
        self.victim = victim               # failover: "controller" or "leader-not-controller"
        self.clients = clients             # topics: concurrent admin clients, each awaiting one create after another
        self.warmup = warmup               # produce: the first records are a warm-up (--warmup-records on both sides)
        self.cold = cold                   # consume: the page cache dropped between writing and reading (root only)


WORKLOADS = [
    Workload("produce-1n-acks1", 1, 1, None, 6, "produce", 2_000_000,
             "1 node, 6 partitions RF1; 1 KiB records as fast as they go, acks=1 linger.ms=5 batch.size=65536",
             dict(TUNED, acks="1")),
    Workload("produce-1n-acksall", 1, 1, None, 6, "produce", 2_000_000, "as produce-1n-acks1 with acks=all",
             dict(TUNED, acks="all")),
    Workload("produce-1n-defaults", 1, 1, None, 6, "produce", 2_000_000,
             "1 node, 6 partitions RF1; 1 KiB records with the producer's defaults"),
    Workload("produce-3n-acksall", 3, 3, 2, 6, "produce", 1_000_000,
             "3 nodes, 6 partitions RF3 min.insync.replicas=2; acks=all linger.ms=5 batch.size=65536",
             dict(TUNED, acks="all")),
    Workload("produce-3n-acks1", 3, 3, 2, 6, "produce", 1_000_000, "as produce-3n-acksall with acks=1",
             dict(TUNED, acks="1")),
    Workload("produce-3n-rate", 3, 3, 2, 6, "produce", 300_000,
             "as produce-3n-acksall with linger.ms=1 at a fixed 5,000 records/s (below saturation): latency percentiles",
             {"acks": "all", "linger.ms": "1"}, rate=5000),
    Workload("produce-3n-rate-warm", 3, 3, 2, 6, "produce", 375_000,
             "as produce-3n-rate, the first 75,000 records (15 s) a warm-up on both sides (--warmup-records): the "
             "steady state's latency percentiles over the 300,000 after them",
             {"acks": "all", "linger.ms": "1"}, rate=5000, warmup=75_000),
    Workload("consume-1n", 1, 1, None, 6, "consume", 2_000_000,
             "1 node, 6 partitions: produce N x 1 KiB (acks=all), then read them back in a group"),
    Workload("consume-3n", 3, 3, 2, 6, "consume", 1_000_000, "3 nodes RF3 min.insync.replicas=2: as consume-1n"),
    Workload("consume-1n-cold", 1, 1, None, 6, "consume", 2_000_000,
             "as consume-1n, the page cache dropped between writing and reading (needs root)", cold=True),
    # the codecs (item 9 of issue 24): the producer's compression.type; consume rows write with it, then read back
    Workload("produce-1n-lz4", 1, 1, None, 6, "produce", 2_000_000, "as produce-1n-acks1 with compression.type=lz4",
             dict(TUNED, acks="1", **{"compression.type": "lz4"})),
    Workload("produce-1n-zstd", 1, 1, None, 6, "produce", 2_000_000, "as produce-1n-acks1 with compression.type=zstd",
             dict(TUNED, acks="1", **{"compression.type": "zstd"})),
    Workload("consume-1n-lz4", 1, 1, None, 6, "consume", 2_000_000,
             "as consume-1n, the records written with compression.type=lz4", {"compression.type": "lz4"}),
    Workload("consume-1n-zstd", 1, 1, None, 6, "consume", 2_000_000,
             "as consume-1n, the records written with compression.type=zstd", {"compression.type": "zstd"}),
    Workload("e2e-1n", 1, 1, None, 1, "e2e", 10_000,
             "1 node, 1 partition: one 1 KiB record at a time, produced (acks=all) and consumed; end-to-end latency"),
    Workload("e2e-3n", 3, 3, 2, 1, "e2e", 10_000, "3 nodes, 1 partition RF3 min.insync.replicas=2: as e2e-1n"),
    Workload("topics-3n", 3, 3, None, 3, "topics", 200,
             "3 nodes: N topics x 3 partitions RF3, one awaited create call after the other (topics/s)"),
    Workload("topics-3n-c8", 3, 3, None, 3, "topics", 400,
             "as topics-3n from 8 clients at once (each its own connection, N split between them)", clients=8),
    Workload("failover-3n", 3, 3, 2, 6, "failover", 300_000,
             "3 nodes, 6p RF3 minISR2: 5,000 rec/s acks=all idempotent; after 20 s SIGKILL the leader of the lowest "
             "partition not led by the active controller; longest gap without an ack, new-leader and rejoin times",
             victim="leader-not-controller"),
    Workload("failover-ctrl-3n", 3, 3, 2, 6, "failover", 300_000, "as failover-3n, killing the active controller",
             victim="controller"),
    Workload("scale-3n", 3, 3, None, 10, "scale", 10_000,
             "3 nodes: N partitions at RF3 (topics of 10, created 100 topics a call): until every partition has a "
             "leader and a full ISR, and until every broker holds its replicas' logs; heap after a full GC and RSS "
             "(largest node); SIGKILL a node that is not the controller: until its leaderships moved, and after its "
             "restart until it is back in every ISR; produce spread over every partition (acks=all, 16 KiB to each "
             "in turn, as a sticky partitioner; 500,000 x 1 KiB or 120 s of sending); metadata propagation (50 "
             "topics created one by one, each until every broker's Metadata shows it led); SIGKILL the active "
             "controller: until a topic can be created and its leaderships moved"),
    Workload("scale-100k-7n", 7, 1, None, 10, "scale", 100_000,
             "as scale-3n with 7 nodes (each broker and controller) and N partitions at RF1 (about 14,300 logs a "
             "node: one node's open files and memory maps stay below this machine's limits); at RF1 a killed node's "
             "partitions have nowhere to move: its restart is timed until it leads them again"),
    Workload("connections-1n", 1, 1, None, 1, "connections", 1_000,
             "1 node: N Kafka-protocol client connections held open to the broker (each greeted with ApiVersions), "
             "then 3 Metadata round trips on each: the broker's memory per connection and the request latency"),
]
BY_NAME = {w.name: w for w in WORKLOADS}

# The headline metric of each kind (and whether higher is better), then the other figures the summary compares.
HEADLINE = {"produce": ("recordsPerSec", True), "consume": ("msgsPerSec", True), "topics": ("topicsPerSec", True),
            "e2e": ("e2eAvgMs", False), "failover": ("noAckGapMs", False), "connections": ("kbPerConnection", False),
            "scale": ("settleMs", False)}
OTHERS = {"produce": [("mbPerSec", True), ("latencyMs.avg", False), ("latencyMs.p99", False)],
          "consume": [("mbPerSec", True), ("fetchMsgsPerSec", True), ("fetchMbPerSec", True)],
          "e2e": [("e2eP99Ms", False)], "topics": [],
          "failover": [("newLeaderMs", False), ("rejoinIsrMs", False), ("errors", False)],
          "connections": [("heapKbPerConnection", False), ("requestMs.p50", False), ("requestMs.p99", False),
                          ("connectMs.p99", False), ("rssOpenMb", False)],
          "scale": [("createMs", False), ("logsMs", False), ("heapAfterGcMb", False), ("rssMb", False), ("leadersMovedMs", False),
                    ("rejoinIsrMs", False), ("spreadRecordsPerSec", True), ("spreadLatencyMs.p99", False),
                    ("propagationMs.p50", False), ("propagationMs.p99", False), ("controlCreateMs", False),
                    ("controlLeadersMovedMs", False)]}
RATE_HEADLINE = ("latencyMs.p99", False)
RATE_OTHERS = [("recordsPerSec", True), ("latencyMs.p50", False), ("latencyMs.avg", False), ("latencyMs.p999", False),
               ("latencyMs.max", False)]


class StepFailed(Exception):
    pass


def log(msg):
    print("[side-by-side %s] %s" % (time.strftime("%H:%M:%S", time.gmtime()), msg), file=sys.stderr, flush=True)


def env_int(name, default):
    v = os.environ.get(name, "")
    return int(v) if v.strip() else default


STEP_TIMEOUT = env_int("RAFTLINE_BENCH_STEP_TIMEOUT_S", 900)
JAVA = os.environ.get("JAVA") or (os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME")
                                  else "java")
MVN = os.environ.get("MVN", "mvn")


def cache_dir():
    root = os.environ.get("RAFTLINE_BENCH_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "raftline-bench")
    return os.path.join(root, "kafka-" + KAFKA_VERSION)


# ----------------------------------------------------------------------------------------------- child processes

SETPRIV = shutil.which("setpriv")


def bound(cmd, sig="KILL"):
    """cmd, told to receive sig when this script dies (setpriv --pdeathsig, util-linux), so nothing outlives a run."""
    return [SETPRIV, "--pdeathsig", sig, "--"] + cmd if SETPRIV else cmd


def start(cmd, out_path, cwd=None, env=None, gentle=False):
    """Starts a child in its own session (Ctrl-C reaches this script, which stops it in order), output into out_path.
    gentle: SIGTERM rather than SIGKILL if this script dies (`raftline dev` then stops its nodes)."""
    with open(out_path, "ab") as out:
        return subprocess.Popen(bound(cmd, "TERM" if gentle else "KILL"), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=cwd, env=env, start_new_session=True)


def run(cmd, out_path, err_path=None, timeout=None, cwd=None, env=None):
    """Runs a child to completion (killed after the timeout); returns its exit code, -1 when it timed out.
    stdout goes to out_path, stderr to err_path (default out_path + ".err"; the same path: both into one file)."""
    err_path = err_path or out_path + ".err"
    with open(out_path, "wb") as out, open(os.devnull if err_path == out_path else err_path, "wb") as err:
        p = subprocess.Popen(bound(cmd), stdin=subprocess.DEVNULL, stdout=out,
                             stderr=subprocess.STDOUT if err_path == out_path else err, cwd=cwd, env=env,
                             start_new_session=True)
        try:
            return p.wait(timeout=timeout or STEP_TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return -1
        except BaseException:
            p.kill()
            p.wait()
            raise


def stop(p, grace_s=15, sig=signal.SIGTERM):
    """Stops a child of ours: the signal, then SIGKILL after grace_s."""
    if p is None or p.poll() is not None:
        return
    try:
        p.send_signal(sig)
        p.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def tail(path, n=20):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def last_json(text, key=None):
    """The last line of text that is a JSON object (with key, if given)."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict) and (key is None or key in d):
                return d
    try:
        d = json.loads(text)
        if isinstance(d, dict) and (key is None or key in d):
            return d
    except ValueError:
        pass
    return None


def port_in_use(port):
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_until(what, timeout_s, check, alive=None, interval=0.3):
    deadline = time.monotonic() + timeout_s
    while True:
        if check():
            return
        if alive is not None and not alive():
            raise StepFailed(what + ": the process exited")
        if time.monotonic() > deadline:
            raise StepFailed("timed out after %d s waiting for %s" % (timeout_s, what))
        time.sleep(interval)


# ----------------------------------------------------------------------------------------------- fetch

LOG4J_TOOLS = """# side-by-side.py: Kafka's tools log WARN and above to stderr
status = warn
appender.console.type = Console
appender.console.name = STDERR
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stderr.ref = STDERR
"""
LOG4J_SERVER = """# side-by-side.py: brokers log INFO to ${sys:kafka.logs.dir}/server.log
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = ${sys:kafka.logs.dir}/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
logger.state.name = state.change.logger
logger.state.level = WARN
"""


def bench_sources_hash():
    h = hashlib.sha256()
    for d, _, files in sorted(os.walk(BENCH_POM_DIR)):
        for f in sorted(files):
            if f.endswith((".xml", ".java")):
                p = os.path.join(d, f)
                h.update(os.path.relpath(p, BENCH_POM_DIR).encode())
                with open(p, "rb") as fh:
                    h.update(fh.read())
    h.update((LOG4J_TOOLS + LOG4J_SERVER).encode())
    return h.hexdigest()[:16]


def fetch():
    """Kafka's jars and the helpers in the cache (built once per version of tests/kafka-bench); returns the cache dir."""
    kdir = cache_dir()
    os.makedirs(kdir, exist_ok=True)
    marker = os.path.join(kdir, ".fetched")
    want = bench_sources_hash()
    with open(os.path.join(kdir, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)            # two runs share the cache: one fetches, the other waits
        if os.path.exists(marker) and read(marker).strip() == want:
            return kdir
        if shutil.which(MVN) is None:
            raise StepFailed("mvn not found (set MVN): it is needed once, to fetch Kafka %s from Maven Central" % KAFKA_VERSION)
        log("fetching Kafka %s from Maven Central and building the helpers into %s" % (KAFKA_VERSION, kdir))
        for sub in ("libs", "connect-libs", "build"):
            shutil.rmtree(os.path.join(kdir, sub), ignore_errors=True)
        out = os.path.join(kdir, "fetch.log")
        rc = run([MVN, "-B", "-ntp", "-q", "-Dstyle.color=never", "-f", os.path.join(BENCH_POM_DIR, "pom.xml"),
                  "-Dkafka.bench.dir=" + kdir, "package"], out, out, timeout=1800)
        jar = os.path.join(kdir, "libs", "kafka_2.13-%s.jar" % KAFKA_VERSION)
        if rc != 0 or not os.path.isfile(jar) or not os.path.isfile(helpers_jar(kdir)):
            raise StepFailed("mvn could not fetch Kafka %s (exit %s):\n%s" % (KAFKA_VERSION, rc, tail(out, 30)))
        # Kafka Connect and MirrorMaker 2 for KafkaConnectIT and MirrorMakerIT, on their own classpath (see its pom)
        rc = run([MVN, "-B", "-ntp", "-q", "-Dstyle.color=never", "-f", os.path.join(BENCH_POM_DIR, "connect", "pom.xml"),
                  "-Dkafka.bench.dir=" + kdir, "package"], out, out, timeout=1800)
        if rc != 0 or not any(f.startswith("connect-mirror-") for f in os.listdir(os.path.join(kdir, "connect-libs"))):
            raise StepFailed("mvn could not fetch Kafka Connect (exit %s):\n%s" % (rc, tail(out, 30)))
        with open(os.path.join(kdir, "log4j2-tools.properties"), "w") as f:
            f.write(LOG4J_TOOLS)
        with open(os.path.join(kdir, "log4j2-server.properties"), "w") as f:
            f.write(LOG4J_SERVER)
        with open(marker, "w") as f:
            f.write(want + "\n")
        log("fetched %d jars" % len(os.listdir(os.path.join(kdir, "libs"))))
    return kdir


def helpers_jar(kdir):
    return os.path.join(kdir, "build", "kafka-bench-helpers.jar")


# ----------------------------------------------------------------------------------------------- Kafka rounds

class KafkaTools:
    """Kafka's own tools and the bench helpers, pointed at a bootstrap: an Apache Kafka cluster's, or the Kafka
    listeners of a Raftline cluster (--protocol kafka)."""
    def __init__(self, kdir, work, bootstrap):
        self.kdir, self.work, self.bootstrap = kdir, work, bootstrap
        self.cp = os.path.join(kdir, "libs", "*") + os.pathsep + helpers_jar(kdir)

    def java(self, jvm, log4j, *args):
        return [JAVA] + jvm + ["-Dlog4j2.configurationFile=" + os.path.join(self.kdir, log4j), "-cp", self.cp] + list(args)

    def tool(self, name, *args, timeout=None):
        """Runs a Kafka tool or helper class; returns (exit code, stdout path, stderr path)."""
        out = os.path.join(self.work, name.rsplit(".", 1)[-1] + "-%d.out" % time.monotonic_ns())
        rc = run(self.java(TOOL_JVM, "log4j2-tools.properties", name, *args), out, out + ".err", timeout=timeout)
        return rc, out, out + ".err"

    def admin(self, *args, timeout=None):
        rc, out, err = self.tool("io.raftline.kafkabench.BenchAdmin", args[0], self.bootstrap, *args[1:], timeout=timeout)
        return rc, last_json(read(out)), out, err

    def create_topic(self, topic, w):
        cfg = ["min.insync.replicas=%d" % w.min_isr] if w.min_isr else []
        rc, d, out, err = self.admin("create", topic, str(w.partitions), str(w.rf), "60000", *cfg, timeout=90)
        if rc != 0:
            raise StepFailed("could not create topic %s: %s %s" % (topic, d, tail(err)))

    def producer_perf(self, topic, records, props, rate=None, warmup=0):
        args = ["org.apache.kafka.tools.ProducerPerformance", "--bootstrap-server", self.bootstrap, "--topic", topic,
                "--num-records", str(records), "--record-size", str(RECORD_SIZE), "--throughput", str(rate or -1)]
        if warmup:
            args += ["--warmup-records", str(warmup)]
        if props:
            args += ["--command-property"] + ["%s=%s" % kv for kv in props.items()]
        rc, out, err = self.tool(*args)
        if rc != 0:
            raise StepFailed("ProducerPerformance failed (exit %d):\n%s%s" % (rc, tail(out), tail(err)))
        return read(out)


class KafkaCluster(KafkaTools):
    def __init__(self, kdir, work, nodes, base_port):
        self.n, self.base = nodes, base_port
        KafkaTools.__init__(self, kdir, work, ",".join("127.0.0.1:%d" % (base_port + 10 * i) for i in range(nodes)))
        self.procs = {}

    def port(self, i):
        return self.base + 10 * (i - 1)

    def controller_port(self, i):
        return self.port(i) + 1

    def node_dir(self, i):
        return os.path.join(self.work, "node-%d" % i)

    def write_config(self, i):
        d = self.node_dir(i)
        os.makedirs(os.path.join(d, "logs"), exist_ok=True)
        if self.n == 1:
            quorum = "controller.quorum.bootstrap.servers=127.0.0.1:%d" % self.controller_port(1)
        else:
            quorum = "controller.quorum.voters=" + ",".join(
                "%d@127.0.0.1:%d" % (j, self.controller_port(j)) for j in range(1, self.n + 1))
        rf = min(3, self.n)
        listeners = "PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d" % (self.port(i), self.controller_port(i))
        lines = [
            "process.roles=broker,controller", "node.id=%d" % i, quorum,
            "listeners=" + listeners, "advertised.listeners=" + listeners,
            "controller.listener.names=CONTROLLER", "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "log.dirs=" + os.path.join(d, "data"),
            "# the values of the stock config/server.properties of Kafka's distribution",
            "num.network.threads=3", "num.io.threads=8", "socket.send.buffer.bytes=102400",
            "socket.receive.buffer.bytes=102400", "socket.request.max.bytes=104857600", "num.partitions=1",
            "num.recovery.threads.per.data.dir=1", "offsets.topic.replication.factor=%d" % rf,
            "share.coordinator.state.topic.replication.factor=%d" % rf, "share.coordinator.state.topic.min.isr=1",
            "transaction.state.log.replication.factor=%d" % rf, "transaction.state.log.min.isr=1",
            "log.retention.hours=168", "log.segment.bytes=1073741824", "log.retention.check.interval.ms=300000",
            "group.initial.rebalance.delay.ms=0", ""]
        with open(os.path.join(d, "server.properties"), "w") as f:
            f.write("\n".join(lines))

    def start_node(self, i):
        d = self.node_dir(i)
        self.procs[i] = start(self.java(SERVER_JVM, "log4j2-server.properties", "-Dkafka.logs.dir=" + os.path.join(d, "logs"),
                                        "kafka.Kafka", os.path.join(d, "server.properties")),
                              os.path.join(d, "logs", "stdout.log"))

    def kill_node(self, i):
        """SIGKILL, through our own handle of that broker."""
        self.procs[i].kill()
        self.procs[i].wait()

    def node_logs(self):
        return "".join("--- node %d server.log (tail)\n%s" % (i, tail(os.path.join(self.node_dir(i), "logs", "server.log"), 15))
                       for i in sorted(self.procs))

    def up(self):
        for i in range(1, self.n + 1):
            for p in (self.port(i), self.controller_port(i)):
                if port_in_use(p):
                    raise StepFailed("port %d on 127.0.0.1 is in use (another run? set KAFKA_BENCH_BASE_PORT)" % p)
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode().replace("-", "A")
        for i in range(1, self.n + 1):
            self.write_config(i)
            extra = ["--standalone"] if self.n == 1 else []
            out = os.path.join(self.node_dir(i), "logs", "format.log")
            rc = run(self.java(["-Xmx256m"], "log4j2-tools.properties", "kafka.tools.StorageTool", "format", "-t", cluster_id,
                               "-c", os.path.join(self.node_dir(i), "server.properties"), *extra), out, out, timeout=120)
            if rc != 0:
                raise StepFailed("kafka storage format failed:\n" + tail(out))
        for i in range(1, self.n + 1):
            self.start_node(i)
        for i in range(1, self.n + 1):
            wait_until("Kafka node %d to listen on %d" % (i, self.port(i)), 120, lambda: port_in_use(self.port(i)),
                       alive=lambda: self.procs[i].poll() is None, interval=0.2)
        rc, d, out, err = self.admin("ready", str(self.n), "120000", timeout=150)
        if rc != 0:
            raise StepFailed("Kafka cluster not ready: %s %s\n%s" % (d, tail(err), self.node_logs()))
        log("Kafka: %d node(s) up at %s (%s)" % (self.n, self.bootstrap, json.dumps(d)))

    def down(self):
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for p in self.procs.values():
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = {}


PRODUCER_SUMMARY = re.compile(
    r"(\d+)(?: steady state)? records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency, "
    r"(\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99.9th")


def drop_page_cache():
    """Writes dirty pages out and drops the clean ones, so a consume reads its log from the disk (needs root)."""
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    except OSError as e:
        raise StepFailed("cannot drop the page cache (%s): the cold rows need root" % e)
    log("page cache dropped")


def kafka_tools_workload(cluster, w, records, rnd, row):
    """A produce, consume, e2e or topics workload run with Kafka's own tools (a KafkaTools) against its bootstrap."""
    if w.kind == "produce":
        cluster.create_topic("bench", w)
        m = PRODUCER_SUMMARY.findall(cluster.producer_perf("bench", records, w.producer, w.rate, w.warmup))
        if len(m) < (2 if w.warmup else 1):
            raise StepFailed("no summary line%s in ProducerPerformance's output" % (" and steady-state line" if w.warmup else ""))
        # with a warm-up the last summary is the steady state's ("N steady state records sent, ..."), the one before
        # it the whole run's
        n, rps, mbs, avg, mx, p50, p95, p99, p999 = m[-1]
        sent = int(m[-2][0]) if w.warmup else int(n)
        row.update(records=int(n), recordsPerSec=round(float(rps), 1), mbPerSec=round(float(mbs), 2),
                   latencyMs=dict(avg=float(avg), p50=float(p50), p95=float(p95), p99=float(p99),
                                  p999=float(p999), max=float(mx)), errors=records - sent)
    elif w.kind == "consume":
        cluster.create_topic("bench", w)
        log("writing %d records to read back" % records)
        cluster.producer_perf("bench", records, dict(TUNED, acks="all", **w.producer))
        if w.cold:
            drop_page_cache()
        rc, out, err = cluster.tool("org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", cluster.bootstrap,
                                    "--topic", "bench", "--num-records", str(records), "--timeout", "30000",
                                    "--group", "side-by-side-%d-%d" % (rnd, os.getpid()))
        rows = [l for l in read(out).splitlines() if re.match(r"^\d{4}-\d\d-\d\d", l)]
        if rc != 0 or not rows:
            raise StepFailed("ConsumerPerformance failed (exit %d):\n%s%s" % (rc, tail(out), tail(err)))
        # start.time, end.time, MB, MB.sec, nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
        f = [x.strip() for x in rows[-1].split(",")]
        row.update(records=int(f[4]), msgsPerSec=round(float(f[5]), 1), mbPerSec=round(float(f[3]), 2),
                   fetchMsgsPerSec=round(float(f[9]), 1), fetchMbPerSec=round(float(f[8]), 2),
                   rebalanceMs=int(f[6]), fetchMs=int(f[7]))
    elif w.kind == "e2e":
        cluster.create_topic("e2e", w)
        rc, out, err = cluster.tool("org.apache.kafka.tools.EndToEndLatency", "--bootstrap-server", cluster.bootstrap,
                                    "--topic", "e2e", "--num-records", str(records), "--producer-acks", "all",
                                    "--record-size", str(RECORD_SIZE))
        text = read(out)
        a = re.search(r"Avg latency: ([\d.]+) ms", text)
        p = re.search(r"Percentiles: 50th = (\d+), 99th = (\d+), 99.9th = (\d+)", text)
        if rc != 0 or not (a and p):
            raise StepFailed("EndToEndLatency failed (exit %d):\n%s%s" % (rc, tail(out), tail(err)))
        row.update(records=records, e2eAvgMs=round(float(a.group(1)), 3), e2eP50Ms=float(p.group(1)),
                   e2eP99Ms=float(p.group(2)), e2eP999Ms=float(p.group(3)))
    elif w.kind == "topics":
        rc, d, out, err = cluster.admin("create-seq", "topic-", str(records), str(w.partitions), str(w.rf), str(w.clients))
        if rc != 0 or not d or "topicsPerSec" not in d:
            raise StepFailed("topic creation failed: %s\n%s" % (d, tail(err)))
        row.update(d)


def connections_probe(tools, broker_pid, records, row):
    """The connections workload: Kafka's helper ConnectionsProbe against the first broker of tools' bootstrap."""
    rc, out, err = tools.tool("io.raftline.kafkabench.ConnectionsProbe", tools.bootstrap, str(records), str(broker_pid),
                              timeout=600)
    d = last_json(read(out), "kbPerConnection")
    if rc != 0 or d is None:
        raise StepFailed("ConnectionsProbe failed (exit %d):\n%s%s" % (rc, tail(out), tail(err)))
    row.update(d)


def heap_after_gc_mb(pid):
    """The heap in use right after a full collection, in MiB: jcmd GC.class_histogram (a heap inspection, which
    collects the whole heap stop-the-world; GC.run would not on Kafka's side, whose -XX:+ExplicitGCInvokesConcurrent
    makes it start a concurrent cycle and return), then GC.heap_info's used figures."""
    for cmd in ("GC.class_histogram", "GC.heap_info"):
        r = subprocess.run(["jcmd", str(pid), cmd], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise StepFailed("jcmd %d %s failed: %s" % (pid, cmd, r.stdout + r.stderr))
    # G1: " garbage-first heap   total 1048576K, used 40960K [...]"; Serial/Parallel: one "used" per generation
    lines = [l for l in r.stdout.splitlines() if re.search(r"(heap|generation)\s+total \d+K, used \d+K", l)]
    if not lines:
        raise StepFailed("no heap figure in jcmd %d GC.heap_info:\n%s" % (pid, r.stdout))
    heap = [l for l in lines if "heap" in l]
    return round(sum(int(re.search(r"used (\d+)K", l).group(1)) for l in (heap or lines)) / 1024, 1)


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        return round(int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1)) / 1024, 1)


def scale_run(tools, w, records, row, pids, controller, kill, restart):
    """The scale workload on either system, through Kafka's Admin API (tools: BenchAdmin at the cluster's Kafka
    bootstrap); pids: node id -> pid; controller: the active controller's id, or None where DescribeQuorum answers;
    kill(node) / restart(node) SIGKILL and start one node."""
    topics = records // w.partitions
    rc, d, _, err = tools.admin("create-many", "scale-", str(topics), str(w.partitions), str(w.rf), "900000",
                                timeout=1000)
    if rc != 0 or not d or "settleMs" not in d:
        raise StepFailed("creating %d partitions failed: %s\n%s" % (records, d, tail(err)))
    log("%d partitions created in %d ms, every ISR full after %d ms, every replica's log on its broker after %d ms"
        % (d["partitions"], d["createMs"], d["settleMs"], d["logsMs"]))
    row.update(partitions=d["partitions"], createMs=d["createMs"], settleMs=d["settleMs"], logsMs=d["logsMs"])
    row.update(heapAfterGcMb=max(heap_after_gc_mb(p) for p in pids.values()),
               rssMb=max(rss_mb(p) for p in pids.values()))
    produce_spread(tools, row)
    metadata_propagation(tools, w, row)
    ctrl = controller()
    rc, v, _, err = tools.admin("victim", "scale-*", "leader-not-controller", *([str(ctrl)] if ctrl is not None else []),
                                timeout=120)
    if rc != 0 or not v:
        raise StepFailed("could not pick the node to kill: %s %s" % (v, tail(err)))
    victim = v["victim"]
    t_kill = int(time.time() * 1000)
    kill(victim)
    log("SIGKILL node %d (controller %d, leads %d partitions)" % (victim, v["controller"], v["victimLeads"]))
    # at RF1 its partitions have no other replica: nothing moves, they wait for its restart
    rc, moved, _, _ = (tools.admin("wait-leaders", "scale-*", str(victim), str(t_kill), "600000", timeout=700)
                       if w.rf > 1 else (1, None, None, None))
    t_restart = int(time.time() * 1000)
    restart(victim)
    rc2, rejoin, _, _ = tools.admin("wait-isr", "scale-*", str(victim), str(t_restart), "900000", timeout=1000)
    row.update(victim=victim, victimLeads=v["victimLeads"], leadersMovedMs=(moved or {}).get("ms") if rc == 0 else None,
               rejoinIsrMs=(rejoin or {}).get("ms") if rc2 == 0 else None)
    # the controller's failover, the whole cluster back and its image full: kill the active controller; until a
    # topic can be created again (a new controller acts on the image) and until the partitions it led moved
    ctrl = controller()
    rc, v, _, err = tools.admin("victim", "scale-*", "controller", *([str(ctrl)] if ctrl is not None else []),
                                timeout=120)
    if rc != 0 or not v:
        raise StepFailed("could not find the controller: %s %s" % (v, tail(err)))
    t_kill = int(time.time() * 1000)
    kill(v["victim"])
    log("SIGKILL the active controller, node %d (leads %d partitions)" % (v["victim"], v["victimLeads"]))
    rc, c, _, err = tools.admin("wait-control", "scale-*", str(v["victim"]), str(t_kill), "600000", timeout=700)
    if rc != 0 or not c:
        raise StepFailed("the controller's failover did not complete: %s %s" % (c, tail(err)))
    log("a topic created again after %d ms, the controller's leaderships moved after %d ms"
        % (c["createMs"], c["leadersMovedMs"]))
    row.update(controllerVictim=v["victim"], controllerLeads=v["victimLeads"], controlCreateMs=c["createMs"],
               controlLeadersMovedMs=c["leadersMovedMs"] if w.rf > 1 else None)


def produce_spread(tools, row):
    """Produce spread over every partition of the scale row, a default batch's worth (16 KiB) to each in turn, on the
    full cluster: 500,000 records of 1 KiB, sending stopped after 120 s."""
    records = env_int("SCALE_PRODUCE_RECORDS", 500_000)
    rc, d, _, err = tools.admin("produce-spread", "scale-*", str(records), "1024", "120000", timeout=STEP_TIMEOUT)
    if rc != 0 or not d or "recordsPerSec" not in d:
        raise StepFailed("producing over every partition failed: %s %s" % (d, tail(err)))
    log("%d records over %d partitions: %.0f records/s, ack p99 %.0f ms, %d errors"
        % (d["records"], d["partitions"], d["recordsPerSec"], d["latencyMs"]["p99"], d["errors"]))
    row.update(spreadRecordsPerSec=d["recordsPerSec"], spreadLatencyMs=d["latencyMs"], spreadErrors=d["errors"])


def metadata_propagation(tools, w, row):
    """50 topics of 1 partition created one after another onto the full cluster, each timed from the createTopics
    call until every broker's own Metadata answer shows it led."""
    rc, d, _, err = tools.admin("propagation", "probe-", "50", str(w.rf), timeout=STEP_TIMEOUT)
    if rc != 0 or not d or "propagationMs" not in d:
        raise StepFailed("timing metadata propagation failed: %s %s" % (d, tail(err)))
    log("metadata propagation to all %d brokers: p50 %.1f ms, p99 %.1f ms (the create call p50 %.1f ms)"
        % (d["brokers"], d["propagationMs"]["p50"], d["propagationMs"]["p99"], d["createMs"]["p50"]))
    row.update(propagationMs=d["propagationMs"], probeCreateMs=d["createMs"])


def kafka_scale(cluster, w, records, row):
    scale_run(cluster, w, records, row, {i: p.pid for i, p in cluster.procs.items()}, lambda: None, cluster.kill_node,
              cluster.start_node)


def kafka_round(w, records, rnd, kdir):
    work = tempfile.mkdtemp(prefix="side-by-side-kafka.")
    cluster = KafkaCluster(kdir, work, w.nodes, env_int("KAFKA_BENCH_BASE_PORT", 19092))
    row = {"system": KAFKA_SYSTEM, "workload": w.name, "round": rnd}
    log("Kafka round %d: %s, %d records/items, in %s" % (rnd, w.name, records, work))
    try:
        cluster.up()
        if w.kind == "failover":
            kafka_failover(cluster, w, records, row)
        elif w.kind == "connections":
            connections_probe(cluster, cluster.procs[1].pid, records, row)
        elif w.kind == "scale":
            kafka_scale(cluster, w, records, row)
        else:
            kafka_tools_workload(cluster, w, records, rnd, row)
        return row
    except StepFailed as e:
        raise StepFailed("Kafka round %d of %s: %s" % (rnd, w.name, e))
    finally:
        cluster.down()
        keep_logs(work, "kafka-%s-%d" % (w.name, rnd))
        shutil.rmtree(work, ignore_errors=True)


def kafka_failover(cluster, w, records, row):
    cluster.create_topic("fo", w)
    rc, v, out, err = cluster.admin("victim", "fo", w.victim, timeout=60)
    if rc != 0 or not v:
        raise StepFailed("could not pick the node to kill: %s %s" % (v, tail(err)))
    victim = v["victim"]
    log("victim (%s): node %d %s; producing %d rec/s for %d s" % (w.victim, victim, json.dumps(v), FAILOVER_RATE,
                                                                    records // FAILOVER_RATE))
    probe_out = os.path.join(cluster.work, "probe.out")
    probe = start(cluster.java(TOOL_JVM, "log4j2-tools.properties", "io.raftline.kafkabench.FailoverProbe",
                               cluster.bootstrap, "fo", str(FAILOVER_RATE), str(records), str(RECORD_SIZE)),
                  os.path.join(cluster.work, "probe.log"))
    # the probe's JSON is its last stdout line; stdout and stderr share probe.log
    try:
        wait_until("the failover producer to start", 60, lambda: "start_epoch_ms=" in read(os.path.join(cluster.work, "probe.log")),
                   alive=lambda: probe.poll() is None, interval=0.1)
        time.sleep(FAILOVER_KILL_AFTER_S)
        if probe.poll() is not None:
            raise StepFailed("the failover producer exited early:\n" + tail(os.path.join(cluster.work, "probe.log")))
        t_kill = int(time.time() * 1000)
        cluster.kill_node(victim)
        log("SIGKILL Kafka node %d" % victim)
        rc, new_leader, _, _ = cluster.admin("wait-leaders", "fo", str(victim), str(t_kill), "120000", timeout=150)
        if rc != 0:
            log("warning: no new leader seen within 120 s: %s" % new_leader)
        try:
            probe.wait(timeout=records / FAILOVER_RATE + 300)
        except subprocess.TimeoutExpired:
            raise StepFailed("the failover producer did not finish")
        log("producer done; restarting node %d" % victim)
        t_restart = int(time.time() * 1000)
        cluster.start_node(victim)
        rc, rejoin, _, _ = cluster.admin("wait-isr", "fo", str(victim), str(t_restart), "180000", timeout=210)
        if rc != 0:
            log("warning: node %d not back in every ISR within 180 s" % victim)
    finally:
        stop(probe, 5)
    p = last_json(read(os.path.join(cluster.work, "probe.log")), "noAckGapMs")
    if p is None:
        raise StepFailed("the failover producer printed no result:\n" + tail(os.path.join(cluster.work, "probe.log")))
    row.update(victim=victim, victimWasController=victim == v["controller"], controllerBefore=v["controller"],
               controllerAfter=(new_leader or {}).get("controller"), victimLeadPartitions=v["victimLeads"],
               records=p["records"], acked=p["acked"], errors=p["errors"], ratePerSec=p["ratePerSec"],
               noAckGapMs=p["noAckGapMs"], gapStartAfterKillMs=p["gapStartEpochMs"] - t_kill,
               newLeaderMs=(new_leader or {}).get("ms"), rejoinIsrMs=(rejoin or {}).get("ms"), latencyMs=p["latencyMs"])
    if p.get("firstError"):
        row["firstError"] = p["firstError"]


# ----------------------------------------------------------------------------------------------- Raftline rounds

class RaftlineCluster:
    def __init__(self, checkout, work, nodes, base_port):
        self.checkout, self.work, self.n, self.base = checkout, work, nodes, base_port
        self.dir = os.path.join(work, "cluster")
        self.dev = None
        self.restarted = None
        self.bootstrap = None
        self.kafka_bootstrap = None
        self.node_pids = {}
        self.env = dict(os.environ)
        self.env.setdefault("RAFTLINE_HEAP_OPTS", "-Xmx1g -Xms1g")

    def cli(self, name, *args, timeout=None):
        """./raftline ARGS; returns (exit code, stdout text, stderr path)."""
        out = os.path.join(self.work, "%s-%d.out" % (name, time.monotonic_ns()))
        rc = run([os.path.join(self.checkout, "raftline")] + list(args), out, out + ".err", timeout=timeout,
                 cwd=self.checkout, env=self.env)
        return rc, read(out), out + ".err"

    def up(self):
        for i in range(1, self.n + 1):
            for p in range(self.base + 10 * (i - 1), self.base + 10 * (i - 1) + 5):
                if port_in_use(p):
                    raise StepFailed("port %d on 127.0.0.1 is in use (another run? set RAFTLINE_BENCH_BASE_PORT)" % p)
        dev_log = os.path.join(self.work, "dev.log")
        self.dev = start([os.path.join(self.checkout, "raftline"), "dev", "--nodes", str(self.n), "--dir", self.dir,
                          "--base-port", str(self.base)], dev_log, cwd=self.checkout, env=self.env, gentle=True)
        t0 = time.monotonic()
        cluster_json = os.path.join(self.dir, "cluster.json")

        def written():
            try:
                return bool(json.loads(read(cluster_json)).get("bootstrap"))
            except (OSError, ValueError):
                return False
        try:
            wait_until("%s" % cluster_json, 300, written, alive=lambda: self.dev.poll() is None)
        except StepFailed as e:
            raise StepFailed("%s\n%s" % (e, tail(dev_log, 30)))
        c = json.loads(read(cluster_json))
        self.bootstrap = c["bootstrap"]
        self.kafka_bootstrap = c.get("kafkaBootstrap")
        self.node_pids = {n["id"]: n["pid"] for n in c["nodes"]}
        if len(self.node_pids) != self.n:
            raise StepFailed("cluster.json lists %d nodes, not %d" % (len(self.node_pids), self.n))

        def active():
            rc, out, _ = self.cli("brokers", "brokers", "list", "--bootstrap-server", self.bootstrap, "--output", "json",
                                  timeout=60)
            d = last_json(out, "brokers") if rc == 0 else None
            return d is not None and sum(b.get("state") == "active" for b in d["brokers"]) >= self.n
        wait_until("%d active brokers" % self.n, 120, active, alive=lambda: self.dev.poll() is None, interval=0.5)
        log("Raftline: %d node(s) up at %s in %.0f s" % (self.n, self.bootstrap, time.monotonic() - t0))

    def down(self):
        stop(self.restarted, 30)
        stop(self.dev, 60)          # dev stops its nodes on SIGTERM
        for nid, pid in self.node_pids.items():
            if self.runs_node(nid, pid):
                log("warning: node %d (pid %d) outlived raftline dev; killing it" % (nid, pid))
                os.kill(pid, signal.SIGKILL)

    def runs_node(self, nid, pid):
        """Whether pid is still that node's JVM (its command line names the node's config), not a reused pid."""
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmdline = f.read().split(b"\0")
            with open("/proc/%d/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        config = os.path.join(self.dir, "node-%d" % nid).encode()
        return state != "Z" and any(config in a for a in cmdline)

    def controller_id(self):
        """The active controller's node id (raftline quorum status), or None when that fails."""
        rc, out, _ = self.cli("quorum", "quorum", "status", "--bootstrap-server", self.bootstrap, "--output", "json",
                              timeout=60)
        q = last_json(out, "leaderId") if rc == 0 else None
        return q["leaderId"] if q else None

    def kill_node(self, nid):
        """SIGKILL of node nid, after checking that its pid is still that node's JVM; returns the pid."""
        pid = self.node_pids[nid]
        if not self.runs_node(nid, pid):
            raise StepFailed("node %d (pid %d) is not running before the kill" % (nid, pid))
        os.kill(pid, signal.SIGKILL)
        return pid

    def restart_node(self, nid):
        """Starts node nid again from its config (`raftline server --config`); returns that config's path."""
        config = os.path.join(self.dir, "node-%d" % nid, "server.properties")
        self.restarted = start([os.path.join(self.checkout, "raftline"), "server", "--config", config],
                               os.path.join(self.work, "restart.log"), cwd=self.checkout, env=self.env, gentle=True)
        return config

    def kafka_listeners(self):
        """The cluster's Kafka-protocol bootstrap (its cluster.json's kafkaBootstrap)."""
        if not self.kafka_bootstrap:
            raise StepFailed("cluster.json has no kafkaBootstrap: this Raftline has no Kafka listener")
        return self.kafka_bootstrap

    def describe(self, topic):
        rc, out, _ = self.cli("describe", "topics", "describe", "--bootstrap-server", self.bootstrap, "--topic", topic,
                              "--output", "json", timeout=60)
        d = last_json(out, "topics") if rc == 0 else None
        return [p for t in d["topics"] for p in t["partitions"]] if d else None

    def create_topic(self, topic, w):
        cfg = ["--config", "min.insync.replicas=%d" % w.min_isr] if w.min_isr else []
        rc, out, err = self.cli("create", "topics", "create", "--bootstrap-server", self.bootstrap, "--topic", topic,
                                "--partitions", str(w.partitions), "--replication-factor", str(w.rf), *cfg)
        if rc != 0:
            raise StepFailed("raftline topics create %s failed:\n%s" % (topic, tail(err)))

        def full():
            ps = self.describe(topic)
            return ps is not None and len(ps) == w.partitions and all(p["leader"] >= 0 and len(p["isr"]) == w.rf for p in ps)
        wait_until("every partition of %s with a leader and a full ISR" % topic, 60, full)

    def perf(self, what, key, *args):
        rc, out, err = self.cli("perf-" + what, "perf", what, "--bootstrap-server", self.bootstrap, *args, "--output", "json")
        d = last_json(out, key)
        if rc != 0 or d is None:
            raise StepFailed("raftline perf %s failed (exit %d):\n%s%s" % (what, rc, out[-2000:], tail(err)))
        return d

    def perf_produce(self, topic, records, props, rate=None, warmup=0):
        args = ["--topic", topic, "--num-records", str(records), "--record-size", str(RECORD_SIZE),
                "--throughput", str(rate or -1)]
        if warmup:
            args += ["--warmup-records", str(warmup)]
        for k, v in props.items():
            args += ["--acks", v] if k == "acks" else ["--producer-property", "%s=%s" % (k, v)]
        return self.perf("produce", "recordsPerSec", *args)


def raftline_round(w, records, rnd, checkout, system, kdir=None, kdir_waiters=None):
    """A Raftline round: through the CLI's perf commands, or with kdir (--protocol kafka) through Kafka's own tools
    against the cluster's Kafka listeners."""
    work = tempfile.mkdtemp(prefix="side-by-side-raftline.")
    cluster = RaftlineCluster(checkout, work, w.nodes, env_int("RAFTLINE_BENCH_BASE_PORT", 29092))
    row = {"system": system, "workload": w.name, "round": rnd}
    log("Raftline round %d: %s, %d records/items, in %s%s" % (rnd, w.name, records, work,
                                                              ", with Kafka's tools" if kdir else ""))
    try:
        cluster.up()
        if kdir:
            kafka_tools_workload(KafkaTools(kdir, work, cluster.kafka_listeners()), w, records, rnd, row)
        elif w.kind == "produce":
            cluster.create_topic("bench", w)
            d = cluster.perf_produce("bench", records, w.producer, w.rate, w.warmup)
            m = d["steadyState"] if w.warmup else d    # with a warm-up, the steady state's figures
            row.update(records=m.get("records"), recordsPerSec=m["recordsPerSec"], mbPerSec=m.get("mbPerSec"),
                       latencyMs=m.get("latencyMs"), errors=d.get("errors"))
        elif w.kind == "consume":
            cluster.create_topic("bench", w)
            log("writing %d records to read back" % records)
            cluster.perf_produce("bench", records, dict(TUNED, acks="all", **w.producer))
            if w.cold:
                drop_page_cache()
            d = cluster.perf("consume", "msgsPerSec", "--topic", "bench", "--messages", str(records),
                             "--group", "side-by-side-%d-%d" % (rnd, os.getpid()))
            row.update({k: d.get(k) for k in ("records", "msgsPerSec", "mbPerSec", "fetchMsgsPerSec", "fetchMbPerSec",
                                              "rebalanceMs", "fetchMs")})
        elif w.kind == "e2e":
            cluster.create_topic("e2e", w)
            d = cluster.perf("e2e", "e2eAvgMs", "--topic", "e2e", "--num-records", str(records),
                             "--record-size", str(RECORD_SIZE))
            row.update({k: d.get(k) for k in ("records", "e2eAvgMs", "e2eP50Ms", "e2eP99Ms", "e2eP999Ms")})
        elif w.kind == "topics":
            d = cluster.perf("topics", "topicsPerSec", "--count", str(records), "--partitions", str(w.partitions),
                             "--replication-factor", str(w.rf), "--clients", str(w.clients))
            row.update(topics=d.get("topics"), partitions=w.partitions, replicationFactor=w.rf, clients=w.clients,
                       topicsPerSec=d["topicsPerSec"], perCallMs=d.get("perCallMs"))
        elif w.kind == "failover":
            raftline_failover(cluster, w, records, row, kdir_waiters)
        elif w.kind == "connections":
            connections_probe(KafkaTools(kdir_waiters, work, cluster.kafka_listeners()), cluster.node_pids[1], records, row)
        elif w.kind == "scale":
            raftline_scale(cluster, KafkaTools(kdir_waiters, work, cluster.kafka_listeners()), w, records, row)
        return row
    except StepFailed as e:
        raise StepFailed("Raftline round %d of %s: %s" % (rnd, w.name, e))
    finally:
        cluster.down()
        keep_logs(work, "raftline-%s-%d" % (w.name, rnd))
        shutil.rmtree(work, ignore_errors=True)


def raftline_scale(cluster, tools, w, records, row):
    def controller():
        ctrl = cluster.controller_id()
        if ctrl is None:
            raise StepFailed("raftline quorum status failed")
        return ctrl
    scale_run(tools, w, records, row, dict(cluster.node_pids), controller, cluster.kill_node, cluster.restart_node)


class AckTimer:
    """Feeds `raftline produce --report-acks` one record per line at a fixed rate and times every ack line."""

    def __init__(self, cmd, cwd, env, rate, records, size, log_path):
        self.rate, self.records, self.size = rate, records, size
        self.sched = [0.0] * (records + 1)
        self.acks, self.lat, self.errors, self.first_error = [], [], 0, ""
        self.warm = threading.Event()
        self.err_log = open(log_path, "wb")
        self.proc = subprocess.Popen(bound(cmd), cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0, start_new_session=True)
        self.readers = [threading.Thread(target=self._read_acks, daemon=True),
                        threading.Thread(target=self._read_errors, daemon=True)]
        for t in self.readers:
            t.start()
        self.start = self.start_wall = None

    def line(self, seq):        # exactly size bytes of value: the sequence number, then padding
        head = b"%012d " % seq
        return head + b"x" * (self.size - len(head)) + b"\n"

    def _read_acks(self):       # partition TAB offset TAB the input line
        # Buffered: the pipe is unbuffered (bufsize=0, so that every fed line goes out at once), and a raw pipe's
        # readline reads one byte per system call, which held the acks (and, through the GIL, the feeder) to about
        # 2,000 lines/s: the Raftline failover rows ran with a backlog of a minute.
        for raw in io.BufferedReader(self.proc.stdout, 1 << 16):
            t = time.monotonic()
            parts = raw.split(b"\t", 2)
            if len(parts) < 3:
                continue
            try:
                seq = int(parts[2][:12])
            except ValueError:
                continue
            if seq == 0:
                self.warm.set()
            else:
                self.acks.append(t)
                self.lat.append(t - self.sched[seq])

    def _read_errors(self):     # "error: REASON: LINE" per record that finally failed
        for raw in io.BufferedReader(self.proc.stderr, 1 << 16):
            self.err_log.write(raw[:500])
            if raw.startswith(b"error:"):
                self.errors += 1
                if not self.first_error:
                    self.first_error = raw[:200].decode(errors="replace").strip()

    def run(self, started):
        self.proc.stdin.write(self.line(0))   # warm-up: the schedule starts once this one is acknowledged
        if not self.warm.wait(150):
            raise StepFailed("no ack for the warm-up record within 150 s")
        self.start, self.start_wall = time.monotonic(), time.time()
        started.set()
        for i in range(1, self.records + 1):
            self.sched[i] = self.start + (i - 1) / self.rate
            delay = self.sched[i] - time.monotonic()
            if delay > 0.0005:
                time.sleep(delay)
            self.proc.stdin.write(self.line(i))
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=300)
        time.sleep(0.2)
        return rc

    def result(self):
        acks = sorted(self.acks)
        gap, gs = 0.0, self.start
        for a, b in zip(acks, acks[1:]):
            if b - a > gap:
                gap, gs = b - a, a
        lat = sorted(self.lat)

        def q(p):
            return round(lat[min(len(lat) - 1, int(len(lat) * p))] * 1000, 1) if lat else None
        return dict(records=self.records, acked=len(acks), errors=self.errors, ratePerSec=self.rate,
                    noAckGapMs=round(gap * 1000, 1), gapStartEpochMs=int((self.start_wall + gs - self.start) * 1000),
                    latencyMs=dict(avg=round(sum(lat) / len(lat) * 1000, 1) if lat else None, p50=q(0.5), p99=q(0.99),
                                   p999=q(0.999), max=round(lat[-1] * 1000, 1) if lat else None),
                    firstError=self.first_error)

    def close(self):
        stop(self.proc, 10)
        for t in self.readers:     # they end when the process's pipes close
            t.join(timeout=10)
        self.err_log.close()


def raftline_failover(cluster, w, records, row, kdir=None):
    """kdir: Kafka's helpers, whose BenchAdmin then times the new leader and the rejoin through the cluster's Kafka
    listeners exactly as on Kafka's side (else one `raftline topics describe` JVM per poll, about a second each)."""
    waiters = KafkaTools(kdir, cluster.work, cluster.kafka_bootstrap) if kdir and cluster.kafka_bootstrap else None
    cluster.create_topic("fo", w)
    ctrl = cluster.controller_id()
    ps = cluster.describe("fo")
    if ctrl is None or ps is None:
        raise StepFailed("raftline quorum status / topics describe failed")
    ps.sort(key=lambda p: p["partition"])
    if w.victim == "controller":
        victim = ctrl
    else:
        victim = next((p["leader"] for p in ps if p["leader"] >= 0 and p["leader"] != ctrl), -1)
    if victim not in cluster.node_pids:
        raise StepFailed("no node to kill for policy %s (controller %s)" % (w.victim, ctrl))
    leads = sum(p["leader"] == victim for p in ps)
    log("victim (%s): node %d (controller %d, leads %d partitions); producing %d rec/s for %d s"
        % (w.victim, victim, ctrl, leads, FAILOVER_RATE, records // FAILOVER_RATE))
    timer = AckTimer([os.path.join(cluster.checkout, "raftline"), "produce", "--bootstrap-server", cluster.bootstrap,
                      "--topic", "fo", "--acks", "all", "--report-acks", "--producer-property", "enable.idempotence=true"],
                     cluster.checkout, cluster.env, FAILOVER_RATE, records, RECORD_SIZE,
                     os.path.join(cluster.work, "probe.err"))
    started, outcome = threading.Event(), {}

    def feed():
        try:
            outcome["rc"] = timer.run(started)
        except BaseException as e:    # reported below, in the main thread
            outcome["error"] = e
    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        wait_until("the first ack of the failover producer", 160, started.is_set,
                   alive=lambda: "error" not in outcome and timer.proc.poll() is None, interval=0.1)
        time.sleep(FAILOVER_KILL_AFTER_S)
        if timer.proc.poll() is not None:
            raise StepFailed("the failover producer exited early:\n" + tail(os.path.join(cluster.work, "probe.err")))
        t_kill = int(time.time() * 1000)
        pid = cluster.kill_node(victim)
        log("SIGKILL Raftline node %d (pid %d)" % (victim, pid))
        new_leader_ms = poll_ms = None
        if waiters:
            rc, d, _, _ = waiters.admin("wait-leaders", "fo", str(victim), str(t_kill), "120000", timeout=150)
            new_leader_ms = (d or {}).get("ms") if rc == 0 else None
        else:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                s = time.time()
                ps = cluster.describe("fo")
                if ps and all(p["leader"] >= 0 and p["leader"] != victim for p in ps):
                    e = time.time()
                    new_leader_ms, poll_ms = int(e * 1000) - t_kill, int((e - s) * 1000)
                    break
                time.sleep(0.05)
        if new_leader_ms is None:
            log("warning: no new leader seen within 120 s of the kill")
        feeder.join(timeout=records / FAILOVER_RATE + 400)
        if feeder.is_alive():
            raise StepFailed("the failover producer did not finish")
        if "error" in outcome:
            raise StepFailed("the failover producer failed: %s" % outcome["error"])
        t_restart = time.time()
        config = cluster.restart_node(victim)
        log("producer done; restarted node %d: raftline server --config %s" % (victim, config))
        rejoin_ms = None
        if waiters:
            rc, d, _, _ = waiters.admin("wait-isr", "fo", str(victim), str(int(t_restart * 1000)), "180000", timeout=210)
            rejoin_ms = (d or {}).get("ms") if rc == 0 else None
        else:
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline and cluster.restarted.poll() is None:
                ps = cluster.describe("fo")
                if ps and all(victim in p["isr"] for p in ps):
                    rejoin_ms = int((time.time() - t_restart) * 1000)
                    break
                time.sleep(0.05)
        if rejoin_ms is None:
            log("warning: node %d not back in every ISR within 180 s" % victim)
        after = cluster.controller_id()
    finally:
        timer.close()
    p = timer.result()
    row.update(victim=victim, victimWasController=victim == ctrl, controllerBefore=ctrl,
               controllerAfter=after, victimLeadPartitions=leads, records=p["records"],
               acked=p["acked"], errors=p["errors"], ratePerSec=p["ratePerSec"], noAckGapMs=p["noAckGapMs"],
               gapStartAfterKillMs=p["gapStartEpochMs"] - t_kill, newLeaderMs=new_leader_ms, newLeaderPollMs=poll_ms,
               rejoinIsrMs=rejoin_ms, latencyMs=p["latencyMs"], waiter="BenchAdmin" if waiters else "raftline-cli")
    if p["firstError"]:
        row["firstError"] = p["firstError"]


# ----------------------------------------------------------------------------------------------- summary, main

def keep_logs(work, name):
    dest_root = os.environ.get("SIDE_BY_SIDE_KEEP_LOGS")
    if not dest_root or not os.path.isdir(work):
        return
    dest = os.path.join(dest_root, name)
    for d, _, files in os.walk(work):
        for f in files:
            # logs, outputs and configs; not the data (a segment is NNNNNNNNNNNNNNNNNNNN.log on both systems)
            if f.endswith((".log", ".out", ".err", ".json", ".properties")) and not re.match(r"^\d{20}\.log$", f):
                src = os.path.join(d, f)
                target = os.path.join(dest, os.path.relpath(src, work))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy(src, target)


def pick(d, path):
    for part in path.split("."):
        d = d.get(part) if isinstance(d, dict) else None
    return d


def summary(w, rows, rl_system):
    metric, higher = HEADLINE[w.kind]
    others = OTHERS[w.kind]
    if w.kind == "produce" and w.rate:
        (metric, higher), others = RATE_HEADLINE, RATE_OTHERS

    def side(kafka, m):
        vals = [pick(r, m) for r in rows if r["system"].startswith("kafka") == kafka]
        vals = [v for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return vals, (round(statistics.median(vals), 3) if vals else None)

    def ratio(k, r, hib):
        if k is None or r is None:
            return None
        num, den = (r, k) if hib else (k, r)
        return round(num / den, 3) if den else None
    kv, km = side(True, metric)
    rv, rm = side(False, metric)
    ra = ratio(km, rm, higher)
    out = dict(summary=True, workload=w.name, rounds=max(len(kv), len(rv)), metric=metric, higherIsBetter=higher,
               kafka=dict(system=KAFKA_SYSTEM, median=km, values=kv), raftline=dict(system=rl_system, median=rm, values=rv),
               ratio=ra, ratioIs="raftline/kafka" if higher else "kafka/raftline", better=ra is not None and ra > 1)
    o = {}
    for m, hib in others:
        a, b = side(True, m)[1], side(False, m)[1]
        o[m] = dict(kafka=a, raftline=b, ratio=None if m == "errors" else ratio(a, b, hib))
    out["others"] = o
    return out


def raftline_system(checkout):
    try:
        sha = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", checkout, "diff", "--quiet", "HEAD"], capture_output=True, timeout=30).returncode
        return "raftline@%s%s" % (sha, "+dirty" if dirty else "") if sha else "raftline"
    except (OSError, subprocess.SubprocessError):
        return "raftline"


def on_sigterm(signum, frame):
    raise SystemExit(143)


def main():
    signal.signal(signal.SIGTERM, on_sigterm)
    if len(sys.argv) >= 2 and sys.argv[1] == "list":
        for w in WORKLOADS:
            print("%s\t%s" % (w.name, w.about))
        return 0
    if len(sys.argv) >= 2 and sys.argv[1] == "fetch":
        try:
            print(fetch())
            return 0
        except StepFailed as e:
            log("error: %s" % e)
            return 1
    ap = argparse.ArgumentParser(prog="side-by-side.py", usage=__doc__.split("\n\n")[1])
    ap.add_argument("workload")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--records", type=int)
    ap.add_argument("--raftline", default=REPO)
    ap.add_argument("--only", choices=["kafka", "raftline"])
    ap.add_argument("--protocol", choices=["grpc", "kafka"], default="grpc")
    a = ap.parse_args()
    w = BY_NAME.get(a.workload)
    if w is None:
        print("side-by-side.py: unknown workload '%s' (side-by-side.py list)" % a.workload, file=sys.stderr)
        return 2
    if a.rounds < 1 or (a.records is not None and a.records < 1):
        print("side-by-side.py: --rounds and --records need positive integers", file=sys.stderr)
        return 2
    records = a.records or w.records
    if a.protocol == "kafka" and w.kind == "failover":
        print("side-by-side.py: --protocol kafka is for produce, consume, e2e and topics workloads, not failover",
              file=sys.stderr)
        return 2
    if w.kind == "failover" and records < FAILOVER_RATE * (FAILOVER_KILL_AFTER_S + 25):
        print("side-by-side.py: a failover run needs --records >= %d (it must outlast the kill by 25 s)"
              % (FAILOVER_RATE * (FAILOVER_KILL_AFTER_S + 25)), file=sys.stderr)
        return 2
    checkout = os.path.abspath(a.raftline)
    rows = []
    try:
        kdir = None
        # failover rows time the new leader and the rejoin with the same waiter on both systems (BenchAdmin's, over
        # Kafka's protocol, one JVM polling every 50 ms), so Kafka's helpers are fetched for them too
        # as do the connections rows (Kafka's helper ConnectionsProbe opens them, on both systems) and the scale rows
        # (BenchAdmin creates the partitions and times them, on both systems)
        if a.only != "raftline" or a.protocol == "kafka" or w.kind in ("failover", "connections", "scale"):
            kdir = fetch()
        rl_system = raftline_system(checkout) + ("(kafka-protocol)" if a.protocol == "kafka" else "")
        if a.only != "kafka":
            if not os.access(os.path.join(checkout, "raftline"), os.X_OK):
                raise StepFailed("no executable ./raftline in %s (pass --raftline DIR, a Raftline checkout)" % checkout)
            log("building/checking Raftline once: ./raftline storage random-uuid")
            out = os.path.join(tempfile.gettempdir(), "side-by-side-build-%d.log" % os.getpid())
            try:
                if run([os.path.join(checkout, "raftline"), "storage", "random-uuid"], out, out, timeout=1800, cwd=checkout) != 0:
                    raise StepFailed("./raftline in %s does not build or run:\n%s" % (checkout, tail(out, 30)))
            finally:
                os.remove(out)
        log("%s: %d round(s) of %s, %d records/items each" % (w.name, a.rounds, a.only or "each system", records))
        for rnd in range(1, a.rounds + 1):
            if a.only != "raftline":
                rows.append(kafka_round(w, records, rnd, kdir))
                print(json.dumps(rows[-1]), flush=True)
            if a.only != "kafka":
                rows.append(raftline_round(w, records, rnd, checkout, rl_system,
                                           kdir if a.protocol == "kafka" else None, kdir))
                print(json.dumps(rows[-1]), flush=True)
    except StepFailed as e:
        log("error: %s" % e)
        return 1
    except KeyboardInterrupt:
        log("interrupted: everything this run started is stopped")
        return 130
    print(json.dumps(summary(w, rows, rl_system)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
