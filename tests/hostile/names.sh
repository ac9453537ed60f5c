#!/usr/bin/env bash
# tests/hostile/names.sh: names that are hostile where they are printed
# (issue 41): markup and a script, quotes, table pipes, newlines, backticks,
# ANSI and OSC escapes, a bell, invalid UTF-8 and a NUL, in op, line, plane
# and host names (tests/hostile/xspace.py `names`), in the run folder's name
# and in the file's name, through every output of the xplane command. Part of
# tests/test_hostile.sh.
#
#   bash tests/hostile/names.sh
#
# The checks are tests/hostile/names_check.py's (its header: valid UTF-8, no
# control character a terminal obeys, GFM tables whose rows keep the
# header's cells, each op name readable back from its code span, no script
# run in headless Chromium, JSON that parses and holds each name), against
# the printable form written there independently of core/escape.c:
#   report (markdown), report --html (and --format reference), summarize
#   (JSON), query "top ops" (JSON), compare --format markdown and json,
#   track twice with a --label of SQL metacharacters (both rows stored,
#   history's table and JSON), bundle (every file it writes), convert
#   --format json (the Perfetto JSON trace).
# Before core/escape.c, the markdown report printed ESC, BEL, NUL, CR and
# invalid UTF-8 bytes raw, broke its list at a run name's newline and its
# code spans at a backtick; the HTML carried the same bytes.
set -uo pipefail
. "$(dirname "$0")/../test_env.sh"
. "$(dirname "$0")/../hostile_common.sh"
CLI=$BUILD/cli/xplane
CHECK="python3 $SRC/tests/hostile/names_check.py"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

esc=$'\e'
run_name="run<b>|\`x\`${esc}[31m"$'\n'"line"
host_name="<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">|${esc}[1m"
D=$TMP/logdir/plugins/profile/$run_name
mkdir -p "$D"
P=$D/$host_name.xplane.pb
$XSPACE names 0 "$P" || { echo "FAIL writing the profile"; exit 1; }

# step NAME KIND FILE COMMAND...: COMMAND exits 0 (its stderr in $TMP/err)
# and FILE passes names_check.py KIND.
step() {
  local name=$1 kind=$2 file=$3 rc
  shift 3
  "$@" 2> "$TMP/err"
  rc=$?
  if ((rc != 0)); then bad "$name: exit $rc: $(head -c 300 "$TMP/err")"; return; fi
  if $CHECK "$kind" "$file" "${DOM:-}" > "$TMP/check"; then ok "$name"; else bad "$name: $(head -5 "$TMP/check")"; fi
}

step "report: markdown" md "$TMP/r.md" sh -c '"$0" report "$1" > "$2"' "$CLI" "$P" "$TMP/r.md"
# the run and host names in the head stay one list item each
if grep -c '^- Run: ' "$TMP/r.md" | grep -qx 1 && ! grep -q '^line' "$TMP/r.md"; then ok "report: the run name is one list item"
else bad "report: the run name broke its list item: $(grep -A1 '^- Run: ' "$TMP/r.md" | head -c 300)"; fi

chromium_dom() { # HTML DOM: headless Chromium runs the page and dumps its DOM
  if ! command -v chromium > /dev/null; then echo "<body>" > "$2"; return; fi
  timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$1" > "$2" 2> /dev/null
}
for fmt in profile reference; do
  args=(--html)
  [ "$fmt" = reference ] && args+=(--format reference)
  if "$CLI" report "${args[@]}" "$P" -o "$TMP/$fmt.html" 2> "$TMP/err"; then
    chromium_dom "$TMP/$fmt.html" "$TMP/$fmt.dom"
    kind=html
    [ "$fmt" = reference ] && kind=html-doc
    DOM=$TMP/$fmt.dom step "report --html ($fmt): no script runs, names readable" $kind "$TMP/$fmt.html" true
  else
    bad "report --html ($fmt): exit $?: $(head -c 300 "$TMP/err")"
  fi
done
command -v chromium > /dev/null || echo "note: no chromium: the HTML was checked as text only"

step "summarize: JSON" json "$TMP/s.json" "$CLI" summarize "$P" -o "$TMP/s.json" --quiet
step "query top ops: JSON" json "$TMP/q.json" sh -c '"$0" query "$1" "top ops" > "$2"' "$CLI" "$P" "$TMP/q.json"
step "compare: markdown" md "$TMP/c.md" sh -c '"$0" compare "$1" "$1" --format markdown > "$2"' "$CLI" "$P" "$TMP/c.md"
step "compare: JSON" jsonvalid "$TMP/c.json" sh -c '"$0" compare "$1" "$1" --format json > "$2"' "$CLI" "$P" "$TMP/c.json"

# track twice with a label of SQL metacharacters; the exit is 3 (warn: the same
# profile twice), both records are kept, the label reads back as given
label="x'); DROP TABLE regression_history; --|\`"
for i in 1 2; do
  "$CLI" track "$P" "$P" --history "$TMP/h.db" --label "$label" > "$TMP/t$i.out" 2> "$TMP/err"
  rc=$?
  if ((rc == 3)); then ok "track $i: warn (exit 3)"; else bad "track $i: exit $rc: $(head -c 300 "$TMP/err")"; fi
done
n=$("$SQLITE3" "$TMP/h.db" "SELECT count(*) FROM regression_history WHERE label = '$(printf '%s' "$label" | sed "s/'/''/g")'" 2>&1)
if [ "$n" = 2 ]; then ok "track: both records kept, label as given"; else bad "track: records with the label: $n"; fi
"$CLI" history --history "$TMP/h.db" > "$TMP/h.md" 2> "$TMP/err" || bad "history: exit $?: $(head -c 300 "$TMP/err")"
if $CHECK text "$TMP/h.md" > "$TMP/check" && grep -qF 'x'"'"'); DROP TABLE regression_history; --\|`' "$TMP/h.md"; then
  ok "history: the label in its table cell"
else bad "history: $(head -3 "$TMP/check") $(grep -F 'DROP' "$TMP/h.md" | head -c 300)"; fi
"$CLI" history --history "$TMP/h.db" --format json > "$TMP/h.json" 2> "$TMP/err" || bad "history --format json: exit $?"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/h.json" 2> "$TMP/check" \
  && ok "history --format json: valid JSON" || bad "history --format json: $(head -c 300 "$TMP/check")"

# bundle: every file it writes is printable; JSON files parse, markdown tables hold
"$CLI" bundle "$P" "$P" -o "$TMP/bundle" > /dev/null 2> "$TMP/err"
rc=$?
if ((rc == 0 || rc == 3)); then ok "bundle: exit $rc"; else bad "bundle: exit $rc: $(head -c 300 "$TMP/err")"; fi
for f in "$TMP"/bundle/*; do
  [ -f "$f" ] || continue
  case $f in
    *.json) k=jsonvalid ;;
    *.md) k=text ;;
    *.html) k=text ;;
    *) continue ;;
  esac
  if $CHECK "$k" "$f" > "$TMP/check"; then ok "bundle: $(basename "$f") printable"; else bad "bundle: $(head -3 "$TMP/check")"; fi
done
step "convert --format json: valid JSON holding the names" json "$TMP/t.json" \
  "$CLI" convert "$P" -o "$TMP/t.json" --format json

echo "$pass passed, $fail failed"
((fail == 0))
