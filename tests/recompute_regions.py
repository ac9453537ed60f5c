#!/usr/bin/python3
"""recompute_regions.py: the summary's hierarchical_regions, recomputed from raw events.

    sqlite3 -json -cmd '.load build/xplane' :memory: \
      "SELECT plane_index, plane_name, line_index, line_id, line_name, line_display_name,
              event_index, name, display_name, start_ps, dur_ps, stats
         FROM xplane_events('run/host.xplane.pb') WHERE start_ps IS NOT NULL" > events.json
    /usr/bin/python3 tests/recompute_regions.py events.json [LIMIT]     # LIMIT: default 500

    /usr/bin/python3 tests/recompute_regions.py --summary summary.json

The first form prints one line per region, `path|depth|count|inclusive_us|exclusive_us`
(the numbers as Python's repr of a double), in the summary's order; the second prints the
same fields of a summary document's $.hierarchical_regions, so a test compares the two.
Standard library only. Only the decoded events (names, stats, start and duration in ps)
come from the extension; everything derived from them is done here, in integers of
picoseconds, by the summary's "hierarchical regions" rules as written below,
independently of core/ and queries/:
- device op: a timed event (duration > 0, non-empty name = display_name or name) on a
  `/device:` plane whose line (display_name or name) is `XLA Ops`, `Async XLA Ops` or
  starts with `Stream #`;
- self time: per track (plane, line id, or index + 1 when the id is 0), events by (start
  asc, end desc); open events that end at or before a start close, then those that end
  before the new end (a partial overlap is no parent); a closed event's self time is
  max(0, duration - its direct children's durations);
- tf_op: the `tf_op` stat, but a tf_op that is only the module (`XlaModule`, trailing
  colons aside) defers to the `name` stat when there is one;
- path parts from tf_op: pieces between `/`, trimmed of spaces and colons, stack wrappers
  `jit(...)`, `jvp`, `transpose`, `vmap`, `pjit`, `named_call`, `remat`, `checkpoint`
  peeled off (a bare wrapper word is dropped), `dynamic_donated...` pieces cut after their
  first dot, runtime-noise pieces dropped; with no part left: the name split on `=>` (else
  `::`), noise dropped; with still none: the canonical op name alone;
- every prefix of the parts gets count + 1 and inclusive += self; the full path also
  exclusive += self; a path deeper than 1 with exactly one child path of the same
  inclusive time (1e-9 relative, 1e-6 us absolute) is dropped; rows ordered by
  (inclusive desc, exclusive desc, path), the first LIMIT kept.
"""

import json
import math
import re
import sys

WRAPPERS = {"jit", "jvp", "transpose", "vmap", "pjit", "named_call", "remat", "checkpoint"}
NOISE_EXACT = {"xla", "xla_ops", "xla_modules", "xla_traceme", "xla_trace_me", "pallas_call",
               "shard_map", "call", "command_buffer", "execute", "launch", "tpu_launch"}
NOISE_PREFIX = ("pjrt", "xla_", "tpu_", "stream_executor")
NOISE_INFIX = ("launch", "execute", "thunk", "runtime")
WRAPPED = re.compile(r"([A-Za-z_]\w*)\((.*)\)", re.ASCII | re.DOTALL)


def is_device_op(ev):
    line = ev["line_display_name"] or ev["line_name"] or ""
    return (ev["plane_name"] or "").startswith("/device:") and (
        line in ("XLA Ops", "Async XLA Ops") or line.startswith("Stream #"))


def noise(piece):
    norm = re.sub(r"[^a-z0-9_]+", "_", piece.strip().lower()).strip("_")
    return (not norm or norm in NOISE_EXACT or norm.startswith(NOISE_PREFIX)
            or any(word in norm for word in NOISE_INFIX))


def unwrap(piece):
    piece = piece.strip().strip(":")
    while True:
        m = WRAPPED.fullmatch(piece)
        if not m or m.group(1) not in WRAPPERS:
            break
        piece = m.group(2).strip()
        if not piece:
            return ""
    if piece in WRAPPERS:
        return ""
    piece = piece.strip().strip(":")
    if piece.startswith("dynamic_donated"):
        dot = piece.find(".")
        if 0 <= dot < len(piece) - 1:
            piece = piece[dot + 1:]
    return piece


