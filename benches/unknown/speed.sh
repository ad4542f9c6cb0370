#!/usr/bin/env bash
# speed.sh: what --unknown costs, and annotail's clustering against drain3 on the same messages,
# in one run (hyperfine, medians; start-up measured on an empty file and taken off).
#
# Usage: benches/unknown/speed.sh CORPUS CATALOG [ANNOTAIL]
#   CORPUS: a generated RisingWave corpus (gen_corpus.py --size 100M --seed 7, as peers.sh uses);
#   ANNOTAIL defaults to target-bench/release/annotail (the real release profile).
#   The clusterer alone is timed with examples/cluster_bench next to ANNOTAIL (build it with
#   cargo build --release --example cluster_bench). VENV as in loghub.sh (drain3 installed there when missing). DRAIN3_MB (default 10): MB of
#   messages drain3 is timed on (it is ~100x slower; its rate is per MB either way). RUNS: 5.
#   The `all` row (--all: every event written, nothing clustered) bounds `any` from above: `any`
#   writes the same events and clusters them too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus=${1:?usage: speed.sh CORPUS CATALOG [ANNOTAIL]}
catalog=${2:?usage: speed.sh CORPUS CATALOG [ANNOTAIL]}
annotail=${3:-$here/../../target-bench/release/annotail}
venv=${VENV:-$here/../../target/drain3-venv}
runs=${RUNS:-5}
work=${BENCH_DIR:-${TMPDIR:-/tmp}/annotail-unknown-bench}
mkdir -p "$work"
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "drain3==${DRAIN3:-0.9.11}"
fi
# The messages annotail clusters, one per line: each RisingWave line without its timestamp,
# level and target (and its key=value fields, which are parsed out of the message).
msgs="$work/messages.log"
python3 - "$corpus" "$msgs" <<'PY'
import re, sys
head = re.compile(r"^\S+\s+(?:TRACE|DEBUG|INFO|WARN|ERROR) (?:[\w:]+: )?")
fields = re.compile(r"( [a-z_][\w.]*=\S+)+$")
with open(sys.argv[1], encoding="utf-8", errors="replace") as f, open(sys.argv[2], "w") as out:
    for line in f:
        m = head.match(line)
        if not m:
            continue
        msg = fields.sub("", line[m.end():].rstrip("\n"))
        if msg.strip():
            out.write(msg + "\n")
PY
head -c $(( ${DRAIN3_MB:-10} * 1000000 )) "$msgs" | sed '$d' > "$msgs.drain3"
empty="$work/empty.log"; : > "$empty"
a="$annotail --catalog $catalog --format json --threads 1"
hyperfine -N -w 1 -r "$runs" --export-json "$work/unknown.json" \
  -n off "$a $corpus" -n warn "$a --unknown warn $corpus" -n any "$a --unknown any $corpus" \
  -n all "$a --all $corpus" \
  -n off-2threads "$annotail --catalog $catalog --format json --threads 2 $corpus" \
  -n warn-2threads "$annotail --catalog $catalog --format json --threads 2 --unknown warn $corpus" \
  -n any-2threads "$annotail --catalog $catalog --format json --threads 2 --unknown any $corpus" \
  -n msgs-off "$a --all $msgs" -n msgs-any "$a --unknown any $msgs" \
  -n empty "$a --unknown any $empty" >&2
d=$("$venv/bin/python" "$here/drain3_ga.py" speed "$msgs.drain3")
# The clusterer alone on the same messages (cargo build --release --example cluster_bench).
cb="$(dirname "$annotail")/examples/cluster_bench"
c=$([[ -x $cb ]] && "$cb" "$msgs.drain3" 3 || echo '{}')
python3 - "$work/unknown.json" "$(stat -L -c %s "$corpus")" "$(stat -L -c %s "$msgs")" "$d" "$c" <<'PY'
import json, statistics, sys
results = json.load(open(sys.argv[1]))["results"]
res = {r["command"]: statistics.median(r["times"]) for r in results}
# CPU time (user + system, hyperfine's means): on a shared machine wall time also counts the
# time other processes had the core, CPU time does not.
cpu = {r["command"]: r["user"] + r["system"] for r in results}
corpus, msgs, d, c = int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4]), json.loads(sys.argv[5])
e, ec = res["empty"], cpu["empty"]
rate = lambda name, size: size / 1e6 / (res[name] - e)
crate = lambda name, size: size / 1e6 / (cpu[name] - ec)
print("%-28s %8s %10s %8s %10s" % ("run (1 thread unless said)", "total_s", "scan_MB/s", "cpu_s", "cpu_MB/s"))
for n, size in [("off", corpus), ("warn", corpus), ("any", corpus), ("all", corpus), ("off-2threads", corpus), ("warn-2threads", corpus),
                ("any-2threads", corpus), ("msgs-off", msgs), ("msgs-any", msgs)]:
    print("%-28s %8.3f %10.1f %8.3f %10.1f" % (n, res[n], rate(n, size), cpu[n], crate(n, size)))
print("start-up (empty file)        %8.3f %10s %8.3f" % (e, "", ec))
print("--unknown warn cost: %.1f%% of the scan rate (wall), %.1f%% (CPU)" % (
    100 * (1 - rate("warn", corpus) / rate("off", corpus)), 100 * (1 - crate("warn", corpus) / crate("off", corpus))))
print("--unknown warn cost on 2 threads: %.1f%% of the scan rate (wall)" % (
    100 * (1 - rate("warn-2threads", corpus) / rate("off-2threads", corpus))))
dr = d["bytes"] / 1e6 / d["seconds"]
dc = d["bytes"] / 1e6 / d["cpu_seconds"]
print("drain3 on %d messages (%.1f MB): %.2f s, %.2f MB/s; CPU %.2f s, %.2f MB/s; %d clusters" % (
    d["lines"], d["bytes"] / 1e6, d["seconds"], dr, d["cpu_seconds"], dc, d["clusters"]))
print("annotail --unknown any on the messages / drain3: %.1fx (wall), %.1fx (CPU)" % (rate("msgs-any", msgs) / dr, crate("msgs-any", msgs) / dc))
if c:
    print("clusterer alone on the same messages: %.1f MB/s wall, %.1f MB/s CPU, %d clusters; / drain3: %.1fx (wall), %.1fx (CPU)" % (
        c["mb_s"], c["cpu_mb_s"], c["clusters"], c["mb_s"] / dr, c["cpu_mb_s"] / dc))
PY
