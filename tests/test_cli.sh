#!/usr/bin/env bash
# tests/test_cli.sh: the `xplane` command (cli/) end to end.
#
#   XPLANE_SRC=. XPLANE_BUILD=build XPLANE_DATA=../shared/data bash tests/test_cli.sh
#
# Runs everything from a temporary directory (never the repository root), so
# the command must find its extension and query files by itself. Checks:
#   - --help of the command and every subcommand (exit 0, usage on stdout);
#     unknown options, commands and extra arguments exit 2;
#   - on a generated 2-host profile (tools/xplane_gen): summarize refuses the
#     2-host run without --host, --all-hosts writes one document per host and
#     the cross-host table; track exit codes 0 pass / 3 warn / 4 fail from
#     thresholds chosen so each status must come out; the canned queries leave
#     no temporary table in the plain shell and refuse a misspelled @topk;
#     train/ and eval/ logdirs with the same run name stay two runs; nothing
#     on stderr when it is not a terminal; --progress (forced): the percent
#     lines never go down and reach 100, then "done" (summarize, convert);
#     SQL cannot set the progress hook; report --html = the shell's
#     profile_report_html.sql (--format reference: report_html.sql) (to -o FILE or stdout; several hosts need --host; a
#     saved summary, --all-hosts, --metadata refused); -o FILE replaced on
#     success, left as it was (no temporary file) when the run fails;
#   - cmake --install into a temporary prefix: the installed command prints
#     what the build's prints, the installed summary.sql runs in the plain
#     shell from another directory, pkg-config names the installed
#     extension, which exports only sqlite3_xplane_init;
#   - on every real profile ($XPLANE_DATA): summarize prints the document the
#     plain sqlite3 shell prints with queries/summary.sql (apart from
#     run_metadata, which the command fills, and the time); report the shell's
#     report apart from the run-metadata block; report --summary of the saved
#     summary the same bytes as report PATH;
#   - one real GPU and the TPU profile in more depth: the device facts (the
#     TPU plane's "TPU v6 Lite", 918 TFLOP/s; data/README.md: 4 TPU v6e), query
#     routing (top 3 ops = the shell's top_ops.sql with top_k 3), compare
#     (= the shell's compare.sql; a saved summary against a profile gives the
#     same bytes; the same file twice fails --strict-provenance with 4),
#     labels 2024-01-15, 0123e45 and O'Brien stored and printed unchanged (as
#     text), history counts, a missing / mistyped / non-history path refused
#     and not created, bundle (manifest sha256 = sha256sum), convert (events
#     written = data/README.md's event count), sql (xplane_events count =
#     the README's).
# Skips the real-profile part (exit 77, with a message) when $XPLANE_DATA has none.
set -uo pipefail

