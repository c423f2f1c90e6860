#!/usr/bin/env python3
"""The conformance matrix (implementation x workload x precision) from the XML reports of
tests/test_conformance.cpp (build/conformance/<implementation>.xml, one per ctest entry
Conformance.<implementation>).

    python3 tools/conformance_matrix.py build/conformance                 # the full matrix, markdown
    python3 tools/conformance_matrix.py build/conformance --compact       # one row per workload
    python3 tools/conformance_matrix.py build/conformance --update docs/portability.md --update-compact README.md
    python3 tools/conformance_matrix.py build/conformance docs/portability/gpu-machine   # with another machine's reports

Several folders join their reports; a report of another machine is named for it (nvidia.xml,
pocl-gpu-machine.xml), so that it stands beside this machine's.

--update replaces the text between the lines <!-- conformance-matrix:begin --> and
<!-- conformance-matrix:end --> of a file with the full matrix (--update-compact: the compact one).
A cell is "pass", "refused" (the one-sentence refusal of double on a device without fp64), "FAIL",
or "-" when the implementation did not run that case. A run that crashed left no XML report: its
results come from <implementation>.jsonl, streamed case by case, and the case it died in is a FAIL.
An implementation with neither (its ctest entry was skipped: not installed) is listed as absent.
"""
import argparse
import json
import pathlib
import sys
import xml.etree.ElementTree as ET

IMPLEMENTATIONS = ["pocl", "intel", "rusticl", "oclgrind"]  # the order of the ctest entries
NAMES = {"pocl": "PoCL", "intel": "Intel CPU runtime", "rusticl": "Mesa rusticl (llvmpipe)", "oclgrind": "oclgrind",
         "nvidia": "NVIDIA (GPU machine)", "pocl-gpu-machine": "PoCL (GPU machine)"}
BEGIN, END = "<!-- conformance-matrix:begin -->", "<!-- conformance-matrix:end -->"


def first_line(text):
    """gtest's message in one line: what the test says (its last line), with the values compared."""
    lines = [l.strip() for l in (text or "").splitlines()]
    lines = [l for l in lines if l and l != "Failed" and not l.startswith(("../", "/"))]
    if not lines:
        return (text or "").strip()
    values = next((l[l.index("actual:"):] for l in lines if "actual:" in l and "=" not in l.split("actual:")[0]), "")
    return lines[-1] + (f" ({values})" if values and values not in lines[-1] else "")


def read_report(path):
    root = ET.parse(path).getroot()
    info = {k: root.get(k, "") for k in ("device", "platform", "platform_version", "driver_version", "fp64", "sizes")}
    info["time"] = float(root.get("time", "0") or 0)
    cases, coverage = {}, None
    for tc in root.iter("testcase"):
        props = {p.get("name"): p.get("value") for p in tc.iter("property")}
        failure = tc.find("failure")
        skipped = tc.find("skipped")
        if "EveryKernelRan" in tc.get("name", ""):
            if failure is not None:
                coverage = "FAIL: " + first_line(failure.get("message"))
            elif skipped is None:
                coverage = props.get("kernels_ran", "pass")
            continue
        if "workload" not in props:
            continue
        if failure is not None:
            result = ("FAIL", " / ".join(first_line(f.get("message")) for f in tc.findall("failure")))
        elif skipped is not None:
            message = first_line(skipped.get("message"))
            result = ("refused", message[len("refused: "):]) if message.startswith("refused: ") else ("skipped", message)
        elif tc.get("result") == "completed":
            result = ("pass", "")
        else:
            result = ("-", "")
        cases[(props["workload"].replace("-", "_"), props["precision"].replace("_", "-"))] = result + (float(tc.get("time", "0") or 0),)
    info["coverage"] = coverage
    return info, cases


def read_stream(path):
    """The results streamed case by case (<implementation>.jsonl) of a run that wrote no XML report:
    the process died, and the case it died in is the one that started and never ended."""
    crashed = ("FAIL", "the process crashed in this case", 0.0)
    cases, last = {}, None
    for line in pathlib.Path(path).read_text().splitlines():
        entry = json.loads(line)
        workload, _, precision = entry["case"].partition("__")
        key = (workload, precision.replace("_", "-"))
        if last and last != key:  # a case that started and never ended (streams of reruns are appended)
            cases[last] = crashed
        if entry["status"] == "started":
            last = key if precision else None
            continue
        last = None
        status = {"passed": "pass", "failed": "FAIL"}.get(entry["status"])
        message = first_line(entry["message"])
        if status is None:
            status, message = ("refused", message[len("refused: "):]) if message.startswith("refused: ") else ("skipped", message)
        if precision:  # the kernel-coverage case has no workload__precision name
            cases[key] = (status, message, 0.0)
    if last:
        cases[last] = crashed
    info = {k: "" for k in ("device", "platform", "platform_version", "driver_version", "fp64", "sizes")}
    info.update(time=0.0, coverage=None)
    return info, cases


