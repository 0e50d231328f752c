#!/usr/bin/env bash
# Runs every side-by-side workload (ROUNDS rounds, default record counts) one after another, each wrapped in
# peak-rss.py; OUT/<workload>.out|.err per workload, OUT/summary with one line per workload. Nothing else should run.
# Env: ROUNDS (3), OUT, CLONE (the Raftline checkout to measure; default this one), WL (the workloads; default all of
# `tests/scripts/side-by-side.py list`). Everything else (ports, cache) as side-by-side.py reads it.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-side-by-side-$(date +%Y%m%d-%H%M)}
CLONE=${CLONE:-$(cd "$HERE/../.." && pwd)}
mkdir -p "$OUT"
WL=${WL:-$(python3 "$HERE/side-by-side.py" list | cut -f1 | tr '\n' ' ')}
for w in $WL; do
  echo "$(date +%T) $w (load $(cut -d' ' -f1 /proc/loadavg))" >> "$OUT/progress"
  python3 "$HERE/peak-rss.py" -- python3 "$HERE/side-by-side.py" "$w" --rounds "$ROUNDS" --raftline "$CLONE" \
    > "$OUT/$w.out" 2> "$OUT/$w.err"
  grep '"summary"' "$OUT/$w.out" | python3 -c 'import sys,json
for l in sys.stdin:
  d=json.loads(l); print(d["workload"], d["metric"], d["kafka"]["median"], d["raftline"]["median"], d["ratio"], json.dumps(d.get("others",{})))' >> "$OUT/summary"
  tail -1 "$OUT/$w.out" >> "$OUT/summary"
done
echo "$(date +%T) done" >> "$OUT/progress"
