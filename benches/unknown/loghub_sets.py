#!/usr/bin/env python3
"""Make loghub-2k sets in the layout loghub.sh reads, from a copy of loghub's repository.

Usage: loghub_sets.py LOGHUB_DIR OUT_DIR [SET...]
  LOGHUB_DIR: a clone of https://github.com/logpai/loghub (each set's `<S>/<S>_2k.log_structured.csv`);
  SET: the sets to make (default: the four that the shared loghub-2k data leaves out: Mac,
  OpenStack, Proxifier, Thunderbird).

Writes `<S>.log` (the `Content` column, one message a line) and `<S>.truth` (the `EventId` of each
line), as the shared sets are made: made this way, the shared twelve come out byte for byte as
they are. Then: `SETS="Mac OpenStack Proxifier Thunderbird" benches/unknown/loghub.sh OUT_DIR`.
"""
import csv, os, sys

REST = ["Mac", "OpenStack", "Proxifier", "Thunderbird"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for s in sys.argv[3:] or REST:
        path = os.path.join(src, s, f"{s}_2k.log_structured.csv")
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(out, s + ".log"), "w", encoding="utf-8", newline="") as log, \
                open(os.path.join(out, s + ".truth"), "w", encoding="utf-8") as truth:
            for r in rows:
                log.write(r["Content"] + "\n")
                truth.write(r["EventId"] + "\n")
        print(f"{s}: {len(rows)} lines", file=sys.stderr)


if __name__ == "__main__":
    main()
