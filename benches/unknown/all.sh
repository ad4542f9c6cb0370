#!/usr/bin/env bash
# all.sh: every goal of the unknown-error clustering in one run, each beside its anchor:
# loghub-2k grouping accuracy (annotail and drain3), the RisingWave withheld records, the costs
# and speed against drain3, and peak RSS at the cluster cap.
#
# Usage: benches/unknown/all.sh LOGHUB_2K_DIR CATALOG GEN_CORPUS [ANNOTAIL]
#   ANNOTAIL defaults to target-bench/release/annotail (the real release profile; build it and
#   examples/cluster_bench with CARGO_TARGET_DIR=target-bench cargo build --release --bin
#   annotail --example cluster_bench). BENCH_DIR (default $TMPDIR/annotail-unknown-bench) holds
#   the corpora: the 100 MB peers corpus (gen_corpus.py --size 100M --seed 7) is made there when
#   missing, as are the withheld-records corpus and the cap's input.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: all.sh LOGHUB_2K_DIR CATALOG GEN_CORPUS [ANNOTAIL]"
loghub=${1:?$usage}
catalog=${2:?$usage}
gen=${3:?$usage}
annotail=${4:-$here/../../target-bench/release/annotail}
work=${BENCH_DIR:-${TMPDIR:-/tmp}/annotail-unknown-bench}
mkdir -p "$work"
export BENCH_DIR=$work
corpus="$work/corpus-100M-7.log"
if [[ ! -s $corpus ]]; then
  python3 "$gen" --size 100M --seed 7 --catalog "$catalog" -o "$corpus.tmp" --truth "$corpus.truth.jsonl" >&2
  mv "$corpus.tmp" "$corpus"
fi
echo "== $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== loghub-2k grouping accuracy"
"$here/loghub.sh" "$loghub" "$annotail"
echo "== RisingWave: withheld records"
python3 "$here/withheld.py" "$annotail" "$catalog" "$gen" --seed 12 --work "$work/withheld" |
  python3 -c 'import json, sys; r = json.load(sys.stdin); r.pop("records"); print(json.dumps(r, indent=1))'
echo "== RisingWave: withheld records, JSON layout (RISINGWAVE_CLOUD=true)"
python3 "$here/withheld.py" "$annotail" "$catalog" "$gen" --seed 12 --format json --work "$work/withheld-json" |
  python3 -c 'import json, sys; r = json.load(sys.stdin); r.pop("records"); print(json.dumps(r, indent=1))'
echo "== speed"
"$here/speed.sh" "$corpus" "$catalog" "$annotail"
echo "== peak RSS at the cluster cap (300,000 ERROR lines, each a new kind)"
cap="$work/cap.log"
if [[ ! -s $cap ]]; then
  python3 - "$cap" <<'PY'
import random, sys
r = random.Random(5)
with open(sys.argv[1], "w") as f:
    for i in range(300000):
        w = "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(10))
        f.write(f"2026-03-02T08:00:{i % 60:02d}.{i:09d}Z ERROR risingwave_stream::executor: {w} stopped reading partition\n")
PY
fi
for args in "--all" "--unknown any" "--unknown any --unknown-max-clusters 100000"; do
  /usr/bin/time -f "%M KiB peak RSS, %U s user, %S s system: $args" "$annotail" --threads 1 --format json $args "$cap" > /dev/null
done
