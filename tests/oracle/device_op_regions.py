#!/usr/bin/python3
"""tests/oracle/device_op_regions.py: an independent implementation of the
summary's `device_op_region_aggregates` (shared/spec/analysis.md, "Device-op
region aggregates"), to check the extension's xplane_op_regions and the
section queries/lib/summary_json.sql builds from it.

    sqlite3 -cmd '.load build/xplane' -json :memory: "$(cat tests/oracle/events.sql)" ... > events.json
    /usr/bin/python3 tests/oracle/device_op_regions.py events.json [LIMIT]

(tests/test_op_regions.sh does both) prints the section as JSON (a list,
sorted keys, 2-space indent).

What it takes from the extension: only the decoded events, dumped by the
sqlite3 shell with tests/oracle/events.sql (plane, line, names, exact start
and duration in ps, effective stats as JSON) and the shape-signature rule
(xplane_shape_signature of each event's long name, checked by its own
tests). Reading a dump rather than loading the extension lets the same
oracle check a sanitizer build (whose extension only the wrapped shell can
load). Everything this section decides is worked out again here, in plain
Python over exact integers: which events are analysis events, device ops
and region windows, exclusive time (the stack rule), the scope-path rules,
the midpoint sweep and the choice of the best window, grouping, modes and
ranking. Times stay integers (ps) and only the output divides: a duration is
the correctly rounded double of ps / 10^6 (Fraction), the average the
reference's total / count of that double.
"""
import json
import re
import sys
from collections import Counter, defaultdict
from fractions import Fraction

WRAPPERS = {"jit", "jvp", "transpose", "vmap", "pjit", "named_call", "remat", "checkpoint"}
NOISE_EXACT = {"xla", "xla_ops", "xla_modules", "xla_traceme", "xla_trace_me", "pallas_call",
               "shard_map", "call", "command_buffer", "execute", "launch", "tpu_launch"}
NOISE_PREFIX = ("pjrt", "xla_", "tpu_", "stream_executor")
NOISE_CONTAINS = ("launch", "execute", "thunk", "runtime")
STALL = re.compile(r"wait|barrier|dependency-wait|donation holds|semaphore|acquire|idle|blocked|sleep",
                   re.IGNORECASE)
COMM = ("all-reduce", "all_gather", "all-gather", "reduce-scatter", "all-to-all", "alltoall",
        "collective", "collective-permute", "permute", "psum", "send", "recv", "nccl", "allgather",
        "allreduce", "reducescatter")


def canonical(name):
    return re.sub(r"\.\d+$", "", name.strip().lstrip("%"))


def op_category(name):
    if STALL.search(name):
        return "stall"
    low = name.lower()
    if any(k in low for k in COMM):
        return "communication"
    return "compute"


def tf_part(piece):
    cur = piece.strip().strip(":")
    if not cur:
        return ""
    while True:
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)", cur)
        if not m or m.group(1) not in WRAPPERS:
            break
        if not m.group(2).strip():
            return ""
        cur = m.group(2).strip()
    if cur in WRAPPERS:
        return ""
    cur = cur.strip().strip(":")
    if cur.startswith("dynamic_donated"):
        dot = cur.find(".")
        if 0 <= dot < len(cur) - 1:
            cur = cur[dot + 1:]
    return cur


def noise(part):
    low = part.lower().strip()
    norm = re.sub(r"[^a-z0-9_]+", "_", low).strip("_")
    return (not low or not norm or norm in NOISE_EXACT or norm.startswith(NOISE_PREFIX)
            or any(t in norm for t in NOISE_CONTAINS))


def keep(parts):
    return [p for p in parts if p and not noise(p)]


def scope_parts(tf_op, name):
    if tf_op:
        parts = keep([tf_part(p) for p in tf_op.split("/") if p.strip()])
        if parts:
            return parts
    for delim in ("=>", "::"):
        if delim in name:
            parts = keep([p.strip() for p in name.split(delim) if p.strip()])
            if parts:
                return parts
            break
    return [canonical(name)]


def text_stat(stats, key):
    v = stats.get(key)
    return v if isinstance(v, str) and v else None


