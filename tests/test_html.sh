#!/usr/bin/env bash
# test_html.sh: queries/report_html.sql renders in a real browser. For the
# demo profile (the one tools/report.sh generates) and a "showcase" profile
# (heavy every 3rd step, every injectable problem but host-bound), the HTML is
# rendered by headless Chromium to a PNG and to a DOM dump (and a TPU profile
# with FLOPs and bytes, for the roofline); the DOM must hold
# every chart with the marks the data calls for (counted here from the tables
# by queries of their own, or derived by hand from the generator's options),
# units in every axis title, and nothing that could load from elsewhere.
# Skipped (exit 77) with a message when chromium is absent.
#
#   XPLANE_EXT=build/xplane XPLANE_BUILD=build SQLITE3=sqlite3 bash tests/test_html.sh
#   KEEP=/tmp/out bash tests/test_html.sh    # keep the HTML, DOM and PNG files there
set -u -o pipefail
. "$(dirname "$0")/test_env.sh"

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
  echo "skip: chromium is not installed (apt-get install chromium)"
  exit 77
fi
GEN="$BUILD/tools/xplane_gen"
[ -x "$GEN" ] || { echo "FAIL: no generator at $GEN" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
OUT=${KEEP:-$T}
mkdir -p "$OUT"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { if [ "$2" == "$3" ]; then echo "ok - $1"; else fail "$1: expected [$2], got [$3]"; fi; }
q() { "$SQLITE3" -batch -noheader -cmd ".load $EXT" :memory: "$1" 2>&1; }

"$GEN" --out "$T" --run demo --style gpu --hosts 2 --devices 2 --steps 12 --ops-per-step 64 --seed 7 >/dev/null ||
  fail "demo generator"
"$GEN" --out "$T" --run show --style gpu --devices 2 --steps 20 --heavy-every 3 \
  --inject recompile,transfers,tiny,sync >/dev/null || fail "showcase generator"
"$GEN" --out "$T" --run roof --style tpu --devices 2 --steps 8 --ops-per-step 64 --seed 5 \
  --inject memory-bound >/dev/null || fail "roofline generator"

# marks NAME: counts of the DOM's marks as "chart:n ..." plus checks, by an
# HTML parser (Python's html.parser: independent of the SQL that wrote them).
marks() {
  /usr/bin/python3 - "$1" <<'EOF'
import sys, html.parser
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.chart = None; s.counts = {}; s.cls = {}; s.titles = {}; s.in_title = None
        s.external = []; s.end = False; s.findings = 0; s.findings_attr = None; s.lvl0 = []
    def handle_starttag(s, tag, a):
        a = dict(a)
        for k in ("src", "href", "xlink:href"):
            if k in a: s.external.append(f"{tag} {k}={a[k]}")
        if tag in ("script", "link", "iframe", "img", "object", "embed"): s.external.append(tag)
        if "style" in a and "url(" in a["style"]: s.external.append("style url(")
        if tag == "svg" and "data-chart" in a:
            s.chart = a["data-chart"]; s.counts.setdefault(s.chart, 0); s.titles.setdefault(s.chart, [])
        c = a.get("class", "").split()
        if "mark" in c and s.chart:
            s.counts[s.chart] += 1
            for x in c: s.cls[x] = s.cls.get(x, 0) + 1
            if "region-rect" in c and a.get("y") == "10": s.lvl0.append(float(a["width"]))
            if "step-bar" in c: s.cls.setdefault("steps:" + c[-1], 0); s.cls["steps:" + c[-1]] += 1
        if "axis-title" in c: s.in_title = s.chart
        if "finding-row" in c: s.findings += 1
        if "data-findings" in a: s.findings_attr = a["data-findings"]
        if a.get("id") == "report-end": s.end = True
    def handle_endtag(s, tag):
        if tag == "svg": s.chart = None
        if tag == "text": s.in_title = None
    def handle_data(s, d):
        if s.in_title: s.titles[s.in_title].append(d)
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
out = [f"{k}:{v}" for k, v in sorted(p.counts.items())]
out += [f"class:{k}:{v}" for k, v in sorted(p.cls.items())]
out.append("findings:%d:%s" % (p.findings, p.findings_attr))
out.append("external:%d" % len(p.external))
out.append("end:%d" % p.end)
out.append("lvl0_width:%.0f" % sum(p.lvl0))
units = [k for k, t in p.titles.items() if not any(u in x for x in t for u in ("(ms)", "(%)", "(FLOP/byte", "(FLOP/s"))]
out.append("no_unit:" + ",".join(sorted(units)))
print(" ".join(out))
EOF
}
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2://p"; }

for run in demo show; do
  P="$T/plugins/profile/$run/host0.xplane.pb"
  (cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" -cmd ".parameter set @profile $P" :memory: \
    '.read queries/report_html.sql') >"$OUT/$run.html" 2>"$T/$run.err" || fail "$run: report_html.sql exited $?: $(cat "$T/$run.err")"
  # nothing the page could fetch: no script, link, src/href, url( but the inline #hatch pattern
  n_ext=$(grep -Eoi '<script|<link|<img|<iframe| src=| href=|@import|https?://' "$OUT/$run.html" | grep -v 'http://www.w3.org' | wc -l)
  check "$run: no external reference in the HTML" "0" "$n_ext"
  check "$run: url() only for the inline pattern" "" "$(grep -o 'url([^)]*)' "$OUT/$run.html" | sort -u | grep -v '^url(#hatch)$')"
  # the browser: a DOM dump and a screenshot, its log kept for load errors
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr \
    --dump-dom "file://$OUT/$run.html" >"$OUT/$run.dom.html" 2>"$T/$run.dom.log" || fail "$run: chromium --dump-dom exited $?"
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1040,3200 \
    --screenshot="$OUT/$run.png" "file://$OUT/$run.html" >/dev/null 2>"$T/$run.png.log" || fail "$run: chromium --screenshot exited $?"
  check "$run: PNG written" "89504e47" "$(head -c 4 "$OUT/$run.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
  check "$run: nothing failed to load" "" \
    "$(grep -hiE 'Failed to load|net::ERR_|Refused to|Uncaught' "$T/$run.dom.log" "$T/$run.png.log")"
  m=$(marks "$OUT/$run.dom.html")
  check "$run: the whole page was parsed (end marker in the DOM)" "1" "$(field "$m" end)"
  check "$run: no external element in the DOM" "0" "$(field "$m" external)"
  check "$run: every chart's axis titles carry a unit" "" "$(field "$m" no_unit)"

  # steps: one bar per step number of the steps (device Steps lines or train annotations)
  check "$run: step bars = steps" \
    "$(q "SELECT count(DISTINCT step) FROM xplane_steps('$P') WHERE source IN ('steps_line', 'host_annotation')")" \
    "$(field "$m" steps)"
  # breakdown: one segment per category with time
  check "$run: breakdown segments = categories with time" \
    "$(q "SELECT count(DISTINCT xplane_event_category(plane_name, name)) FROM xplane_events('$P')
           WHERE dur_ps > 0 AND line_name <> 'Steps'")" "$(field "$m" breakdown)"
  # regions: the level-1 rectangles tile the plot width (840 px) when every root is >= 1 px
  check "$run: region roots tile the axis" "840" "$(field "$m" lvl0_width)"
  check "$run: region roots = xplane_scopes roots" \
    "$(q "SELECT count(*) FROM xplane_scopes('$P') WHERE parent_path IS NULL")" \
    "$(/usr/bin/python3 -c "
import re,sys; d=open('$OUT/$run.dom.html').read()
print(len(re.findall(r'class=\"mark region-rect\"[^>]*y=\"10\"', d)))")"
  # top ops: the first 10 op names by exclusive time (fewer if fewer)
  check "$run: top op bars" "$(q "SELECT min(count(DISTINCT name), 10) FROM xplane_ops('$P')")" "$(field "$m" top_ops)"
  # findings: one row per xplane_findings row
  nf=$(q "SELECT count(*) FROM xplane_findings('$P')")
  check "$run: finding rows" "$nf:$nf" "$(field "$m" findings | sed 's/^\([0-9]*\):\(.*\)$/\1:\2/')"
done

# demo: 12 steps, heavy every 5th (4, 9): steady steps 5..11 hold one heavy
# step, too few for the summary's light/heavy split: warmup 0-4, typical 5-11.
m=$(marks "$OUT/demo.dom.html")
check "demo: step classes" "5|7|0|0" \
  "$(field "$m" class:steps:warmup)|$(field "$m" class:steps:typical)|$(field "$m" class:steps:heavy | grep . || echo 0)|$(field "$m" class:steps:light | grep . || echo 0)"
check "demo: no findings" "0:0" "$(field "$m" findings)"
# showcase: heavy every 3rd (s % 3 == 2): steady heavy 5, 8, 11, 14, 17; light
# the 10 other steady steps; warmup 0-4; 8 findings (1 recompilation, 1 sync,
# 4 transfers, 2 tiny_kernels: test_findings.sh checks their figures).
m=$(marks "$OUT/show.dom.html")
check "showcase: step classes" "5|5|10" \
  "$(field "$m" class:steps:warmup)|$(field "$m" class:steps:heavy)|$(field "$m" class:steps:light)"
check "showcase: heavy bars are steps 5,8,11,14,17" "5,8,11,14,17" \
  "$(/usr/bin/python3 -c "
import re; d=open('$OUT/show.dom.html').read()
print(','.join(re.findall(r'<title>step (\d+): [0-9.]+ ms \(heavy\)</title>', d)))")"
check "showcase: 8 finding rows" "8:8" "$(field "$m" findings)"

# timeline (both): the ops of the representative step's plane within the step,
# and the idle gaps (>= 1 % of the step) of their union, recomputed here.
for run in demo show; do
  P="$T/plugins/profile/$run/host0.xplane.pb"
  rep=$(grep -o 'Step [0-9]* on /device:GPU:[0-9]*' "$OUT/$run.dom.html" | head -1)
  step=$(sed -E 's/Step ([0-9]+) on .*/\1/' <<<"$rep") plane=$(sed -E 's/.* on //' <<<"$rep")
  check "$run: representative step = the summary's" "$step" \
    "$(cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" -cmd ".parameter set @profile $P" :memory: '.read queries/summary.sql' |
       /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["step_time"]["classes"][0]["representative_step"])')"
  rows=$(q "SELECT max(o.start_ps, s.start_ps) || ' ' || min(o.end_ps, s.end_ps) || ' ' || s.start_ps || ' ' || s.end_ps
              FROM xplane_steps('$P') s JOIN xplane_ops('$P') o ON o.plane_index = s.plane_index
             WHERE s.step = $step AND s.plane_name = '$plane' AND o.start_ps < s.end_ps AND o.end_ps > s.start_ps
               AND o.start_ps >= s.start_ps - s.dur_ps")
  expect=$(/usr/bin/python3 - "$rows" <<'EOF'
import sys
rows = [list(map(int, l.split())) for l in sys.argv[1].splitlines() if l.strip()]
s0, s1 = rows[0][2], rows[0][3]
iv = sorted((r[0], r[1]) for r in rows)
gaps, cur = [], s0
for a, b in iv:
    if a > cur: gaps.append(a - cur)
    cur = max(cur, b)
if s1 > cur: gaps.append(s1 - cur)
print("%d:%d" % (len(rows), sum(1 for g in gaps if g >= 0.01 * (s1 - s0))))
EOF
)
  m=$(marks "$OUT/$run.dom.html")
  check "$run: timeline ops and gaps" "$expect" "$(field "$m" class:tl-op):$(field "$m" class:tl-gap | grep . || echo 0)"
done

# roofline: the demo (GPU: no FLOP counts) says why it has none; the TPU run
# has one mark per op with FLOPs, bytes and self time > 0, placed on log10
# axes: the decade ticks are consecutive exponents, evenly spaced, and each
# mark sits where its FLOP/byte and FLOP/s put it, recomputed here from
# xplane_ops (sum of flops, bytes_accessed and self time per op name).
check "demo: no roofline chart, a note instead" "|1" \
  "$(field "$(marks "$OUT/demo.dom.html")" roofline)|$(grep -c 'No op with FLOP and byte counts' "$OUT/demo.dom.html")"
run=roof
P="$T/plugins/profile/$run/host0.xplane.pb"
(cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" -cmd ".parameter set @profile $P" :memory: \
  '.read queries/report_html.sql') >"$OUT/$run.html" 2>"$T/$run.err" || fail "$run: report_html.sql exited $?: $(cat "$T/$run.err")"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr \
  --dump-dom "file://$OUT/$run.html" >"$OUT/$run.dom.html" 2>"$T/$run.dom.log" || fail "$run: chromium --dump-dom exited $?"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1040,3200 \
  --screenshot="$OUT/$run.png" "file://$OUT/$run.html" >/dev/null 2>"$T/$run.png.log" || fail "$run: chromium --screenshot exited $?"
check "$run: nothing failed to load" "" "$(grep -hiE 'Failed to load|net::ERR_|Refused to|Uncaught' "$T/$run.dom.log" "$T/$run.png.log")"
m=$(marks "$OUT/$run.dom.html")
check "$run: every chart's axis titles carry a unit" "" "$(field "$m" no_unit)"
ops=$(q "SELECT name || '|' || sum(flops) || '|' || sum(bytes_accessed) || '|' || sum(max(self_ps, 0))
           FROM xplane_ops('$P') GROUP BY name
         HAVING count(flops) = count(*) AND count(bytes_accessed) = count(*)
            AND sum(flops) > 0 AND sum(bytes_accessed) > 0 AND sum(max(self_ps, 0)) > 0")
check "$run: roofline marks = ops with FLOPs and bytes" "$(grep -c . <<<"$ops")" "$(field "$m" roofline)"
cat >"$T/roof.py" <<'EOF'
import sys, math, html.parser
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.ticks = {"tick-x": [], "tick-y": []}; s.marks = []; s.cur = None; s.in_title = False
    def handle_starttag(s, tag, a):
        a = dict(a); c = (a.get("class") or "").split()
        for t in ("tick-x", "tick-y"):
            if t in c: s.ticks[t].append((int(a["data-log10"]), float(a["x"]) if t == "tick-x" else float(a["y"]) - 4))
        if tag == "circle" and "roof-op" in c:
            s.cur = {"cx": float(a["cx"]), "cy": float(a["cy"]), "cls": c, "title": ""}; s.marks.append(s.cur)
        if tag == "title" and s.cur is not None: s.in_title = True
    def handle_endtag(s, tag):
        if tag == "title": s.in_title = False
        if tag == "circle": s.cur = None
    def handle_data(s, d):
        if s.in_title and s.cur is not None: s.cur["title"] += d
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
errs, axis = [], {}
for t, ticks in p.ticks.items():
    ex = [e for e, _ in ticks]; pos = [v for _, v in ticks]
    if len(ticks) < 2 or ex != list(range(ex[0], ex[0] + len(ex))): errs.append(f"{t}: exponents {ex}"); continue
    steps = [b - a for a, b in zip(pos, pos[1:])]
    if max(steps) - min(steps) > 0.02: errs.append(f"{t}: uneven decades {steps}")
    axis[t] = (ex[0], pos[0], steps[0])
want = {}
for line in sys.argv[2].splitlines():
    name, fl, by, ps = line.rsplit("|", 3)
    want[name] = (float(fl) / float(by), float(fl) * 1e12 / float(ps))
seen = set()
for mk in p.marks:
    if len(axis) < 2: break
    name = mk["title"].split("\n")[0].rsplit(" (", 1)[0]
    if name not in want: errs.append(f"mark {name}: not an op with FLOPs and bytes"); continue
    seen.add(name)
    x, y = want[name]
    e0, p0, st = axis["tick-x"]; cx = p0 + (math.log10(x) - e0) * st
    e0, p0, st = axis["tick-y"]; cy = p0 + (math.log10(y) - e0) * st
    if abs(cx - mk["cx"]) > 0.05 or abs(cy - mk["cy"]) > 0.05: errs.append(f"{name}: at {mk['cx']},{mk['cy']}, want {cx:.3f},{cy:.3f}")
    if name == "fusion.hot" and "memory" not in mk["cls"]: errs.append("fusion.hot is not drawn memory-bound")
if seen != set(want): errs.append(f"ops without a mark: {sorted(set(want) - seen)[:5]}")
print("ok" if not errs else "; ".join(errs[:5]))
EOF
check "$run: ticks on log10 axes; marks where FLOP/byte and FLOP/s put them" "ok" \
  "$(/usr/bin/python3 "$T/roof.py" "$OUT/$run.dom.html" "$ops")"

# a real profile without Steps line or train annotation (skipped without the
# data): one bar per XLA module run, as many as xplane_steps numbers them.
P="$DATA/xprof_tpu_inference_2.xplane.pb"
if [ -f "$P" ]; then
  (cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" -cmd ".parameter set @profile $P" :memory: \
    '.read queries/report_html.sql') >"$OUT/tpu.html" 2>"$T/tpu.err" || fail "tpu: report_html.sql exited $?: $(cat "$T/tpu.err")"
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --dump-dom "file://$OUT/tpu.html" >"$OUT/tpu.dom.html" 2>/dev/null ||
    fail "tpu: chromium --dump-dom exited $?"
  m=$(marks "$OUT/tpu.dom.html")
  check "real TPU profile: module-run bars = xplane_steps module steps" \
    "$(q "SELECT count(DISTINCT step) FROM xplane_steps('$P') WHERE source = 'module'")" "$(field "$m" class:steps:module)"
  check "real TPU profile: finding rows" "$(q "SELECT count(*) FROM xplane_findings('$P')")" "$(field "$m" findings | cut -d: -f1)"
  check "real TPU profile: roofline marks = ops with FLOPs and bytes" \
    "$(q "SELECT count(*) FROM (SELECT name FROM xplane_ops('$P') GROUP BY name
           HAVING count(flops) = count(*) AND count(bytes_accessed) = count(*)
              AND sum(flops) > 0 AND sum(bytes_accessed) > 0 AND sum(max(self_ps, 0)) > 0)")" "$(field "$m" roofline)"
else
  echo "skip - real TPU profile: $P absent"
fi

# the reference's top-ops labels are unique (issue 39 item 12): gpu_mw's hot ops are Eigen
# kernels whose first 47 characters are the same; each bar's hover title is the full name
G="$DATA/gpu_mw.xplane.pb"
if [ -f "$G" ]; then
  (cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" -cmd ".parameter set @profile $G" :memory: \
    '.read queries/report_html.sql') > "$OUT/gpu_mw.html" 2>"$T/gm.err" || fail "gpu_mw: report_html.sql exited $?"
  labels=$(grep -o '<text x="336" y="[0-9]*" text-anchor="end">[^<]*' "$OUT/gpu_mw.html" | sed 's/.*">//')
  check "gpu_mw: top-op labels, all distinct" "$(grep -c . <<< "$labels")" "$(sort -u <<< "$labels" | grep -c .)"
  check "gpu_mw: each op bar's title starts with the op's full name (the summary's hot ops)" \
    "$(cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" \
        -cmd ".parameter set @profile $G" :memory: '.read queries/summary.sql' | jq -r '.hot_ops[:10][].name' |
        sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g')" \
    "$(grep -o 'class="mark op-bar"[^>]*><title>[^<]*' "$OUT/gpu_mw.html" | sed 's/.*<title>//')"
fi

# ---- the main report's page (queries/profile_report_html.sql, `xplane report
# --html`): drawn by the browser, its headings and every table cell are the
# markdown report's (queries/profile_report.sql, parsed here on its own: cells
# split at unescaped |, \| a |, code spans read as CommonMark does), nothing loads
# from elsewhere, and a hostile op name (tags, a |, a backtick) is text.
sed 's/name: "gemm"/name: "<img src=x onerror=alert(1)>|`gemm"/' "$SRC/tests/fixtures/device_time.textproto" |
  protoc --encode=tensorflow.profiler.XSpace -I "$SRC/schema" "$SRC/schema/xplane.proto" > "$T/hostile.xplane.pb" ||
  fail "hostile fixture: protoc"
cat > "$T/mdcheck.py" <<'EOF'
import sys, html.parser, re
md, dom = open(sys.argv[1]).read().split("\n"), open(sys.argv[2]).read()
def spans(t):
    # CommonMark code spans: a run of N backticks opens one, the next run of exactly N closes
    # it (its text: one space stripped on each side when both are there); an unclosed run is
    # text. The backticks themselves are dropped.
    toks, out, k = re.findall(r"`+|[^`]+", t), "", 0
    while k < len(toks):
        tok = toks[k]
        if tok[0] == "`":
            close = next((j for j in range(k + 1, len(toks)) if toks[j] == tok), None)
            if close is not None:
                inner = "".join(toks[k + 1:close])
                if len(inner) >= 2 and inner[0] == inner[-1] == " " and inner.strip(" "): inner = inner[1:-1]
                out += inner; k = close + 1; continue
        out += tok; k += 1
    return out
def cells(line):
    # GFM: cells split at | not escaped; \| is a | (inside code spans too)
    return [spans(c.replace("\\|", "|")).strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
want_h2 = [l[3:].replace("`", "") for l in md if l.startswith("## ")]
want_rows = [cells(l) for l in md if l.startswith("|") and not re.fullmatch(r"\|[-:|]+\|", l)]
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.h2 = []; s.rows = []; s.cell = None; s.row = None; s.tag = None; s.ext = []; s.text = ""
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag in ("script", "img", "iframe", "link", "object", "embed") or any(k in a for k in ("src", "href", "onerror")):
            s.ext.append(tag)
        if tag == "h2": s.tag = "h2"; s.text = ""
        if tag == "tr": s.row = []
        if tag in ("td", "th"): s.cell = ""
    def handle_endtag(s, tag):
        if tag == "h2": s.h2.append(s.text); s.tag = None
        if tag in ("td", "th") and s.row is not None: s.row.append(s.cell.strip()); s.cell = None
        if tag == "tr" and s.row is not None: s.rows.append(s.row); s.row = None
    def handle_data(s, d):
        if s.tag == "h2": s.text += d
        if s.cell is not None: s.cell += d
p = P(); p.feed(dom)
errs = []
got_h2 = p.h2[:p.h2.index("Pictures")] if "Pictures" in p.h2 else p.h2
if got_h2 != want_h2: errs.append(f"headings {got_h2} != {want_h2}")
report_rows = p.rows[:len(want_rows)]
if report_rows != want_rows:
    bad = next((i for i, (a, b) in enumerate(zip(report_rows, want_rows)) if a != b), None)
    errs.append(f"rows differ ({len(report_rows)} vs {len(want_rows)}), first at {bad}: "
                f"{report_rows[bad] if bad is not None else ''} != {want_rows[bad] if bad is not None else ''}")
if p.ext: errs.append(f"elements that load or run: {p.ext[:5]}")
print("ok" if not errs else "; ".join(errs)[:2000])
EOF
main_page() { # NAME PROFILE
  (cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" -cmd ".parameter set @profile $2" :memory: \
    '.read queries/profile_report.sql') > "$OUT/$1.md" 2>"$T/$1.err" || fail "$1: profile_report.sql exited $?: $(cat "$T/$1.err")"
  (cd "$SRC" && "$SQLITE3" -batch -cmd ".load $EXT" -cmd ".parameter set @profile $2" :memory: \
    '.read queries/profile_report_html.sql') > "$OUT/$1.html" 2>"$T/$1.err" || fail "$1: profile_report_html.sql exited $?: $(cat "$T/$1.err")"
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --dump-dom "file://$OUT/$1.html" >"$OUT/$1.dom.html" 2>/dev/null ||
    fail "$1: chromium --dump-dom exited $?"
  check "main page $1: the markdown report's headings and table cells, nothing loaded" "ok" \
    "$(/usr/bin/python3 "$T/mdcheck.py" "$OUT/$1.md" "$OUT/$1.dom.html")"
}
main_page main_show "$T/plugins/profile/show/host0.xplane.pb"
main_page main_hostile "$T/hostile.xplane.pb"
check "main page: the hostile name is the text of a table cell" "1" \
  "$(grep -c '<code>&lt;img src=x onerror=alert(1)&gt;|`gemm</code>' "$OUT/main_hostile.dom.html")"
if [ -f "$P" ]; then main_page main_tpu "$P"; fi

[ $failures -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
echo "all html checks passed"