. "$(dirname "$0")/test_env.sh"
. "$(dirname "$0")/check.sh"
X=$BUILD/cli/xplane
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
# status NAME EXPECTED CMD...: the exit status of CMD.
status() {
  local name=$1 want=$2
  shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  check "$name (exit status; stderr: $(head -c 300 "$tmp/err"))" "$want" "$rc"
}
# shell QUERY NAME VALUE...: the plain sqlite3 shell running queries/QUERY.sql from the source root.
shell() {
  local query=$1 args=(-bail -cmd ".load $EXT")
  shift
  while [ $# -ge 2 ]; do
    args+=(-cmd ".parameter set @$1 '${2//\'/\'\'}'")
    shift 2
  done
  (cd "$SRC" && "$SQLITE3" "${args[@]}" :memory: ".read queries/$query.sql")
}
mask() { sed -e 's/"\(generated_at_utc\|recorded_at_utc\)": "[^"]*"/"\1": "@NOW@"/' \
             -e 's/^- Generated At (UTC): `[^`]*`/- Generated At (UTC): `@NOW@`/'; }
# the report without its "## Run Metadata" block (the command adds facts there)
no_meta() { awk '/^## Run Metadata/{skip=1; next} /^## /{skip=0} !skip'; }

# ---- usage -------------------------------------------------------------------
status "xplane --help" 0 "$X" --help
grep -q '^usage: xplane COMMAND' out || check "xplane --help prints the usage" yes no
for c in summarize report query compare track history bundle convert sql; do
  status "$c --help" 0 "$X" $c --help
  check "$c --help: usage line" "usage: xplane $c" "$(head -1 out | cut -d' ' -f1-3)"
done
status "unknown command" 2 "$X" sumarize x
status "unknown option" 2 "$X" summarize x --topk 2
status "misspelled parameter" 2 "$X" report x --top_k 2
status "extra argument" 2 "$X" summarize a b
status "option without value" 2 "$X" report x --top-k
status "report --format bogus" 2 "$X" report x --format bogus
grep -q -- '--format takes markdown or reference' err || check "report --format bogus: the allowed values" yes no
status "number option with text" 2 "$X" report x --top-k 2x
for c in summarize:x report:x query:x:y compare:x:y; do
  IFS=: read -r c args <<< "$c"
  status "$c --breakdown-mode bogus" 2 "$X" $c ${args//:/ } --breakdown-mode bogus
  check "$c --breakdown-mode bogus: the option and its allowed values, no internal file" \
    "xplane $c: --breakdown-mode must be exclusive_per_track or exclusive_global, not 'bogus'" "$(head -1 err)"
done
status "compare needs two" 2 "$X" compare a
status "bad format" 2 "$X" compare a b --format xml
status "track without history" 2 "$X" track a b --label x
status "version" 0 "$X" --version
check "xplane --version = xplane_version()" "xplane $("$SQLITE3" -cmd ".load $EXT" :memory: 'SELECT xplane_version()')" "$(cat out)"
check "the version is the project's" "xplane $(sed -n 's/^project(xplane_sqlite VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")" "$(cat out)"

# ---- a generated 2-host run --------------------------------------------------
"$BUILD/tools/xplane_gen" --out "$tmp/logs" --run r1 --style gpu --hosts 2 --devices 2 --steps 12 \
  --ops-per-step 64 --seed 7 > /dev/null || check "xplane_gen" 0 1
"$BUILD/tools/xplane_gen" --out "$tmp/logs2" --run r1 --style gpu --hosts 1 --devices 2 --steps 12 \
  --ops-per-step 64 --seed 8 > /dev/null || check "xplane_gen" 0 1
run=$tmp/logs/plugins/profile/r1
status "summarize of 2 hosts without --host" 2 "$X" summarize "$run"
grep -q 'host0' err && grep -q 'host1' err || check "the refusal lists the hosts" yes no
status "summarize --host host1" 0 "$X" summarize "$run" --host host1 -o h1.json
check "--host host1: the document of host1.xplane.pb" "$run/host1.xplane.pb" "$(jq -r .source_path h1.json)"
status "summarize --all-hosts" 0 "$X" summarize "$run" --all-hosts -o all
check "--all-hosts: one document per host" "all/r1/host0.summary.json all/r1/host1.summary.json" "$(echo all/r1/*.json)"
check "--all-hosts: host1's document = --host host1's" "$(jq -S 'del(.generated_at_utc)' h1.json)" \
  "$(jq -S 'del(.generated_at_utc)' all/r1/host1.summary.json)"
m0=$(jq '.step_time.steady_state_steps.median' all/r1/host0.summary.json)
m1=$(jq '.step_time.steady_state_steps.median' all/r1/host1.summary.json)
check "cross-host: both hosts" "2" "$(jq '.hosts | length' all/cross_host.json)"
check "cross-host: slowest host" "$(awk -v a="$m0" -v b="$m1" 'BEGIN{print (a > b ? "r1/host0" : "r1/host1")}')" \
  "$(jq -r .slowest_host all/cross_host.json)"
check "cross-host: skew = (max - min) / min" "$(awk -v a="$m0" -v b="$m1" 'BEGIN{lo=a<b?a:b; hi=a<b?b:a; printf "%.9f", (hi-lo)/lo}')" \
  "$(jq -r '.step_time_skew' all/cross_host.json | awk '{printf "%.9f", $1}')"
# the report's cross-host table (ms; issue 39 item 8): hosts of different runs are not compared:
# a logdir with run r1 (2 hosts) and run r2 (1 host, another seed) gets a line per run, r1's
# slowest host and skew from the two summaries above (us -> ms), r2's skew n/a
mkdir -p two/plugins/profile/r1 two/plugins/profile/r2
cp "$run"/host*.xplane.pb two/plugins/profile/r1/ && cp "$tmp/logs2/plugins/profile/r1/host0.xplane.pb" two/plugins/profile/r2/
"$X" report -q two > two.md
check "cross-host table: a line per run, each run's hosts compared among themselves" \
  "- Run \`r1\`: 2 hosts; slowest host \`$(awk -v a="$m0" -v b="$m1" 'BEGIN{print (a > b ? "host0" : "host1")}')\`; step-time skew ((slowest - fastest) / fastest median) $(awk -v a="$m0" -v b="$m1" 'BEGIN{lo=a<b?a:b; hi=a<b?b:a; printf "%.2f%%", 100*(hi-lo)/lo}')
- Run \`r2\`: 1 host; slowest host \`host0\`; step-time skew ((slowest - fastest) / fastest median) n/a" \
  "$(grep '^- Run `' two.md)"
"$X" summarize two --all-hosts -o twoall -q
check "cross-host JSON: per run, r2 alone has no skew" "r1|2|null r2|1|null" \
  "$(jq -r '.runs[] | "\(.run)|\(.hosts)|\(if .hosts == 1 then .step_time_skew else null end)"' twoall/cross_host.json | tr '\n' ' ' | sed 's/ $//')"
check "cross-host table: r1's host0 median in ms" "$(awk -v a="$m0" 'BEGIN{printf "%.3f", a / 1000}')" \
  "$(grep '^| `r1` | `host0`' two.md | sed 's/^| //; s/ *| */|/g' | cut -d'|' -f4)"
status "report of 2 hosts covers both" 0 "$X" report "$run"
check "report: one report per host" "2" "$(grep -c '^# Profile Report$' out)"
check "report: the hosts named" "- Host: \`host0\`
- Host: \`host1\`" "$(grep '^- Host: ' out)"
# a descriptor handed down (the TensorBoard plugin's way of reading a listed file
# without looking its path up again): read as the descriptor, named by the file it
# refers to (run: its folder r1, host: its name without .xplane.pb)
"$X" report -q /dev/fd/3 3< "$run/host1.xplane.pb" > fd.md
check "report of /dev/fd/3: run and host of the file it refers to" "- Run: \`r1\`|- Host: \`host1\`" \
  "$(grep -E '^- (Run|Host): ' fd.md | tr '\n' '|' | sed 's/|$//')"
check "report of /dev/fd/3 = report of the file (but the generation time)" \
  "$("$X" report -q "$run/host1.xplane.pb" | grep -v -i 'generated')" "$(grep -v -i 'generated' fd.md)"
check "compare names each side's run/host (a descriptor by its file)" "/dev/fd/3 r1/host1 r1/host0" \
  "$("$X" compare -q /dev/fd/3 "$run/host0.xplane.pb" 3< "$run/host1.xplane.pb" | jq -r '.before_source, .before_name, .after_name' | tr '\n' ' ' | sed 's/ $//')"
check "compare markdown: the run/host beside each path" "- Before: \`/dev/fd/3\` (run/host \`r1/host1\`," \
  "$("$X" compare -q --format markdown /dev/fd/3 "$run/host0.xplane.pb" 3< "$run/host1.xplane.pb" | grep "^- Before: " | cut -d" " -f1-5)"
# train/ and eval/ logdirs whose run directories share a name stay two runs
for r in train eval; do
  "$BUILD/tools/xplane_gen" --out "$tmp/logs3/$r" --run T --style gpu --hosts 1 --devices 1 --steps 8 \
    --ops-per-step 16 --seed 5 > /dev/null || check "xplane_gen $r" 0 1
done
status "summarize --all-hosts of train/ and eval/" 0 "$X" summarize "$tmp/logs3" --all-hosts -o all3
check "train/T and eval/T: two runs" "eval/T/host0 train/T/host0" "$(jq -r '[.hosts[] | .run + "/" + .host] | join(" ")' all3/cross_host.json)"
check "train/T and eval/T: two documents" "all3/eval/T/host0.summary.json all3/train/T/host0.summary.json" \
  "$(echo all3/*/T/*.json)"
# no progress when stderr is not a terminal
"$X" summarize "$run" --host host0 -o /dev/null 2> err
check "no progress on a non-terminal stderr" "" "$(cat err)"
b=$tmp/logs/plugins/profile/r1/host0.xplane.pb a=$tmp/logs2/plugins/profile/r1/host0.xplane.pb

# query "gap before OP" / "context for op OP": OP names an op exactly (letter case aside);
# a name that only contains it, or none, is an error (exit 1) listing the names containing it.
# The names come from the profile's own ops (xplane_ops in the sqlite3 shell).
status "query: gap before an op of the profile" 0 "$X" query "$b" "gap before transpose.4" -q
check "the exact op's gap, not transpose.44's or transpose.4X's" "transpose.4" "$(jq -r .target out)"
status "query: letter case aside" 0 "$X" query "$b" "gap before TRANSPOSE.4" -q
status "query: context for op OP (the word op is not part of the name)" 0 "$X" query "$b" "context for op transpose.4" -q
check "context for op transpose.4: its target" "transpose.4" "$(jq -r '.target // .op // empty' out | head -1)"
near=$("$SQLITE3" -cmd ".load $EXT" :memory: "SELECT group_concat('''' || name || '''', ', ') FROM (SELECT DISTINCT name FROM xplane_ops('$b')
  WHERE instr(name, 'ranspose.3') ORDER BY length(name), name LIMIT 5)")
status "query: gap before a part of names only" 1 "$X" query "$b" "gap before ranspose.3" -q
check "the error names the file, the op and the names that contain it" \
  "xplane: $b: no op or event named 'ranspose.3'; names that contain it: $near" "$(cat err)"
status "query: gap before no such op" 1 "$X" query "$b" "gap before no_such_op" -q
check "no such op: the error says how to list ops" \
  "xplane: $b: no op or event named 'no_such_op' (xplane query PATH \"top ops\" lists the hottest)" "$(cat err)"
check "no such op: nothing on stdout" "" "$(cat out)"

# query "findings": answered by name (it was "no question matches", exit 2); counts from
# xplane_findings in the sqlite3 shell
nf=$("$SQLITE3" -cmd ".load $EXT" :memory: "SELECT count(*) FROM xplane_findings('$b')")
status "query findings" 0 "$X" query "$b" findings -q
check "query findings: every finding of xplane_findings" "findings null $nf" "$(jq -r '"\(.query_type) \(.finding) \(.results | length)"' out)"
nt=$("$SQLITE3" -cmd ".load $EXT" :memory: "SELECT count(*) FROM xplane_findings('$b') WHERE id = 'transfers'")
status "query \"findings transfers\"" 0 "$X" query "$b" "findings transfers" -q
check "findings transfers: that rule only" "transfers $nt" "$(jq -r '"\(.finding) \(.results | length)"' out)"
status "query \"performance killers\"" 0 "$X" query "$b" "performance killers" -q
status "query findings --summary: a usage error" 2 "$X" query --summary h1.json findings

# progress, forced (--progress): the percent of the profile read, then the end line, on stderr
"$BUILD/tools/xplane_gen" --out "$tmp/big" --run r --style gpu --devices 2 --target-mb 8 --seed 3 > /dev/null ||
  check "xplane_gen big" 0 1
big=$tmp/big/plugins/profile/r/host0.xplane.pb
mb=$(awk -v n="$(stat -c %s "$big")" 'BEGIN{printf "%.1f", n / 1e6}')
status "summarize --progress" 0 "$X" summarize "$big" --progress -o "$tmp/big.json"
check "--progress: stdout empty (-o)" "" "$(cat out)"
check "--progress: every line names the work and the size" "" \
  "$(grep -Ev "^xplane: summary host0 \($mb MB\): ([0-9]+% read, )?[0-9]+\.[0-9] s$|^xplane: summary host0 \($mb MB\): done in [0-9.]+ s, [0-9.]+ MB/s$" err)"
pcts=$(grep -o '[0-9]*% read' err | tr -d '% read')
check "--progress: percents never go down" "$(sort -n <<< "$pcts")" "$pcts"
check "--progress: 100 % reached" "100" "$(tail -1 <<< "$pcts")"
[ "$(sort -un <<< "$pcts" | wc -l)" -ge 3 ] || check "--progress: at least 3 distinct percents" ">= 3" "$(echo $pcts)"
check "--progress: the last line says done" "done" "$(tail -1 err | grep -o 'done')"
"$X" summarize "$big" -o "$tmp/big2.json" 2> err
check "no --progress, stderr not a terminal: nothing" "" "$(cat err)"
check "--progress changes no byte of the document" "$(jq -S 'del(.generated_at_utc)' "$tmp/big.json")" \
  "$(jq -S 'del(.generated_at_utc)' "$tmp/big2.json")"
status "--quiet with --progress" 2 "$X" summarize "$big" --progress --quiet
status "convert --progress" 0 "$X" convert "$big" -o "$tmp/big.pftrace" --progress
check "convert --progress: 100 % read, then done" "xplane: convert ($mb MB): 100% read
done" "$(grep -o "^xplane: convert ($mb MB): 100% read" err | head -1; tail -1 err | grep -o done)"
check "xplane_progress: SQL cannot set a hook (NULL, text, number clear it)" "0|0|0" \
  "$("$SQLITE3" -cmd ".load $EXT" :memory: "SELECT xplane_progress(NULL), xplane_progress('0x1'), xplane_progress(4096)")"

# report --html: queries/profile_report_html.sql (--format reference:
# queries/report_html.sql) on one host, to -o FILE or stdout
status "report --html of 2 hosts without --host" 2 "$X" report --html "$run"
grep -q 'host1' err || check "report --html: the refusal lists the hosts" yes no
status "report --html --host host0 -o" 0 "$X" report --html "$run" --host host0 -o r.html
check "report --html -o: nothing on stdout or stderr" "" "$(cat out err)"
# the page carries the markdown report's text: every list item (the run metadata, with the
# device facts the command adds), every heading, and every table cell of the device table,
# as the markdown prints them
"$X" report -q "$run" --host host0 > r.md
check "report --html: the markdown report's list items (run metadata included)" \
  "$(grep '^- ' r.md | grep -v '^- Generated At' | sed 's/^- //; s/`//g')" \
  "$(grep -o '<li>.*</li>' r.html | sed 's/<\/li><li>/\n/g; s/<[^>]*>//g' | grep -v '^Generated At' | sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g')"
check "report --html: the markdown report's headings, in order" "$(grep '^## ' r.md | sed 's/^## //')" \
  "$(grep -o '<h2>[^<]*</h2>' r.html | sed 's/<[^>]*>//g' | sed '/^Pictures$/,$d')"
check "report --html: the device table's cells = the markdown's" \
  "$(sed -n '/^## Device Time$/,/^## Device Time Breakdown$/p' r.md | grep '^| [`A]' | sed 's/^| //; s/ |$//; s/ *| */|/g; s/`//g')" \
  "$(sed -n '/<h2>Device Time<\/h2>/,/<h2>Device Time Breakdown<\/h2>/p' r.html | grep -o '<tr><td>.*</td></tr>' |
     sed 's/<\/td><td>/|/g; s/<[^>]*>//g; s/^ *//; s/ *$//; s/ *| */|/g')"
