#!/usr/bin/env python3
"""Grouping accuracy (Zhu et al. 2019) of annotail's `unknown.cluster` on loghub-2k sets.

Usage: ga.py ANNOTAIL DATA_DIR [SET...]
Runs `ANNOTAIL --unknown any --format json SET.log` per set (no per-set settings), reads the
`unknown.cluster` of each line's event and scores it against SET.truth. Prints one line per set
and the average; `--json` prints them as one JSON object instead.
"""
import collections, json, os, subprocess, sys

SETS = ["HDFS", "Hadoop", "Spark", "Zookeeper", "BGL", "HPC", "Windows", "Linux", "Android",
        "HealthApp", "Apache", "OpenSSH"]


def grouping_accuracy(truth, pred):
    """A message counts when the messages grouped with it are exactly those sharing its label."""
    by_t, by_p = collections.defaultdict(set), collections.defaultdict(set)
    for i, (t, p) in enumerate(zip(truth, pred)):
        by_t[t].add(i)
        by_p[p].add(i)
    ok = 0
    for members in by_p.values():
        t = {truth[i] for i in members}
        if len(t) == 1 and by_t[next(iter(t))] == members:
            ok += len(members)
    return ok / len(truth)


def annotail_clusters(binary, log):
    out = subprocess.run([binary, "--unknown", "any", "--format", "json", log],
                         check=True, capture_output=True).stdout
    by_line = {}
    for line in out.splitlines():
        ev = json.loads(line)
        u = ev.get("unknown")
        by_line[ev["source"]["line"]] = u["cluster"] if u else None
    return by_line


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    as_json = "--json" in sys.argv
    binary, data = args[0], args[1]
    sets = args[2:] or SETS
    res = {}
    for s in sets:
        truth = open(os.path.join(data, s + ".truth"), encoding="utf-8").read().splitlines()
        got = annotail_clusters(binary, os.path.join(data, s + ".log"))
        # A line without an event (blank) is a group of its own.
        pred = [got.get(i + 1) or f"none-{i}" for i in range(len(truth))]
        res[s] = grouping_accuracy(truth, pred)
    avg = sum(res.values()) / len(res)
    if as_json:
        print(json.dumps({"sets": res, "average": avg}))
    else:
        for s, v in res.items():
            print(f"{s:<10} {v:.3f}")
        print(f"{'average':<10} {avg:.3f}")


if __name__ == "__main__":
    main()
