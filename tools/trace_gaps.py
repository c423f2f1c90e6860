#!/usr/bin/env python3
"""Where a --trace's device idled between commands, and why.

usage: trace_gaps.py TRACE.json [--top N]

For each device in the trace (portacl ... --trace TRACE.json), the idle time between one command's
end and the next one's start, split by what the next command was waiting for:
  host     it was enqueued only after the one before it had ended (the host did not keep ahead);
  runtime  it was enqueued in time but submitted to the device only after the one before it ended
           (the runtime held it back, e.g. until a flush or a wait);
  device   it was submitted in time and still started late (launch latency, the device's own work).
"""
import argparse
import json
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("--top", type=int, default=5, help="the kernels after the longest gaps, by name (default 5)")
    args = ap.parse_args()
    try:
        events = json.load(open(args.trace))["traceEvents"]
    except (OSError, ValueError, KeyError) as e:
        raise SystemExit(f"trace_gaps.py: {args.trace} is not a portacl --trace file: {e}")
    names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    spans = defaultdict(list)
    for e in events:
        if e.get("ph") == "X":
            spans[e["pid"]].append(e)
    for pid, cmds in sorted(spans.items()):
        cmds.sort(key=lambda e: e["ts"])
        busy = sum(e["dur"] for e in cmds)
        total = cmds[-1]["ts"] + cmds[-1]["dur"] - cmds[0]["ts"]
        idle = {"host": 0.0, "runtime": 0.0, "device": 0.0}
        count = {"host": 0, "runtime": 0, "device": 0}
        after = defaultdict(float)
        for prev, cur in zip(cmds, cmds[1:]):
            end = prev["ts"] + prev["dur"]
            gap = cur["ts"] - end
            if gap <= 0:
                continue
            why = "host" if cur["args"]["enqueued_us"] > end else "runtime" if cur["args"]["submitted_us"] > end else "device"
            idle[why] += gap
            count[why] += 1
            after[cur["name"]] += gap
        print(f"{names.get(pid, pid)}: {len(cmds)} commands, {total / 1e3:.3f} ms from the first start to the last end, "
              f"{busy / 1e3:.3f} ms busy")
        for why in ("host", "runtime", "device"):
            n = count[why]
            print(f"  idle, next command late from the {why:7s}: {idle[why] / 1e3:9.3f} ms in {n} gaps"
                  + (f" ({idle[why] / n:.1f} us each)" if n else ""))
        for name, gap in sorted(after.items(), key=lambda kv: -kv[1])[: args.top]:
            print(f"  before {name}: {gap / 1e3:.3f} ms idle")


if __name__ == "__main__":
    main()
