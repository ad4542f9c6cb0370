#!/usr/bin/env python3
"""A follow-mode soak: lines written at a steady rate, rotations (rename and copytruncate, in
turn), and `kill -9` restarts of the daemon; then what came out is checked against what was
written. Not a test (it takes about a minute): the figures go to BENCHMARKS.md.

usage: soak.py ANNOTAIL [--lines N] [--rate LINES_PER_S] [--rotations R] [--kills K]

Prints: lines written, lost, delivered more than once, repeats that carry an event_id the first
delivery did not have, and the repeats as a share of the lines.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("annotail")
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--rate", type=int, default=20_000)
    ap.add_argument("--rotations", type=int, default=50)
    ap.add_argument("--kills", type=int, default=20)
    a = ap.parse_args()

    d = tempfile.mkdtemp(prefix="annotail-soak-")
    logs = os.path.join(d, "logs")
    os.mkdir(logs)
    log = os.path.join(logs, "meta.log")
    cat = os.path.join(d, "catalog.jsonl")
    with open(cat, "w") as f:
        f.write('{"id":"t","errorMessage":"soak line {n}","messagePattern":"soak line (.+?)"}\n')
    outs = []

    def start():
        out = open(os.path.join(d, f"out{len(outs)}.jsonl"), "wb")
        err = open(os.path.join(d, "stderr.log"), "ab")
        outs.append(out.name)
        return subprocess.Popen(
            [a.annotail, "--follow", os.path.join(logs, "meta.log*"), "--all", "--format", "json",
             "--state-dir", os.path.join(d, "state"), "-c", cat, "--rotate-wait", "2s"],
            stdout=out, stderr=err)

    p = start()
    f = open(log, "a")
    rotate_every = a.lines // (a.rotations + 1)
    kill_every = a.lines // (a.kills + 1)
    rotations = kills = 0
    batch = max(1, a.rate // 100)
    t0 = time.monotonic()
    for i in range(a.lines):
        f.write(f"2026-11-29T10:00:00.000001Z  INFO risingwave_meta::soak: soak line {i}\n")
        if i % batch == batch - 1:
            f.flush()
            # Keep to the rate.
            ahead = (i + 1) / a.rate - (time.monotonic() - t0)
            if ahead > 0:
                time.sleep(ahead)
        if i % rotate_every == rotate_every - 1 and rotations < a.rotations:
            f.flush()
            rotations += 1
            rotated = os.path.join(logs, f"meta.log.{rotations}")
            if rotations % 2:
                os.rename(log, rotated)
                f.close()
                f = open(log, "a")
            else:
                # copytruncate, as logrotate does it: copy, then truncate the original in place.
                shutil.copyfile(log, rotated)
                os.truncate(log, 0)
        if i % kill_every == kill_every - 1 and kills < a.kills:
            kills += 1
            p.send_signal(signal.SIGKILL)
            p.wait()
            p = start()
    f.close()
    # Let it catch up, then stop it properly.
    time.sleep(8)
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=60)

    seen = {}
    for name in outs:
        with open(name, "rb") as o:
            for line in o:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue  # a line cut by kill -9, written again by the next run
                msg = ev.get("message", "")
                if "soak line " not in msg:
                    continue
                n = int(msg.rsplit("soak line ", 1)[1])
                seen.setdefault(n, []).append(ev.get("event_id"))
    lost = sum(1 for i in range(a.lines) if i not in seen)
    repeats = sum(len(v) - 1 for v in seen.values())
    new_ids = sum(sum(1 for e in v[1:] if e != v[0]) for v in seen.values())
    print(json.dumps({
        "lines": a.lines, "rotations": rotations, "kills": kills,
        "seconds": round(time.monotonic() - t0, 1), "lost": lost, "repeats": repeats,
        "repeats_with_a_new_event_id": new_ids, "repeat_share": round(repeats / a.lines, 4),
    }))
    shutil.rmtree(d)
    return 0 if lost == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