status "report --html --format reference -o" 0 "$X" report --html --format reference "$run" --host host0 -o ref.html
ref_shell=$(cd "$SRC" && "$SQLITE3" -bail -cmd ".load $EXT" -cmd ".parameter set @profile '$run/host0.xplane.pb'" :memory: \
  '.read queries/report_html.sql' | sed 's/&middot; generated [^<]*</\&middot; generated @NOW@</')
check "report --html --format reference = queries/report_html.sql in the shell" "$ref_shell" \
  "$(sed 's/&middot; generated [^<]*</\&middot; generated @NOW@</' ref.html)"
grep -q 'id="report-end"' r.html || check "report --html: the page is whole" yes no
status "report --html to stdout" 0 "$X" report --html "$run/host0.xplane.pb"
check "report --html: stdout = -o FILE" "$(sed 's/Generated At (UTC): <code>[^<]*</@/' r.html)" "$(sed 's/Generated At (UTC): <code>[^<]*</@/' out)"
status "report --html of a saved summary" 2 "$X" report --html --summary h1.json
status "report --html --all-hosts" 2 "$X" report --html "$run" --all-hosts
printf '{"git_sha": "abc123"}\n' > gsha.json
status "report --html --metadata" 0 "$X" report --html "$b" --metadata gsha.json
check "report --html --metadata: the run facts on the page" "1" "$(grep -c '<li>Git SHA: <code>abc123</code></li>' out)"
status "report --html --format reference --metadata" 2 "$X" report --html --format reference "$b" --metadata gsha.json
# -o FILE: replaced on success (as every -o), left as it was when the run fails
echo old > r2.html
status "report --html -o an existing file" 0 "$X" report --html "$b" -o r2.html
grep -q 'id="report-end"' r2.html || check "-o: an existing file is replaced" yes no
cp r2.html r2.before
printf 'not a profile' > bad.xplane.pb
status "report --html of a bad profile" 1 "$X" report --html bad.xplane.pb -o r2.html
grep -q 'bad.xplane.pb' err || check "a bad profile: the error names it" yes "$(cat err)"
check "a failed run leaves -o FILE as it was" "$(cat r2.before)" "$(cat r2.html)"
check "a failed run leaves no temporary file" "" "$(ls -a | grep 'tmp-' || true)"
status "summarize of a bad profile -o" 1 "$X" summarize bad.xplane.pb -o h1.json
check "summarize: a failed run leaves -o FILE as it was" "$run/host1.xplane.pb" "$(jq -r .source_path h1.json)"
check "-o FILE: the usual mode (0666 less the umask)" "$(umask 022; touch m.ref; stat -c %a m.ref)" \
  "$(umask 022; "$X" summarize "$b" -o m.json; stat -c %a m.json)"
