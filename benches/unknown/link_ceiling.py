#!/usr/bin/env python3
"""link_ceiling.py: how far the withheld-records goal can go when the clustering is perfect and
only the choice of an event's unknown link is left, for a chooser that sees the event's shape.

Usage: link_ceiling.py CATALOG GEN_CORPUS WORK:SEED [WORK:SEED ...] [--shapes N]
  WORK is a directory `withheld.py --work WORK --seed SEED` has filled (its corpus, truth and
  reduced.jsonl); give two or more, since each seed's choices are also fitted on the others.

An event's shape is what a chooser can see of its chain without reading the unknown text: its
matches in order (the truth's, from the generated corpus), each as its field (message, error
field, span) and either `U` (a withheld record: unknown to the catalog it runs with) or `K` and
the known record's class (a log message, a wrapper whose last placeholder ends `: {…}`, any
other error); whether a third-party root (one of gen_corpus.py's leaf causes) is in its text;
and whether it spans several lines. The chooser takes, for every event of a shape, one of its
`U` links, or none; what it takes is clustered perfectly (one cluster per record, records of one
messagePattern as one). Per shape, the choice with the most events whose truth primary is the
link taken, less `lambda` times those whose primary it is not, is fitted:

- on the seed itself (hindsight: the best any such chooser can do on that corpus), and
- on the other seeds, then scored on this one (what such a rule carries over to new data).

The goal is then counted as `withheld.py` counts it (a record's events are those it is the
truth's primary of; >= 90% in one cluster that is >= 95% its events), except that events a
record left in the catalog still explains are not taken out. Prints JSON; `--shapes N` also
prints the N most frequent shapes with an unknown link and, for each link, how many events it
is the primary of (+) and not (-), summed over the seeds.
"""
import argparse
import collections
import importlib.util
import json
import random
import re


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("catalog")
    ap.add_argument("gen_corpus")
    ap.add_argument("work", nargs="+", metavar="WORK:SEED")
    ap.add_argument("--size", default="20M")
    ap.add_argument("--error-rate", default="0.05")
    ap.add_argument("--shapes", type=int, default=0)
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("gen_corpus", a.gen_corpus)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    leaves = gen.LEAF_CAUSES
    recs = {}
    for line in open(a.catalog, encoding="utf-8"):
        if line.strip():
            o = json.loads(line)
            o = o.get("record", o)
            recs[o["id"]] = o
    pattern = {i: r.get("messagePattern") for i, r in recs.items()}

    def cls(i):
        r = recs[i]
        if r.get("errorClass") == "tracing::Event" or r.get("errorType") == "log":
            return "log"
        if re.search(r": \{[^}]*\}$", r.get("errorMessage") or ""):
            return "wrap"
        return "err"

    # Spans first, then the message, then the error field: the order a chain reads in.
    order = {"message": 1, "error": 2}

    class Seed:
        def __init__(self, work, seed):
            corpus = f"{work}/corpus-{a.size}-{seed}-e{a.error_rate}.log"
            truth = [json.loads(x) for x in open(corpus + ".truth.jsonl", encoding="utf-8")]
            lines = open(corpus, encoding="utf-8", errors="replace").read().split("\n")
            self.known = set()
            for x in open(f"{work}/reduced.jsonl", encoding="utf-8"):
                o = json.loads(x)
                self.known.add(o.get("record", o)["id"])
            self.events = [t for t in truth if t["level"] in ("WARN", "ERROR")]
            # The same draw as withheld.py's.
            used = sorted({t["id"] for t in self.events})
            self.withheld = set(random.Random(seed).sample(used, max(1, len(used) // 10)))
            self.same_as = {h: min(w for w in self.withheld if pattern[w] == pattern[h]) for h in recs if h not in self.known}
            self.by_shape = collections.defaultdict(list)
            for t in self.events:
                ms = sorted(t["matches"], key=lambda m: (m["line"], 0 if m.get("field", "message").startswith("span")
                                                         else order.get(m.get("field", "message"), 3), m["col"]))
                text = "\n".join(lines[t["line"] - 1:t["line"] - 1 + t["lines"]])
                toks = []
                for m in ms:
                    f = m.get("field", "message")
                    f = "span" if f.startswith("span") else f
                    toks.append(f"{f}:K{cls(m['id'])}" if m["id"] in self.known else f"{f}:U")
                shape = (" ".join(toks), any(x in text for x in leaves), t["lines"] > 1)
                self.by_shape[shape].append((t, ms))

        def right(self, t, m):
            """Is link `m` the (withheld) primary of event `t`?"""
            return t["id"] not in self.known and self.same_as.get(m["id"]) == self.same_as.get(t["id"])

        def score(self, choice):
            assign = {}
            for shape, evs in self.by_shape.items():
                k = choice.get(shape)
                for t, ms in evs:
                    assign[t["line"]] = self.same_as[ms[k]["id"]] if k is not None else None
            own = collections.defaultdict(list)
            for t in self.events:
                if t["id"] not in self.known:
                    own[self.same_as[t["id"]]].append(t["line"])
            members = collections.Counter(v for v in assign.values() if v)
            passed = scored = 0
            for r in self.withheld:
                if not own.get(r):
                    continue
                scored += 1
                n = sum(assign.get(x) == r for x in own[r])
                passed += n / len(own[r]) >= 0.9 and members[r] > 0 and n / members[r] >= 0.95
            return passed, scored

    def unknowns(shape):
        return [i for i, tok in enumerate(shape[0].split(" ")) if tok.endswith(":U")]

    def fit(seeds, lam):
        choice = {}
        for shape in set().union(*[s.by_shape for s in seeds]):
            best, value = None, 0.0
            for k in unknowns(shape):
                v = sum(1 if s.right(t, ms[k]) else -lam for s in seeds for t, ms in s.by_shape.get(shape, []))
                if v > value:
                    best, value = k, v
            choice[shape] = best
        return choice

    seeds = {}
    for w in a.work:
        work, _, seed = w.rpartition(":")
        seeds[int(seed)] = Seed(work, int(seed))
    out = {"seeds": {}}
    for n, s in seeds.items():
        row = {}
        for lam in (0.5, 1.0, 2.0):
            p, sc = s.score(fit([s], lam))
            row[f"hindsight_lambda_{lam}"] = round(p / sc, 3)
            others = [o for m, o in seeds.items() if m != n]
            if others:
                # A shape the other seeds never showed: its first unknown link (the outermost).
                choice = fit(others, lam)
                for shape in s.by_shape:
                    choice.setdefault(shape, (unknowns(shape) or [None])[0])
                p, sc = s.score(choice)
                row[f"other_seeds_lambda_{lam}"] = round(p / sc, 3)
        row["records_scored"] = sc
        out["seeds"][n] = row
    print(json.dumps(out, indent=1))
    if a.shapes:
        tally, count = collections.defaultdict(collections.Counter), collections.Counter()
        for s in seeds.values():
            for shape, evs in s.by_shape.items():
                for t, ms in evs:
                    if unknowns(shape):
                        count[shape] += 1
                        for k in unknowns(shape):
                            tally[shape][(k, s.right(t, ms[k]))] += 1
        for shape, n in count.most_common(a.shapes):
            links = " | ".join(f"link {k}: +{tally[shape][(k, True)]}/-{tally[shape][(k, False)]}" for k in unknowns(shape))
            print(n, shape[0], "+root" if shape[1] else "", "multi-line" if shape[2] else "", "=>", links)


if __name__ == "__main__":
    main()
