#!/usr/bin/env python3
"""warn_cost.py: what `--unknown warn` costs over `--unknown off`, in interleaved rounds.

Usage: benches/unknown/warn_cost.py ANNOTAIL CORPUS [--rounds N] [--pin CPU] [--threads T]
                                    [--catalog CATALOG] [--other NAME=ANNOTAIL]... [--seed N]

Each round runs `off`, `warn` and an empty file with each (start-up) one after the other, in
an order drawn anew each round (`--seed`), so that a machine that speeds up or slows down over
the minutes affects them alike and no run always follows the same one; the medians
over the rounds are compared, each run's own start-up taken off (`off`'s start-up is not
`warn`'s: the scan rates the issue compares are of the scans alone). `--pin CPU` runs every command on that core alone
(`taskset`): on a shared 2-core VM, unpinned medians of 60 rounds differed by 4 ms (4%) between
two builds running the same code, pinned ones by about 1%. `--other NAME=ANNOTAIL` adds another
binary's `warn` to each round (an A/B of two builds in one run).

Prints the scan time of each (median wall less the empty file's), the time `warn` adds, and the
cost as the issue states it: the fall of the scan rate, 1 - rate(warn) / rate(off).
"""
import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("annotail")
    ap.add_argument("corpus")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--pin", help="run every command on this CPU (taskset -c)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--catalog", help="passed as --catalog (default: the embedded catalog)")
    ap.add_argument("--other", action="append", default=[], metavar="NAME=ANNOTAIL")
    ap.add_argument("--seed", type=int, default=1, help="seed of each round's order (default 1)")
    a = ap.parse_args()
    if a.pin and not shutil.which("taskset"):
        sys.exit("warn_cost.py: --pin needs taskset (util-linux)")
    empty = tempfile.NamedTemporaryFile(suffix=".log", delete=False)
    empty.close()

    def cmd(binary, unknown, path):
        c = [binary, "--format", "json", "--threads", str(a.threads), "--unknown", unknown]
        if a.catalog:
            c += ["--catalog", a.catalog]
        c.append(path)
        return (["taskset", "-c", a.pin] if a.pin else []) + c

    runs = [("off", cmd(a.annotail, "off", a.corpus)), ("warn", cmd(a.annotail, "warn", a.corpus))]
    for o in a.other:
        name, _, binary = o.partition("=")
        if not binary:
            sys.exit(f"warn_cost.py: --other {o!r}: give NAME=ANNOTAIL")
        runs.append((name, cmd(binary, "warn", a.corpus)))
    runs.append(("empty", cmd(a.annotail, "warn", empty.name)))
    runs.append(("empty-off", cmd(a.annotail, "off", empty.name)))
    rng = random.Random(a.seed)
    wall = {n: [] for n, _ in runs}
    cpu = {n: [] for n, _ in runs}
    try:
        for _ in range(a.rounds):
            # A new order each round: in a fixed one, `off` always ran right after the empty
            # file's run, and a run's place in the round moved its time by more than the cost
            # looked for (60 rounds gave `warn` 14% faster than `off`, which does less).
            order = runs[:]
            rng.shuffle(order)
            for name, c in order:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                subprocess.run(c, stdout=subprocess.DEVNULL, check=True)
                wall[name].append(time.perf_counter() - t)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    finally:
        os.unlink(empty.name)
    med = {n: statistics.median(v) for n, v in wall.items()}
    cmed = {n: statistics.median(v) for n, v in cpu.items()}
    # `off` less its own start-up; every `warn` less warn's.
    start = lambda n: "empty-off" if n == "off" else "empty"
    scan = {n: med[n] - med[start(n)] for n in med if not n.startswith("empty")}
    cscan = {n: cmed[n] - cmed[start(n)] for n in cmed if not n.startswith("empty")}
    size = os.stat(a.corpus).st_size
    pin = f", pinned to CPU {a.pin}" if a.pin else ""
    print(f"{a.rounds} interleaved rounds, {a.threads} thread(s){pin}; start-up (empty file) "
          f"{med['empty-off'] * 1000:.1f} ms wall with off, {med['empty'] * 1000:.1f} ms with warn "
          f"({cmed['empty-off'] * 1000:.1f} and {cmed['empty'] * 1000:.1f} ms CPU), each taken off its own runs")
    print("%-12s %10s %10s %12s %10s" % ("run", "scan_ms", "scan_MB/s", "cpu_scan_ms", "vs off"))
    for n in scan:
        vs = "" if n == "off" else "%+.1f%%" % (100 * (scan[n] / scan["off"] - 1))
        print("%-12s %10.1f %10.1f %12.1f %10s" % (n, scan[n] * 1000, size / 1e6 / scan[n], cscan[n] * 1000, vs))
    for n in scan:
        if n != "off":
            print(f"{n}: scan rate {100 * (1 - scan['off'] / scan[n]):.1f}% below off's (wall), "
                  f"{100 * (1 - cscan['off'] / cscan[n]):.1f}% (CPU)")


if __name__ == "__main__":
    main()
