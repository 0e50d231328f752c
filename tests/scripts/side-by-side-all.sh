#!/usr/bin/env bash
# Runs every side-by-side workload (ROUNDS rounds, default record counts) one after another, each wrapped in
# peak-rss.py; OUT/<workload>.out|.err per workload, OUT/summary with one line per workload. Nothing else should run.
# Env: ROUNDS (3), OUT, CLONE (this checkout), TOOLS (../shared/tools), WL (the workloads).
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-side-by-side-$(date +%Y%m%d-%H%M)}
CLONE=${CLONE:-$(cd "$(dirname "$0")/../.." && pwd)}
mkdir -p "$OUT"
WL=${WL:-"produce-1n-acks1 produce-1n-acksall produce-1n-defaults produce-3n-acksall produce-3n-acks1 consume-1n consume-3n e2e-1n e2e-3n topics-3n failover-3n failover-ctrl-3n"}
for w in $WL; do
  echo "$(date +%T) $w (load $(cut -d' ' -f1 /proc/loadavg))" >> "$OUT/progress"
  python3 "$CLONE/tests/scripts/peak-rss.py" -- bash "${TOOLS:-$CLONE/../shared/tools}/side-by-side.sh" "$w" --rounds "$ROUNDS" --raftline "$CLONE" \
    > "$OUT/$w.out" 2> "$OUT/$w.err"
  grep '"summary"' "$OUT/$w.out" | python3 -c 'import sys,json
for l in sys.stdin:
  d=json.loads(l); print(d["workload"], d["metric"], d["kafka"]["median"], d["raftline"]["median"], d["ratio"], json.dumps(d.get("others",{})))' >> "$OUT/summary"
  tail -1 "$OUT/$w.out" >> "$OUT/summary"
done
echo "$(date +%T) done" >> "$OUT/progress"