def canonical(name):
    return re.sub(r"\.\d+$", "", name.strip().lstrip("%"))


def path_parts(name, tf_op):
    if tf_op:
        parts = [unwrap(p) for p in tf_op.split("/") if p.strip()]
        parts = [p for p in parts if p and not noise(p)]
        if parts:
            return parts
    for sep in ("=>", "::"):
        if sep in name:
            parts = [p.strip() for p in name.split(sep) if p.strip()]
            parts = [p for p in parts if not noise(p)]
            if parts:
                return parts
            break
    return [canonical(name)]


def tf_op_of(stats):
    tf_op = stats.get("tf_op")
    tf_op = tf_op if isinstance(tf_op, str) and tf_op else None
    if tf_op is not None and tf_op.strip().rstrip(":") == "XlaModule":
        alt = stats.get("name")
        if isinstance(alt, str) and alt:
            return alt
    return tf_op


def self_times(events):
    """ps of self time per event (a dict keyed by id(ev)), track by track."""
    tracks = {}
    for ev in events:
        key = (ev["plane_index"], ev["line_id"] or ev["line_index"] + 1)
        tracks.setdefault(key, []).append(ev)
    out = {}
    for evs in tracks.values():
        evs.sort(key=lambda e: (e["start_ps"], -(e["start_ps"] + e["dur_ps"])))
        stack = []  # [end, dur, children, id]
        def close():
            end, dur, kids, ident = stack.pop()
            out[ident] = max(0, dur - kids)
            if stack:
                stack[-1][2] += dur
        for ev in evs:
            start, end = ev["start_ps"], ev["start_ps"] + ev["dur_ps"]
            while stack and stack[-1][0] <= start:
                close()
            while stack and stack[-1][0] < end:
                close()
            stack.append([end, ev["dur_ps"], 0, id(ev)])
        while stack:
            close()
    return out


def regions(rows, limit):
    ops = []
    for ev in rows:
        name = ev["display_name"] or ev["name"] or ""
        if ev["dur_ps"] is None or ev["dur_ps"] <= 0 or not name or not is_device_op(ev):
            continue
        ev["_name"] = name
        ops.append(ev)
    selfs = self_times(ops)
    agg = {}
    for ev in ops:
        stats = json.loads(ev["stats"]) if ev["stats"] else {}
        parts = path_parts(ev["_name"], tf_op_of(stats))
        s = selfs[id(ev)]
        for d in range(1, len(parts) + 1):
            row = agg.setdefault("=>".join(parts[:d]), [d, 0, 0, 0])  # depth, count, incl, excl
            row[1] += 1
            row[2] += s
        agg["=>".join(parts)][3] += s
    children = {}
    for path in agg:
        if "=>" in path:
            children.setdefault(path.rsplit("=>", 1)[0], []).append(path)
    drop = [p for p, row in agg.items()
            if row[0] > 1 and len(children.get(p, [])) == 1
            and math.isclose(row[2] / 1e6, agg[children[p][0]][2] / 1e6, rel_tol=1e-9, abs_tol=1e-6)]
    for p in drop:
        del agg[p]
    ranked = sorted(agg.items(), key=lambda kv: (-kv[1][2], -kv[1][3], kv[0]))[:limit]
    return [f"{p}|{r[0]}|{r[1]}|{r[2] / 10**6!r}|{r[3] / 10**6!r}" for p, r in ranked]


def main(argv):
    if len(argv) == 3 and argv[1] == "--summary":
        with open(argv[2], encoding="utf-8") as handle:
            doc = json.load(handle)
        for r in doc["hierarchical_regions"]:
            print(f"{r['path']}|{r['depth']}|{r['count']}|{float(r['inclusive_duration'])!r}|"
                  f"{float(r['exclusive_duration'])!r}")
        return 0
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as handle:
        text = handle.read()
    rows = json.loads(text) if text.strip() else []
    for line in regions(rows, int(argv[2]) if len(argv) == 3 else 500):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
