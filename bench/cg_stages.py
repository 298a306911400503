#!/usr/bin/env python3
"""Per-packet cachegrind costs by pipeline stage (issue 29 point 4).

Usage: bench/cg_stages.py RUN.cg PACKETS [BASE.cg BASE_PACKETS]

RUN.cg is `valgrind --tool=cachegrind --cache-sim=yes` of an Osprey run over PACKETS
packets; BASE.cg (optional) the same command over a capture of BASE_PACKETS packets
(e.g. 1): its costs (rule loading, start-up, shutdown) are subtracted function by
function before dividing by the packet difference. Functions are put in a stage by
the crate or library they belong to (exclusive costs: a stage's own code, not what it
calls in another crate); allocator and memory-copy functions of libc are shown apart,
since every stage calls them.
"""
import re
import sys
from collections import defaultdict

STAGES = [
    # The reader: walking records, hashing each frame's dispatch key (its wire decoding
    # is counted under decode), the rings.
    ("read/dispatch", re.compile(r"\bcapture::|engine::runtime|rtrb::|flow::dispatch")),
    ("decode", re.compile(r"\bwire::|pipeline::decode")),
    ("flow", re.compile(r"\bflow::")),
    # glibc's regex engine is libmagic's (file types of files in transactions).
    ("app", re.compile(r"re_search_internal|re_string_|build_trtable|re_node_set|re_acquire_state|\bapp::|\bhtp|\bsawp|\bsnmp_parser|\bkerberos_parser|\bipsec_parser|\bder_parser|\bx509_parser|\btls_parser")),
    # Code without a symbol is the PCRE2 JIT's (nothing else generates code).
    ("detect", re.compile(r"^\?\?\?$|\bdetect::|\bmpm::|pcre2|sljit|jit_machine|\bregex|\baho_corasick|\bmemchr::")),
    ("output", re.compile(r"\boutput::|serde_json|\bryu::|\bitoa::|engine::alerts|engine::applog|engine::anomaly|engine::flow_log|engine::outputs|\bbase64::")),
    ("engine (other)", re.compile(r"\bengine::")),
    ("malloc/free", re.compile(r"malloc|_int_free|\bfree\b|unlink_chunk|realloc|\bcfree|tcache")),
    ("memcpy/memcmp/memset", re.compile(r"mem(cpy|move|cmp|set|chr)|__memcpy|__memmove|__memset|__memcmp|strlen")),
]


def load(path):
    events = None
    per_fn = defaultdict(lambda: None)
    fn = "???"
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("fn="):
                fn = line[3:].strip()
            elif line and line[0].isdigit():
                parts = line.split()
                vals = [int(x) for x in parts[1:]]
                cur = per_fn[fn]
                if cur is None:
                    per_fn[fn] = vals + [0] * (len(events) - len(vals))
                else:
                    for i, v in enumerate(vals):
                        cur[i] += v
    return events, per_fn


def stage_of(name):
    for stage, pat in STAGES:
        if pat.search(name):
            return stage
    return "other"


def main():
    run, packets = sys.argv[1], int(sys.argv[2])
    events, fns = load(run)
    if len(sys.argv) > 4:
        _, base = load(sys.argv[3])
        packets -= int(sys.argv[4])
        for name, vals in base.items():
            cur = fns.get(name)
            if cur is not None:
                fns[name] = [a - b for a, b in zip(cur, vals)]
    idx = {e: i for i, e in enumerate(events)}
    want = ["Ir", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw", "I1mr"]
    totals = defaultdict(lambda: [0] * len(events))
    for name, vals in fns.items():
        t = totals[stage_of(name)]
        for i, v in enumerate(vals):
            t[i] += v
    order = [s for s, _ in STAGES] + ["other"]
    all_ = [sum(totals[s][i] for s in order) for i in range(len(events))]
    print(f"per packet, over {packets} packets")
    print("| stage | instructions | data refs | D1 misses | LL misses | I1 misses | share of instructions |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for s in order + ["total"]:
        t = all_ if s == "total" else totals[s]
        g = lambda e: t[idx[e]] if e in idx else 0
        ir = g("Ir")
        print(
            f"| {s} | {ir / packets:,.0f} | {(g('Dr') + g('Dw')) / packets:,.0f} | "
            f"{(g('D1mr') + g('D1mw')) / packets:,.1f} | {(g('DLmr') + g('DLmw')) / packets:,.2f} | "
            f"{g('I1mr') / packets:,.1f} | {100 * ir / max(all_[idx['Ir']], 1):.1f}% |"
        )


if __name__ == "__main__":
    main()
