#!/usr/bin/env bash
# loghub.sh: grouping accuracy of `annotail --unknown any` and of drain3 (defaults) on the
# loghub-2k sets, in one run; drain3 is installed with pip in a virtual environment.
#
# Usage: benches/unknown/loghub.sh LOGHUB_2K_DIR [ANNOTAIL]
#   ANNOTAIL defaults to target/release/annotail (build it first: cargo build --release).
#   VENV (default: target/drain3-venv) is where drain3 goes; DRAIN3 (default 0.9.11) its version.
#   SETS (default: the twelve sets ga.py names): the sets to score, blank-separated;
#   loghub_sets.py makes loghub's other four from a clone of its repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=${1:?usage: loghub.sh LOGHUB_2K_DIR [ANNOTAIL]}
annotail=${2:-$here/../../target/release/annotail}
venv=${VENV:-$here/../../target/drain3-venv}
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "drain3==${DRAIN3:-0.9.11}"
fi
read -r -a sets <<< "${SETS:-}"
a=$(python3 "$here/ga.py" "$annotail" "$data" --json "${sets[@]}")
d=$("$venv/bin/python" "$here/drain3_ga.py" ga "$data" "${sets[@]}")
python3 - "$a" "$d" <<'PY'
import json, sys
a, d = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("%-10s %9s %9s" % ("set", "annotail", "drain3"))
for s in a["sets"]:
    print("%-10s %9.3f %9.3f" % (s, a["sets"][s], d["sets"][s]))
print("%-10s %9.3f %9.3f" % ("average", a["average"], d["average"]))
PY