status "track pass" 0 "$X" track "$b" "$a" --label pass --history gen.db
# a verdict only for what was checked (issue 39 item 6): the same trace twice fails the
# provenance check, so it is not a pass; no steady-state step on a side (warm-up 12 of 12
# steps) leaves the step-time thresholds unchecked: a warning (exit 3) that says why
status "track of the same trace twice: warn" 3 "$X" track "$b" "$b" --label same --history gen.db
check "track of the same trace twice: the provenance failure is the warning" \
  '["Provenance check failed: Before and after summaries point to identical trace content (matching SHA256). Before and after summaries have the same source_path."]' \
  "$(jq -c .assessment.warnings out)"
status "track with every step warm-up: warn" 3 "$X" track "$b" "$a" --label nosteps --history nosteps.db --warmup-steps 12
check "track with every step warm-up: the unchecked step time is the warning" \
  '["Step time not checked: neither side has a steady-state step (a step numbered 12 or more)."]' \
  "$(jq -c .assessment.warnings out)"
# the device-time model's idle share (any growth over -1 warns); the reference's stall share
# only with --format reference, each threshold refused by the other model
status "track warn" 3 "$X" track "$b" "$a" --label w --history gen.db --max-idle-share-regression-abs -1
check "track warn: the idle share's warning" "Device idle share (of device wall time) increased by" \
  "$(jq -r '.assessment.warnings[0]' out | grep -o '^Device idle share (of device wall time) increased by')"
status "track warn (reference)" 3 "$X" track "$b" "$a" --label wr --history gen.db --format reference --max-stall-share-regression-abs -1
check "track warn (reference): the stall share's warning, the reference's record" "Stall share increased by|null" \
  "$(jq -r '.assessment.warnings[0]' out | grep -o '^Stall share increased by')|$(jq -r .assessment.model out)"
