#!/usr/bin/env python3
"""drain3 (default settings, as its README's figures) on loghub-2k sets: grouping accuracy, and
its throughput on a messages file. Run inside the virtual environment `loghub.sh` makes.

Usage: drain3_ga.py ga DATA_DIR [SET...]      -> JSON {"sets": {...}, "average": x}
       drain3_ga.py speed MESSAGES_FILE        -> JSON {"lines": n, "bytes": b, "seconds": s}
"""
import json, os, sys, time

from drain3 import TemplateMiner
from drain3.template_miner_config import TemplateMinerConfig

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ga import SETS, grouping_accuracy  # noqa: E402


def miner():
    cfg = TemplateMinerConfig()  # drain3's defaults: depth 4, sim_th 0.4, no masking
    cfg.profiling_enabled = False
    return TemplateMiner(config=cfg)


def ga(data, sets):
    res = {}
    for s in sets:
        m = miner()
        lines = open(os.path.join(data, s + ".log"), encoding="utf-8", errors="replace").read().splitlines()
        truth = open(os.path.join(data, s + ".truth"), encoding="utf-8").read().splitlines()
        pred = [m.add_log_message(l)["cluster_id"] for l in lines]
        res[s] = grouping_accuracy(truth, pred)
    return {"sets": res, "average": sum(res.values()) / len(res)}


def speed(path):
    m = miner()
    data = open(path, "rb").read()
    lines = data.decode("utf-8", "replace").splitlines()
    t, cpu = time.perf_counter(), time.process_time()
    for l in lines:
        m.add_log_message(l)
    # CPU time (user + system) beside wall time: on a shared machine the wall time of a run
    # counts the time other processes had the core.
    return {"lines": len(lines), "bytes": len(data), "seconds": time.perf_counter() - t,
            "cpu_seconds": time.process_time() - cpu, "clusters": len(m.drain.clusters)}


if __name__ == "__main__":
    if sys.argv[1] == "ga":
        print(json.dumps(ga(sys.argv[2], sys.argv[3:] or SETS)))
    else:
        print(json.dumps(speed(sys.argv[2])))
