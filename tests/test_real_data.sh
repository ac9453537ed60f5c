#!/usr/bin/env bash
# test_real_data.sh: cross-check the extension against an independent reader
# on every real profile in $XPLANE_DATA.
#
#   XPLANE_EXT=build/xplane XPLANE_SRC=. XPLANE_DATA=../shared/data bash tests/test_real_data.sh
#
# For each *.xplane.pb, `protoc --decode` (Google's own protobuf parser, with
# schema/xplane.proto) prints the file as text, and the awk program below
# summarizes that text: per plane (id, name, counts of lines, events, event
# and stat metadata, plane stats, metadata stats, stat ids used as names) and
# per line (ids, names, timestamp, counts of events / timed / aggregated
# events, first start, last end, checksums of durations and starts, number of
# event stats). The same summaries are then computed in SQL from
# xplane_planes, xplane_lines, xplane_stat_metadata, xplane_events and
# xplane_stats, and the two texts must be identical; xplane_space.n_threads
# must be the number of distinct (plane, line id, or index + 1 for id 0)
# among protoc's lines. Sums are taken modulo
# 1000000007 so that awk's doubles stay exact. Exits 77 (skip) without the
# data folder or without protoc.
set -euo pipefail

. "$(dirname "$0")/test_env.sh"

shopt -s nullglob
files=("$DATA"/*.xplane.pb)
if [ ${#files[@]} -eq 0 ]; then
  echo "SKIP: no *.xplane.pb in $DATA (set XPLANE_DATA to the real profiles)"
  exit 77
fi
if ! command -v protoc >/dev/null; then
  echo "SKIP: protoc (the independent reader) is not installed"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The independent summary, from protoc's text format (two spaces per level;
# fields print in field-number order; defaults are omitted).
summarize_text() {
  awk '
    function num(s) { sub(/^[^:]*: /, "", s); return s }
    function str(s) { sub(/^[^"]*"/, "", s); sub(/"$/, "", s); return s }
    function modp(x) { return x % P }
    BEGIN { P = 1000000007; depth = 0; pi = -1 }
    / \{$/ {
      name = $1; path[++depth] = name
      p = path[1]; for (i = 2; i <= depth; i++) p = p "/" path[i]
      cur = p
      if (p == "planes") {
        pi++; li = -1; pid = 0; pname = ""; nlines = 0; nev = 0; nem = 0; nsm = 0; nps = 0; nms = 0
        delete used; delete smkeys
      } else if (p == "planes/lines") {
        li++; nlines++; lid = 0; ldid = 0; lname = ""; ldname = ""; lts = 0; ldur = 0
        n = 0; nt = 0; no = 0; minoff = ""; maxend = ""; sdur = 0; soff = 0; nes = 0
      } else if (p == "planes/lines/events") {
        eoff = ""; edur = 0; eocc = 0
      } else if (p == "planes/lines/events/stats") { nes++
      } else if (p == "planes/stats") { nps++
      } else if (p == "planes/event_metadata") { nem++
      } else if (p == "planes/event_metadata/value/stats") { nms++
      } else if (p == "planes/stat_metadata") { nsm++ }
      next
    }
    /^ *\}$/ {
      if (cur == "planes/lines/events") {
        n++; nev++; sdur = modp(sdur + edur)
        if (eocc) no++
        if (eoff != "") {
          nt++; soff = modp(soff + modp(eoff))
          if (minoff == "" || eoff + 0 < minoff + 0) minoff = eoff
          if (maxend == "" || eoff + edur > maxend + 0) maxend = eoff + edur
        }
      } else if (cur == "planes/lines") {
        base = lts * 1000
        first = (nt ? sprintf("%.0f", base + minoff) : "")
        last = (nt ? sprintf("%.0f", base + maxend) : "")
        printf "L|%d|%d|%s|%s|%s|%s|%s|%s|%d|%d|%s|%s\n", pi, li, lid, ldid, lname, ldname, lts, ldur, n, nt, first, last
        if (n) printf "E|%d|%d|%d|%d|%d|%s|%s|%.0f|%.0f|%d\n", pi, li, n, nt, no, first, last, sdur, modp(modp(nt * modp(base)) + soff), nes
      } else if (cur == "planes") {
        names = 0; for (k in smkeys) if (k in used) names++
        printf "P|%d|%s|%s|%d|%d|%d|%d|%d|%d|%d\n", pi, pid, pname, nlines, nev, nem, nsm, nps, nms, names
      }
      depth--
      cur = path[1]; for (i = 2; i <= depth; i++) cur = cur "/" path[i]
      next
    }
    {
      f = $1
      if (cur == "planes") { if (f == "id:") pid = num($0); else if (f == "name:") pname = str($0) }
      else if (cur == "planes/lines") {
        if (f == "id:") lid = num($0); else if (f == "display_id:") ldid = num($0)
        else if (f == "name:") lname = str($0); else if (f == "display_name:") ldname = str($0)
        else if (f == "timestamp_ns:") lts = num($0); else if (f == "duration_ps:") ldur = num($0)
      } else if (cur == "planes/lines/events") {
        if (f == "offset_ps:") { eoff = num($0); eocc = 0 }
        else if (f == "num_occurrences:") { eocc = 1; eoff = "" }
        else if (f == "duration_ps:") edur = num($0)
      } else if (cur ~ /stats$/ && f == "metadata_id:") used[num($0)] = 1
      else if (cur == "planes/stat_metadata" && f == "key:") smkeys[num($0)] = 1
    }
  '
}

# The same summary from the extension's tables.
summarize_sql() {
  local f=$1
  "$SQLITE3" -bail -batch :memory: <<EOF
.load $EXT
.nullvalue ''
WITH
  ms AS (SELECT plane_index, count(*) AS n FROM xplane_stats('$f')
          WHERE scope = 'event_metadata' GROUP BY plane_index),
  ps AS (SELECT plane_index, count(*) AS n FROM xplane_stats('$f')
          WHERE scope = 'plane' GROUP BY plane_index),
  sn AS (SELECT plane_index, sum(is_stat_name) AS n FROM xplane_stat_metadata('$f') GROUP BY plane_index)
SELECT 'P', p.plane_index, p.plane_id, p.plane_name, p.n_lines, p.n_events, p.n_event_metadata,
       p.n_stat_metadata, coalesce(ps.n, 0), coalesce(ms.n, 0), coalesce(sn.n, 0)
  FROM xplane_planes('$f') p LEFT JOIN ps USING (plane_index) LEFT JOIN ms USING (plane_index)
  LEFT JOIN sn USING (plane_index);
SELECT 'L', plane_index, line_index, line_id, display_id, line_name, display_name, timestamp_ns,
       duration_ps, n_events, n_timed_events, first_start_ps, last_end_ps
  FROM xplane_lines('$f');
WITH es AS (SELECT plane_index, line_index, count(*) AS n FROM xplane_stats('$f')
             WHERE scope = 'event' AND origin = 'event' GROUP BY plane_index, line_index)
SELECT 'E', e.plane_index, e.line_index, count(*), count(start_ps), count(num_occurrences),
       min(start_ps), max(end_ps), sum(dur_ps % 1000000007) % 1000000007,
       sum(start_ps % 1000000007) % 1000000007, coalesce(es.n, 0)
  FROM xplane_events('$f') e LEFT JOIN es USING (plane_index, line_index)
 GROUP BY e.plane_index, e.line_index ORDER BY e.plane_index, e.line_index;
EOF
}

fail=0
for f in "${files[@]}"; do
  h=$(basename "$f" .xplane.pb)
  protoc -I "$SRC/schema" --decode=tensorflow.profiler.XSpace xplane.proto < "$f" > "$tmp/$h.txt"
  summarize_text < "$tmp/$h.txt" > "$tmp/$h.want"
  # awk prints each plane when it closes, after its lines: put planes first.
  { grep '^P|' "$tmp/$h.want"; grep '^L|' "$tmp/$h.want"; grep '^E|' "$tmp/$h.want" || true; } > "$tmp/$h.want.sorted"
  summarize_sql "$f" > "$tmp/$h.got"
  # threads: distinct (plane, line id, or line index + 1 for id 0) in protoc's lines
  want_threads=$(awk -F'|' '$1 == "L" { seen[$2 "|" ($4 != 0 ? $4 : $3 + 1)] = 1 }
                            END { n = 0; for (k in seen) n++; print n }' "$tmp/$h.want.sorted")
  got_threads=$("$SQLITE3" -bail -batch :memory: ".load $EXT" "SELECT n_threads FROM xplane_space('$f')")
  if [ "$want_threads" != "$got_threads" ]; then
    echo "FAIL $h: xplane_space.n_threads $got_threads, protoc's lines give $want_threads tracks"
    fail=1
  elif diff "$tmp/$h.want.sorted" "$tmp/$h.got" > "$tmp/$h.diff"; then
    echo "ok   $h: $(grep -c '^P|' "$tmp/$h.got") planes, $(grep -c '^L|' "$tmp/$h.got") lines," \
         "$(awk -F'|' '$1 == "E" { n += $4 } END { print n + 0 }' "$tmp/$h.got") events," \
         "$got_threads threads agree with protoc"
  else
    echo "FAIL $h: the extension disagrees with protoc (< protoc, > extension):"
    head -40 "$tmp/$h.diff"
    fail=1
  fi
done
exit $fail