status "track: the stall threshold without --format reference" 2 "$X" track "$b" "$a" --label x --history gen.db --max-stall-share-regression-abs 1
status "track: the idle threshold with --format reference" 2 "$X" track "$b" "$a" --label x --history gen.db --format reference --max-idle-share-regression-abs 1
status "track: --format bogus" 2 "$X" track "$b" "$a" --label x --history gen.db --format bogus
status "track fail" 4 "$X" track "$b" "$a" --label f --history gen.db --max-step-median-regression-pct -100
check "track fail: the record says fail" "fail" "$(jq -r .assessment.status out)"
status "history of the five --format json" 0 "$X" history --history gen.db --format json
check "history: statuses" '{"fail":1,"pass":1,"warn":3}' "$(jq -S -c .status_counts out)"
# the default: a table (issue 39 item 5), a row per record in order; its step medians are
# the records' own (read here by jq from the database: ms in the device model's records,
# microseconds in the reference's) in ms
status "history of the five (table)" 0 "$X" history --history gen.db
check "history table: the counts" "- Records: 5 (pass 1, warn 3, fail 1)" "$(grep '^- Records:' out)"
check "history table: a row per record, label, status and model" \
  '`pass`|pass|device time `same`|warn|device time `w`|warn|device time `wr`|warn|reference `f`|fail|device time' \
  "$(grep '^| [0-9]' out | sed 's/^| //; s/ *| */|/g' | cut -d'|' -f3,4,5 | tr '\n' ' ' | sed 's/ $//')"
check "history table: row 1's medians = the record's, in ms" \
  "$("$SQLITE3" gen.db "SELECT record FROM regression_history ORDER BY id LIMIT 1" |
     jq -r '.assessment.comparison.steps | "\(.before.median_ms * 1000 | round / 1000)|\(.after.median_ms * 1000 | round / 1000)"')" \
  "$(grep '^| 1 |' out | sed 's/^| //; s/ *| */|/g' | cut -d'|' -f6,7 | sed 's/\.\?0*|/|/; s/\.\?0*$//')"
check "history table: row 4 (the reference's record) medians = the record's microseconds, in ms" \
  "$("$SQLITE3" gen.db "SELECT record FROM regression_history ORDER BY id LIMIT 1 OFFSET 3" |
     jq -r '.assessment.comparison.step_time | "\(.steady_state_median_before / 1000 * 1000 | round / 1000)|\(.steady_state_median_after / 1000 * 1000 | round / 1000)"')" \
  "$(grep '^| 4 |' out | sed 's/^| //; s/ *| */|/g' | cut -d'|' -f6,7 | sed 's/\.\?0*|/|/; s/\.\?0*$//')"
status "history --format bogus" 2 "$X" history --history gen.db --format bogus
# a full disk (issue 41): every command writing to stdout or -o fails (exit 1) saying so;
# query, history and track exited 0 / 3 with their answer lost
if [ -w /dev/full ]; then
  for c in "summarize -q $b" "report -q $b" "report -q --html $b" "compare -q $b $a" "compare -q --format markdown $b $a" \
           "query $b findings" "history --history gen.db" "track -q $b $a --label full --history full.db"; do
    # shellcheck disable=SC2086
    "$X" $c > /dev/full 2> err; rc=$?
    check "$c > /dev/full: exit 1, the error says so" "1|1" "$rc|$(grep -c 'stdout: No space left on device' err)"
  done
  "$X" query "$b" "top 5 ops" > /dev/full 2> err; rc=$?
  check "query top 5 ops > /dev/full: exit 1, the error says so" "1|1" "$rc|$(grep -c 'stdout: No space left on device' err)"
  status "report -o /dev/full" 1 "$X" report -q "$b" -o /dev/full
  check "report -o /dev/full: the error names it" "1" "$(grep -c '/dev/full: No space left on device' err)"
fi
# a history database someone else wrote (issue 41): its trigger or view cannot make the command
# read files through the extension or write one; the run fails naming the refusal, appends no row
cp gen.db evil.db
"$SQLITE3" evil.db "CREATE TRIGGER t AFTER INSERT ON regression_history BEGIN
  SELECT xplane_to_perfetto('$b', '$tmp/pwn.pftrace'); END;"
status "track into a history with a file-writing trigger: refused" 1 "$X" track "$b" "$a" --label evil --history evil.db
check "the trigger's refusal is named; no file written; no row appended" "1|no|5" \
  "$(grep -c 'unsafe use of xplane_to_perfetto()' err)|$([ -e "$tmp/pwn.pftrace" ] && echo yes || echo no)|$("$SQLITE3" evil.db 'SELECT count(*) FROM regression_history')"
"$SQLITE3" evil.db "DROP TRIGGER t; CREATE TRIGGER t AFTER INSERT ON regression_history BEGIN
  SELECT count(*) FROM xplane_files('/etc'); END;"
status "track into a history with a file-reading trigger: refused" 1 "$X" track "$b" "$a" --label evil --history evil.db
check "the file-reading trigger's refusal is named" "1" "$(grep -c 'unsafe use of virtual table "xplane_files"' err)"
"$SQLITE3" view.db "CREATE VIEW regression_history AS SELECT 1 AS id, '' AS recorded_at_utc, '' AS label,
  'pass' AS status, (SELECT group_concat(path) FROM xplane_files('/etc')) AS record;"
status "history of a database whose history is a file-reading view: refused" 1 "$X" history --history view.db
check "the view's refusal is named" "1" "$(grep -c 'unsafe use of virtual table "xplane_files"' err)"
# the plain shell: no temp table left, .bail back off
left=$(cd "$SRC" && "$SQLITE3" -cmd ".load $EXT" -cmd ".parameter set @profile '$b'" :memory: \
  '.read queries/summary.sql' '.output stdout' "SELECT count(*) FROM sqlite_temp_master WHERE name LIKE 'xq%';" | tail -1)
check "queries/summary.sql leaves no temp table" "0" "$left"

# the plain shell: a misspelled parameter stops the query (it was silently ignored)
(cd "$SRC" && "$SQLITE3" -cmd ".load $EXT" -cmd ".parameter set @profile '$b'" -cmd ".parameter set @topk 2" :memory: \
  '.read queries/top_ops.sql') > out 2> err
check "queries: @topk refused (exit status)" 1 "$?"
grep -q 'unknown parameter' err || check "queries: @topk refused with a message" yes "$(cat err)"