def load(directories):
    reports = {}
    for directory in directories:
        folder = pathlib.Path(directory)
        names = IMPLEMENTATIONS + sorted({p.stem for p in folder.glob("*.xml")} | {p.stem for p in folder.glob("*.jsonl")})
        for name in names:
            if name in reports:
                continue
            xml, stream = folder / (name + ".xml"), folder / (name + ".jsonl")
            if xml.exists():
                reports[name] = read_report(xml)
            elif stream.exists():
                reports[name] = read_stream(stream)
    return reports


def case_order(reports):
    order = []
    for _, (_, cases) in reports.items():
        for key in cases:
            if key not in order:
                order.append(key)
    return order


def short_reason(message):
    if "fp64" in message:
        return "no fp64"
    return message


def implementations_table(reports, present):
    out = ["| implementation | device | version | fp64 | sizes | kernels of cl/ run | cases: pass / refused / fail | seconds |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in present:
        info, cases = reports[name]
        counts = {k: sum(1 for r in cases.values() if r[0] == k) for k in ("pass", "refused", "FAIL")}
        out.append(f"| {NAMES.get(name, name)} | {info['device']} | {info['platform_version']} (driver {info['driver_version']}) | "
                   f"{info['fp64']} | {info['sizes']} | {info['coverage'] or '-'} | {counts['pass']} / {counts['refused']} / "
                   f"{counts['FAIL']} | {info['time']:.0f} |")
    for name in IMPLEMENTATIONS:
        if name not in reports:
            out.append(f"| {NAMES[name]} | absent (not installed: its ctest entry was skipped) | | | | | | |")
    return out


def full_matrix(reports):
    present = [n for n in IMPLEMENTATIONS if n in reports] + [n for n in reports if n not in IMPLEMENTATIONS]
    out = implementations_table(reports, present) + [""]
    out.append("| workload | precision | " + " | ".join(NAMES.get(n, n) for n in present) + " |")
    out.append("| --- | --- |" + " --- |" * len(present))
    notes = []
    for workload, precision in case_order(reports):
        cells = []
        for name in present:
            result = reports[name][1].get((workload, precision))
            if result is None:
                cells.append("-")
            elif result[0] == "refused":
                cells.append("refused: " + short_reason(result[1]))
            elif result[0] in ("FAIL", "skipped"):
                notes.append(f"{NAMES.get(name, name)}, {workload} {precision}: {result[1]}")
                cells.append(f"{result[0]} [{len(notes)}]")
            else:
                cells.append(result[0])
        out.append(f"| {workload} | {precision} | " + " | ".join(cells) + " |")
    if notes:
        out.append("")
        out += [f"{i}. {n}" for i, n in enumerate(notes, 1)]
    refusals = sorted({r[1] for _, (_, c) in reports.items() for r in c.values() if r[0] == "refused"})
    if refusals:
        out.append("")
        out.append("Refusals, as the engine words them: " + " ".join(f"\"{r}\"" for r in refusals))
    return "\n".join(out)


def compact_matrix(reports):
    present = [n for n in IMPLEMENTATIONS if n in reports] + [n for n in reports if n not in IMPLEMENTATIONS]
    absent = [NAMES[n] for n in IMPLEMENTATIONS if n not in reports]
    workloads = []
    for w, _ in case_order(reports):
        if w not in workloads:
            workloads.append(w)
    out = ["| workload | " + " | ".join(NAMES.get(n, n) for n in present) + " |", "| --- |" + " --- |" * len(present)]
    for w in workloads:
        cells = []
        for name in present:
            groups = {}
            for (cw, precision), r in reports[name][1].items():
                if cw == w:
                    groups.setdefault(r[0], []).append(precision)
            parts = []
            for key, label in (("pass", "pass"), ("refused", "refused"), ("FAIL", "FAIL"), ("skipped", "skipped")):
                if key in groups:
                    parts.append(f"{label}: {', '.join(groups[key])}")
            cells.append("; ".join(parts) or "-")
        out.append(f"| {w} | " + " | ".join(cells) + " |")
    if absent:
        out.append("")
        out.append("Not installed in this run: " + ", ".join(absent) + ".")
    return "\n".join(out)


def update(path, text):
    p = pathlib.Path(path)
    content = p.read_text()
    if BEGIN not in content or END not in content:
        sys.exit(f"conformance_matrix: {path} has no {BEGIN} ... {END} block to replace")
    head, rest = content.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    p.write_text(head + BEGIN + "\n" + text + "\n" + END + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", help="folders of <implementation>.xml reports (build/conformance, ...)")
    ap.add_argument("--compact", action="store_true", help="one row per workload")
    ap.add_argument("--update", metavar="FILE", help="write the full matrix into FILE's marked block")
    ap.add_argument("--update-compact", metavar="FILE", help="write the compact matrix into FILE's marked block")
    args = ap.parse_args()
    reports = load(args.reports)
    if not reports:
        sys.exit(f"conformance_matrix: no <implementation>.xml report in {', '.join(args.reports)}")
    if args.update:
        update(args.update, full_matrix(reports))
    if args.update_compact:
        update(args.update_compact, compact_matrix(reports))
    if not args.update and not args.update_compact:
        print(compact_matrix(reports) if args.compact else full_matrix(reports))


if __name__ == "__main__":
    main()
