#!/usr/bin/python3
"""compare_reference.py: compare our summary with the reference summarizer's, leaf by leaf.

    /usr/bin/python3 tests/compare_reference.py OURS.summary.json REFERENCE.summary.json

OURS is what queries/summary.sql printed for a profile; REFERENCE is the reference
summarizer's document for the same profile (tests/reference/<profile>.summary.json,
made as tests/reference/README.md says). Prints one line per difference, naming the
leaf by its path ($.hot_ops[3].exclusive_duration) with both values, and exits 1 if
there is any; exits 0 when the documents agree; 2 on bad usage or unreadable input.
Standard library only; independent of the extension and of queries/.

What "agree" means, leaf by leaf:
- objects: the same key set (but see MISSING_ALLOWED), every value agreeing;
- arrays: the same length, the items agreeing in order;
- strings, booleans, null: equal;
- integers: equal, and an integer in the reference must be an integer in ours;
- floats, by the key that holds them (every float leaf must be in one class below,
  otherwise that is reported as a difference, so a new field gets classified):
  * EXACT_FLOATS, durations and timestamps that are sums (or a max, a min, a
    difference) of integer picoseconds divided once by 1e6: bit-for-bit equal.
    The reference files were made with exact arithmetic (README), so both sides
    are the correctly rounded double of the same rational number;
  * RATIO_FLOATS, averages, shares, quantiles and FLOP proxies: a quotient (or an
    interpolation) rounded once by the reference but possibly two or three times
    by us (sum in ps, divide to us, divide by the count): relative difference at
    most REL_TOL (4e-16, two units in the last place at most), and zero only
    against zero;
  * under $.step_time every float is a RATIO_FLOAT: a step's duration is the mean
    of its per-device durations, so min, max and representative_duration are
    averages too.
Masks (leaves not compared, each run-specific):
- $.generated_at_utc: the time the document was written;
- $.source_path: the path the input was given as; only its last component (the
  file name) is compared.
MISSING_ALLOWED lists the top-level sections the reference has and our summary may
lack for now; each is reported as a note when absent and compared like any other
section as soon as it is present.
"""

import json
import math
import sys

REL_TOL = 4e-16

# Sections of the reference our summary may not have yet: none now
# (device_op_region_aggregates, the last one, is in queries/lib/summary_json.sql and
# compared in full like every other section).
MISSING_ALLOWED = ()

EXACT_FLOATS = frozenset({
    "total_duration", "exclusive_duration", "inclusive_duration",
    "total_gap_duration", "max_gap_duration",
    "profile_start_ts", "profile_end_ts",
})

RATIO_FLOATS = frozenset({
    "avg_duration", "avg_gap_duration", "avg_exclusive_duration",
    "share_of_total", "fraction_of_steady",
    "flop_proxy_per_invocation", "flop_proxy_total", "time_per_flop_proxy",
})

MASKED = {"$.generated_at_utc": "run time"}
BASENAME_ONLY = {"$.source_path"}


def kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def show(value):
    text = json.dumps(value)
    return text if len(text) <= 200 else text[:197] + "..."


def float_class(path, key):
    if path.startswith("$.step_time."):
        return "ratio"
    if key in EXACT_FLOATS:
        return "exact"
    if key in RATIO_FLOATS:
        return "ratio"
    return None


def compare(ours, ref, path, key, out):
    if path in MASKED:
        return
    if path in BASENAME_ONLY:
        if not (isinstance(ours, str) and isinstance(ref, str)):
            out.append(f"{path}: ours={show(ours)} reference={show(ref)} (not strings)")
        elif ours.rsplit("/", 1)[-1] != ref.rsplit("/", 1)[-1]:
            out.append(f"{path}: ours={show(ours)} reference={show(ref)} (file names differ)")
        return
    k_ours, k_ref = kind(ours), kind(ref)
    if k_ref == "float" and k_ours in ("float", "integer"):
        cls = float_class(path, key)
        a, b = float(ours), ref
        if cls is None:
            out.append(f"{path}: float leaf in no class of compare_reference.py (ours={show(ours)} reference={show(ref)})")
        elif cls == "exact":
            if a != b:
                out.append(f"{path}: ours={a!r} reference={b!r} (exact sum of ps; differs by {a - b:.3g})")
        elif not math.isclose(a, b, rel_tol=REL_TOL, abs_tol=0.0):
            rel = abs(a - b) / max(abs(a), abs(b))
            out.append(f"{path}: ours={a!r} reference={b!r} (relative difference {rel:.3g} > {REL_TOL})")
        return
    if k_ours != k_ref:
        out.append(f"{path}: ours is {k_ours} {show(ours)}, reference is {k_ref} {show(ref)}")
        return
    if k_ref == "object":
        for name in sorted(set(ours) | set(ref)):
            sub = f"{path}.{name}"
            if name not in ours:
                if path == "$" and name in MISSING_ALLOWED:
                    continue
                out.append(f"{sub}: missing in ours (reference: {show(ref[name])})")
            elif name not in ref:
                out.append(f"{sub}: not in the reference (ours: {show(ours[name])})")
            else:
                compare(ours[name], ref[name], sub, name, out)
    elif k_ref == "array":
        if len(ours) != len(ref):
            out.append(f"{path}: {len(ours)} items in ours, {len(ref)} in the reference")
        for i, (a, b) in enumerate(zip(ours, ref)):
            compare(a, b, f"{path}[{i}]", key, out)
    elif ours != ref:
        out.append(f"{path}: ours={show(ours)} reference={show(ref)}")


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: compare_reference.py OURS.summary.json REFERENCE.summary.json\n")
        return 2
    docs = []
    for name in argv[1:]:
        try:
            with open(name, encoding="utf-8") as handle:
                docs.append(json.load(handle))
        except (OSError, ValueError) as error:
            sys.stderr.write(f"compare_reference.py: {name}: {error}\n")
            return 2
    ours, ref = docs
    if not isinstance(ours, dict) or not isinstance(ref, dict):
        sys.stderr.write("compare_reference.py: both documents must be JSON objects\n")
        return 2
    out = []
    compare(ours, ref, "$", None, out)
    for name in MISSING_ALLOWED:
        if name in ref and name not in ours:
            print(f"note: $.{name} absent from ours (allowed for now; {len(ref[name])} rows in the reference)")
    for line in out:
        print(line)
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