# ---- cmake --install: the installed command and queries work from anywhere ----
if cmake --install "$BUILD" --prefix "$tmp/inst" > /dev/null 2> err; then
  check "installed: summarize = the build's" "$("$X" summarize "$b" | mask)" "$("$tmp/inst/bin/xplane" summarize "$b" | mask)"
  check "installed: queries/summary.sql in the plain shell from another directory" "$(shell summary profile "$b" | mask)" \
    "$("$SQLITE3" -bail -cmd ".load $tmp/inst/lib/xplane/xplane" -cmd ".parameter set @profile '$b'" :memory: \
       ".read $tmp/inst/share/xplane/queries/summary.sql" | mask)"
  check "installed: pkg-config's extension is the installed file" "$(realpath "$tmp/inst/lib/xplane/xplane.so")" \
    "$(realpath "$(PKG_CONFIG_PATH=$tmp/inst/lib/pkgconfig pkg-config --variable=extension xplane-sqlite).so")"
  check "installed: only sqlite3_xplane_init exported" "sqlite3_xplane_init" \
    "$(nm -D --defined-only "$tmp/inst/lib/xplane/xplane.so" | awk '$2 == "T" {print $3}')"
  for f in bin/xplane2perfetto share/xplane/perfetto/xplane/reports.sql share/doc/xplane_sqlite/LICENSE; do
    [ -e "$tmp/inst/$f" ] || check "installed: $f" present missing
  done
  # the trace processor runners (issue 39 item 10): installed with their run bit beside the
  # package; from another directory the installed tp_run.sh prints what the repository's does
  check "installed: tp_run.sh and tp_query.sh are executable" "yes yes" \
    "$([ -x "$tmp/inst/share/xplane/perfetto/tp_run.sh" ] && echo yes || echo no) $([ -x "$tmp/inst/share/xplane/perfetto/tp_query.sh" ] && echo yes || echo no)"
  # the TensorBoard plugin (issue 38): its source is installed, and pip installs it from there;
  # with no build beside it the package bundles nothing and finds the installed command
  check "installed: the plugin's pyproject.toml" present \
    "$([ -f "$tmp/inst/share/xplane/tensorboard_plugin/pyproject.toml" ] && echo present || echo missing)"
  VPY=$BUILD/venv/bin/python
  if [ -x "$VPY" ] && "$VPY" -c 'import setuptools, tensorboard' 2> /dev/null; then
    # (XPLANE_BUILD_DIR unset: setup.py would bundle that build, as the CI's environment names one)
    env -u XPLANE_BUILD_DIR "$VPY" -m pip install -q --no-deps --no-build-isolation --target "$tmp/tbp" \
      "$tmp/inst/share/xplane/tensorboard_plugin" > "$tmp/pip.out" 2>&1
    check "installed: pip installs the plugin from share/xplane ($(tail -c 200 "$tmp/pip.out"))" 0 $?
    check "installed: the plugin's entry point" "xplane = xplane_tensorboard.plugin:XplanePlugin" \
      "$(grep -h '^xplane' "$tmp"/tbp/xplane_tensorboard*.dist-info/entry_points.txt 2> /dev/null)"
    check "installed: the plugin finds the installed command and extension" "$tmp/inst/bin/xplane $tmp/inst/lib/xplane/xplane" \
      "$(cd / && env -u XPLANE_CLI -u XPLANE_EXTENSION PATH=$tmp/inst/bin:$PATH PYTHONPATH=$tmp/tbp "$VPY" -c 'from xplane_tensorboard import native; print(*native.locate())' 2>&1)"
  else
    echo "note: no project venv with tensorboard: the installed plugin is not pip-installed"
  fi
  TPS=${TRACE_PROCESSOR_SHELL:-$SRC/../shared/tools/trace_processor_shell}
  if [ -x "$TPS" ]; then
    "$tmp/inst/bin/xplane2perfetto" -o "$tmp/b.pftrace" "$b" > /dev/null 2>&1
    check "installed: tp_run.sh's summary = the repository's tp_run.sh's" \
      "$(cd "$SRC" && TRACE_PROCESSOR_SHELL=$TPS tp_plugin/tp_run.sh "$tmp/b.pftrace" queries/summary.sql 2>/dev/null | mask)" \
      "$(cd / && TRACE_PROCESSOR_SHELL=$TPS "$tmp/inst/share/xplane/perfetto/tp_run.sh" "$tmp/b.pftrace" queries/summary.sql 2>/dev/null | mask)"
    check "installed: tp_run.sh printed the summary document" "profile_summary.v1" \
      "$(cd / && TRACE_PROCESSOR_SHELL=$TPS "$tmp/inst/share/xplane/perfetto/tp_run.sh" "$tmp/b.pftrace" queries/summary.sql 2>/dev/null | jq -r .schema_version)"
  else
    echo "note: no trace_processor_shell: the installed tp_run.sh is not run"
  fi
else
  check "cmake --install ($(cat err))" 0 1
fi