def effective_tf_op(stats):
    tf = text_stat(stats, "tf_op")
    if tf is None or tf.strip().rstrip(":") != "XlaModule":
        return tf
    return text_stat(stats, "name") or tf


def exclusive_times(events):
    """Exclusive time per event index, by the stack rule, per track."""
    excl = {}
    tracks = defaultdict(list)
    for i, e in enumerate(events):
        tracks[e["track"]].append(i)
    for idx in tracks.values():
        idx.sort(key=lambda i: (events[i]["start"], -(events[i]["start"] + events[i]["dur"]), i))
        stack, child = [], {}

        def close():
            top = stack.pop()
            excl[top] = max(0, events[top]["dur"] - child.pop(top))
            if stack:
                child[stack[-1]] += events[top]["dur"]

        for i in idx:
            start, end = events[i]["start"], events[i]["start"] + events[i]["dur"]
            while stack and start >= events[stack[-1]]["start"] + events[stack[-1]]["dur"]:
                close()
            while stack and end > events[stack[-1]]["start"] + events[stack[-1]]["dur"]:
                close()
            stack.append(i)
            child[i] = 0
        while stack:
            close()
    return excl


def us(ps):
    return float(Fraction(ps, 10**6))


def main():
    dump = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    rows = json.load(open(dump)) if open(dump).read(1) else []
    events = []
    for r in rows:
        mname, mdisp, start, dur = r["name"], r["display_name"], r["start_ps"], r["dur_ps"]
        label = mdisp or mname
        if mname is None or start is None or not dur or dur <= 0 or not label:
            continue
        li = r["line_index"]
        thread = r["line_display_name"] or r["line_name"] or "xline:%d" % li
        st = json.loads(r["stats"]) if r["stats"] else {}
        plane = r["plane_name"]
        events.append({
            "track": (r["plane_index"], r["line_id"] or li + 1), "start": start, "dur": dur, "name": label,
            "device_op": plane.startswith("/device:") and (
                thread in ("XLA Ops", "Async XLA Ops") or thread.startswith("Stream #")),
            "tf_op": effective_tf_op(st),
            "signature": r["signature_of_long_name"] if (text_stat(st, "long_name") or (mname if mname != label else None)) else None})
    excl = exclusive_times(events)

    windows = []
    for e in events:
        if e["device_op"]:
            continue
        parts = scope_parts(e["tf_op"], e["name"])
        if len(parts) == 1 and parts[0] == canonical(e["name"]):
            continue
        windows.append((e["start"], e["start"] + e["dur"], "=>".join(parts), len(parts), e["dur"]))
    points = []
    for k, (s, t, _, _, _) in enumerate(windows):
        points.append((2 * s, 0, k))
        points.append((2 * t, 2, k))
    for i, e in enumerate(events):
        if e["device_op"]:
            points.append((2 * e["start"] + e["dur"], 1, i))
    points.sort()

    active, groups = set(), {}
    for _, kind, k in points:
        if kind == 0:
            active.add(k)
        elif kind == 2:
            active.discard(k)
        elif active:
            best = max((windows[w] for w in active), key=lambda w: (w[3], -w[4], w[2]))
            e = events[k]
            g = groups.setdefault((best[2], e["name"]), {"n": 0, "total": 0, "excl": 0, "shapes": Counter()})
            g["n"] += 1
            g["total"] += e["dur"]
            g["excl"] += excl[k]
            if e["signature"]:
                g["shapes"][e["signature"]] += 1

    ranked = sorted(groups.items(), key=lambda kv: (-kv[1]["excl"], -kv[1]["total"], kv[0][0], kv[0][1]))
    out = []
    for (path, name), g in ranked[:limit]:
        total = us(g["total"])
        out.append({
            "avg_duration": total / g["n"], "canonical_name": canonical(name), "category": op_category(name),
            "count": g["n"], "exclusive_duration": us(g["excl"]), "op_name": name, "region_path": path,
            "shape_signature": g["shapes"].most_common(1)[0][0] if g["shapes"] else None,
            "total_duration": total})
    print(json.dumps(out, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