# ---- real profiles -----------------------------------------------------------
if [ ! -d "$DATA" ] || ! ls "$DATA"/*.xplane.pb > /dev/null 2>&1; then
  echo "SKIP: no real profiles in $DATA (set XPLANE_DATA): $pass checks passed, $fail failed"
  [ $fail -eq 0 ] && exit 77 || exit 1
fi
for f in "$DATA"/*.xplane.pb; do
  n=$(basename "$f" .xplane.pb)
  "$X" summarize "$f" -o "$n.json" 2> err || check "$n: summarize ($(cat err))" 0 1
  shell summary profile "$f" > "$n.shell.json"
  check "$n: summarize = queries/summary.sql (but run_metadata)" \
    "$(jq -S 'del(.generated_at_utc, .run_metadata)' "$n.shell.json")" "$(jq -S 'del(.generated_at_utc, .run_metadata)' "$n.json")"
  "$X" report "$f" > "$n.main.md" 2> err || check "$n: report ($(cat err))" 0 1
  check "$n: report = queries/profile_report.sql (but run metadata)" \
    "$(shell profile_report profile "$f" | mask | no_meta)" "$(mask < "$n.main.md" | no_meta)"
  "$X" report --format reference "$f" > "$n.md" 2> err || check "$n: report --format reference ($(cat err))" 0 1
  check "$n: report --format reference = queries/report.sql (but run metadata)" \
    "$(shell report profile "$f" | mask | no_meta)" "$(mask < "$n.md" | no_meta)"
  "$X" report --summary "$n.json" > "$n.saved.md" 2> err || check "$n: report --summary ($(cat err))" 0 1
  check "$n: report --summary = report --format reference PATH" "$(mask < "$n.md")" "$(mask < "$n.saved.md")"
  [ "$n" = gpu_mw ] && status "$n: report --summary --format markdown" 2 "$X" report --summary "$n.json" --format markdown
done

tpu=$DATA/xprof_tpu_inference_2.xplane.pb gpu=$DATA/gpu_mw.xplane.pb
if [ -f "$tpu" ] && [ -f "$gpu" ]; then
  check "TPU: hardware from the plane stats" "TPU v6 Lite" "$(jq -r .run_metadata.hardware_type xprof_tpu_inference_2.json)"
  check "TPU: report lines" "- Hardware: \`TPU v6 Lite\`
- Devices: \`4 x TPU v6 Lite\`
- Peak FLOP/s per device: \`9.180e+14\`" "$(grep -E '^- (Hardware|Devices|Peak FLOP)' xprof_tpu_inference_2.md)"
  printf '{"git_sha": "abc123", "config": "O'"'"'Brien", "seed": "0123e45"}\n' > meta.json
  printf 'key,value\ngit_sha,2024-01-15\nlr,0123e45\n' > meta.csv
  "$X" report "$tpu" --metadata meta.json > m.md
  check "--metadata JSON: git sha and a fact" "- Git SHA: \`abc123\`
- config: \`O'Brien\`" "$(grep -E '^- (Git SHA|config):' m.md)"
  # the run_metadata keys by name (issue 39 item 1): artifact_name shows as the Artifact when
  # there is no artifact_ref, topology is mesh_or_topology, a run_id is printed
  printf 'key,value\nartifact_name,resnet50\ntopology,2x2\nrun_id,r-17\n' > keys.csv
  "$X" report "$tpu" --metadata keys.csv > k.md
  check "--metadata: artifact_name, topology and run_id in the report" "- Run ID: \`r-17\`
- Artifact: \`resnet50\`
- Topology: \`2x2\`" "$(grep -E '^- (Run ID|Artifact|Topology):' k.md)"
  "$X" summarize "$tpu" --metadata keys.csv -o k.json
  check "--metadata: topology sets mesh_or_topology in the summary, no fact of its own" "2x2|r-17|resnet50|0" \
    "$(jq -r '[.run_metadata.mesh_or_topology, .run_metadata.run_id, .run_metadata.artifact_name,
               ([.run_metadata.facts[] | select(.name == "topology")] | length)] | map(tostring) | join("|")' k.json)"
  "$X" summarize "$tpu" --metadata meta.csv -o m.json
  check "--metadata CSV: values as text" "2024-01-15 0123e45" "$(jq -r '.run_metadata.git_sha + " " + (.run_metadata.facts[] | select(.name == "lr") | .value)' m.json)"

  # query routing
  "$X" query "$gpu" "what are the top 3 ops?" > q.json
  check "query: top 3 ops = top_ops.sql with top_k 3" "$(shell top_ops profile "$gpu" top_k 3)" "$(cat q.json)"
  check "query: 3 answers" 3 "$(jq '.results | length' q.json)"
  "$X" query --summary gpu_mw.json "is compute or communication dominating" > q2.json
  check "query --summary = the shell on the profile" "$(shell compute_vs_communication profile "$gpu")" "$(cat q2.json)"
  status "report: --host with a saved summary" 2 "$X" report gpu_mw.json --host h
  status "query: a question not understood" 2 "$X" query "$gpu" "make it faster please"
  grep -q 'top N ops' err || check "the refusal lists the questions" yes no

  # compare
  "$X" compare "$gpu" "$tpu" > c.json
  check "compare = queries/profile_compare.sql (the device-time model)" "$(shell profile_compare before "$gpu" after "$tpu")" "$(cat c.json)"
  check "compare: the document's schema and model" "xplane_compare.v1|device_time" "$(jq -r '.schema_version + "|" + .model' c.json)"
  "$X" compare --format reference-json "$gpu" "$tpu" > cr.json
  check "compare --format reference-json = queries/compare.sql" "$(shell compare before "$gpu" after "$tpu")" "$(cat cr.json)"
  "$X" compare gpu_mw.json "$tpu" > c2.json
  check "compare: a saved summary and a profile = the reference's document of two profiles" "$(cat cr.json)" "$(cat c2.json)"
  status "compare --strict-provenance, two traces" 0 "$X" compare "$gpu" "$tpu" --strict-provenance
  status "compare --strict-provenance, the same trace" 4 "$X" compare "$gpu" "$gpu" --strict-provenance
  status "compare, the same trace, not strict" 0 "$X" compare "$gpu" "$gpu"

  # values round-trip
  for label in 2024-01-15 0123e45 "O'Brien"; do
    "$X" track "$gpu" "$tpu" --label "$label" --history hist.db > t.json
    check "track label $label printed unchanged" "$label" "$(jq -r .label t.json)"
  done
  check "labels stored as text, unchanged" "2024-01-15|text
0123e45|text
O'Brien|text" "$("$SQLITE3" hist.db 'SELECT label, typeof(label) FROM regression_history ORDER BY id')"
  "$X" history --history hist.db --format json > h.json
  check "history: 3 records" 3 "$(jq .num_records h.json)"
  status "history: missing file" 1 "$X" history --history missing.db
  check "history: missing file not created" "no" "$([ -e missing.db ] && echo yes || echo no)"
  status "history: mistyped folder" 1 "$X" history --history nodir/hist.db
  status "history: not a history" 1 "$X" history --history "$gpu"
  status "track: mistyped folder" 1 "$X" track "$gpu" "$tpu" --label x --history nodir/h.db
  status "track: not a history" 1 "$X" track "$gpu" "$tpu" --label x --history gpu_mw.json

  # bundle
  # the exit status is the track status of the pair (t.json above: gpu -> tpu)
  want=$(jq -r '.assessment.status' t.json | sed 's/pass/0/; s/warn/3/; s/fail/4/')
  status "bundle: exit status = the pair's track status" "$want" "$X" bundle "$gpu" "$tpu" -o bun --quiet
  check "bundle: track record status" "$(jq -r .assessment.status t.json)" "$(jq -r .assessment.status bun/track.json)"
  # the bundle's reports and markdown comparison are the main ones (ms), not the reference's
  check "bundle: before.report.md = xplane report (but its generation time)" \
    "$("$X" report -q "$gpu" | grep -v '^- Generated At')" "$(grep -v '^- Generated At' bun/before.report.md)"
  check "bundle: compare.md = xplane compare --format markdown" \
    "$("$X" compare -q --format markdown "$gpu" "$tpu")" "$(cat bun/compare.md)"
  check "bundle: files" "after.report.md after.summary.json before.report.md before.summary.json compare.json compare.md history.db manifest.json track.json" \
    "$(cd bun && echo *)"
  check "bundle: manifest sha256 = sha256sum" "$(cd bun && sha256sum $(jq -r '.files[].name' manifest.json) | awk '{print $2 " " $1}')" \
    "$(jq -r '.files[] | .name + " " + .sha256' bun/manifest.json)"
  check "bundle: comparison = compare" "$(cat c.json)" "$(cat bun/compare.json)"
  status "bundle into a bundle refused" 1 "$X" bundle "$gpu" "$tpu" -o bun
  status "bundle: the reference's stall threshold refused" 2 "$X" bundle "$gpu" "$tpu" -o bun3 --max-stall-share-regression-abs 1
  check "bundle: nothing written when refused" "no" "$([ -e bun3 ] && echo yes || echo no)"
  status "bundle of a saved summary refused" 2 "$X" bundle gpu_mw.json "$tpu" -o bun2

  # convert: README event count (23128 for gpu_mw; none skipped)
  "$X" convert "$gpu" -o gpu.pftrace > conv.json
  check "convert: events written = data/README.md count" 23128 "$(jq .events_written conv.json)"
  [ -s gpu.pftrace ] || check "convert: trace written" yes no
  # a JSON trace is a profile too (not a saved summary): the converter's Chrome JSON
  "$X" convert "$gpu" -o gpu.json --format json > /dev/null
  status "summarize a JSON trace" 0 "$X" summarize "$tmp/gpu.json" -o gpu_from_json.json
  check "JSON trace: read as a trace" "perfetto_trace_json" "$(jq -r .source_format gpu_from_json.json)"
  check "JSON trace: the shell's summary of it" "$(shell summary profile "$tmp/gpu.json" | jq -S 'del(.generated_at_utc, .run_metadata)')" \
    "$(jq -S 'del(.generated_at_utc, .run_metadata)' gpu_from_json.json)"
  # sql: the shell with PATH as the default profile (the test's shell: under the sanitizers,
  # the wrapper that preloads their runtimes before it loads the instrumented extension)
  check "sql PATH: xplane_events count = data/README.md" 23128 \
    "$(XPLANE_SQLITE3="$SQLITE3" "$X" sql "$gpu" -- -batch :memory: 'SELECT count(*) FROM xplane_events;' 2>&1)"
fi

# ---- Unix habits of every command (issue 39, item 13) ----
# --help: usage on stdout, exit 0, nothing on stderr; an unknown option: exit 2, nothing on
# stdout, on stderr the option and then where to look ("(see: xplane CMD --help)"); a profile that does not exist: exit 1, nothing on
# stdout, one line on stderr "xplane: PATH: no such file or directory" (no table's name, no
# query file's line); a missing argument: exit 2 with the usage hint.
nx=/nonexistent/x.xplane.pb
habit() { # NAME WANT_RC WANT_STDERR_LINES WANT_FIRST_STDERR_LINE_RE COMMAND...
  local name=$1 rc_want=$2 lines=$3 re=$4
  shift 4
  "$@" > "$tmp/h.out" 2> "$tmp/h.err"
  local rc=$?
  check "habits: $name" "$rc_want|0|$lines|1" "$rc|$(wc -c < "$tmp/h.out")|$(wc -l < "$tmp/h.err")|$(head -1 "$tmp/h.err" | grep -cE -- "$re")"
}
for c in summarize report query compare track history bundle convert sql; do
  "$X" "$c" --help > "$tmp/h.out" 2> "$tmp/h.err"
  check "habits: $c --help" "0|1|0" "$?|$(grep -c "^usage: xplane $c" "$tmp/h.out")|$(wc -c < "$tmp/h.err")"
  habit "$c --bogus" 2 2 "^xplane $c: unknown option --bogus$" "$X" "$c" --bogus
done
habit "summarize: no such profile" 1 1 "^xplane: $nx: no such file or directory$" "$X" summarize "$nx"
habit "report: no such profile" 1 1 "^xplane: $nx: no such file or directory$" "$X" report "$nx"
habit "query: no such profile" 1 1 "^xplane: $nx: no such file or directory$" "$X" query "$nx" "top ops"
habit "compare: no such profile" 1 1 "^xplane: $nx: no such file or directory$" "$X" compare "$nx" "$b"
habit "track: no such profile" 1 1 "^xplane: $nx: no such file or directory$" "$X" track "$nx" "$b" --history "$tmp/hh.db" --label x
habit "bundle: no such profile" 1 1 "^xplane: $nx: no such file or directory$" "$X" bundle "$nx" "$b" -o "$tmp/nb"
habit "convert: no such profile" 1 1 "^xplane: convert: $nx: no such file or directory$" "$X" convert "$nx" -o "$tmp/x.pftrace"
habit "summarize: a missing argument" 2 2 "^xplane summarize: missing argument\\(s\\)$" "$X" summarize
habit "an unknown command" 2 1 "^xplane: unknown command 'bogus' \\(xplane --help lists them\\)$" "$X" bogus
check "habits: no file or folder left by the failed commands" "" "$(ls -d "$tmp/nb" "$tmp/x.pftrace" "$tmp/hh.db" 2> /dev/null)"

echo "test_cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
