#!/usr/bin/env bash
# tests/hostile/outputs.sh: where the xplane command writes, and what it reads
# besides profiles (issue 41, "outputs" and "arguments"). Part of
# tests/test_hostile.sh.
#
#   bash tests/hostile/outputs.sh
#
# Checks, each with the exact status, message or bytes expected:
#  writers  8 `xplane track` processes appending to one history database at
#           once: each exits 3 (warn: the two real profiles have no steady
#           step), and the database holds 8 rows, labels w1..w8, ids 1..8.
#           Before the busy timeout (cli/env.c) 5 of 8 exited 1 with
#           "database is locked" and their rows were lost.
#  unprinted `xplane track ... > /dev/full` and `-o /dev/full`: exit 1 with
#           "No space left on device", and the history holds no row for it
#           (the 8 above only). Before, the query appended the row before the
#           record was written, so a record nobody saw was in the history.
#           A track printed in full: its row's record is the printed document,
#           compact (json() of stdout, byte for byte).
#  folder   -o into a folder that does not exist: exit 1, the message names
#           the path and ENOENT, nothing is created.
#  symlink  -o onto a symbolic link: the link stays a link and its target
#           holds the summary (as `cp` and `>` do), no temporary file is left.
#  bundle   -o DIR where DIR is a symbolic link to a folder: the bundle lands
#           in that folder; a DIR in which history.db or before.summary.json
#           is already a symbolic link: exit 1 naming it, the link's target
#           unchanged, nothing written. Before, the bundle wrote its summary
#           through the link, outside its folder.
#  metadata --metadata of 1 MiB + 1 byte, of 1,001 keys, /dev/zero: exit 1
#           with the bound in the message (before: a 59 MB file of 2,000,000
#           keys took 36 s and 3.2 GB and printed every key); 1,000 keys are
#           all printed; a binary file: exit 1, "holds a NUL byte" (before:
#           exit 0, its lines cut at each NUL, the rest read as facts).
#  signal   SIGINT and SIGTERM 0.1 s and 0.25 s into `summarize -o s.json` of a
#           60 MB generated profile (about 0.4 s): each run either ends by the
#           signal (status 130 / 143, "xplane: stopped by SIGINT", or nothing
#           when it came before the command caught signals; no s.json, no
#           temporary file) or, finished first, exits 0 with the whole
#           document; at least one of the four is stopped. Before, the command
#           exited 1 naming a query file's line ("lib/summary_json.sql near
#           line 50: interrupted").
#  paths    a profile whose path holds a space, a newline and a leading
#           dash: summarize reads it (`./-...`), the document's source_path
#           is the path given, byte for byte.
set -uo pipefail
. "$(dirname "$0")/../test_env.sh"
. "$(dirname "$0")/../hostile_common.sh"
CLI=$BUILD/cli/xplane
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
A=$DATA/tracelens_jax08_gemm.xplane.pb
B=$DATA/tracelens_jax08_attention.xplane.pb
if [ ! -f "$A" ] || [ ! -f "$B" ]; then echo "skipped: no real profiles in $DATA"; exit 77; fi
cd "$TMP" || exit 1

# ---- writers ----
for i in 1 2 3 4 5 6 7 8; do
  ("$CLI" track "$A" "$B" --history h.db --label "w$i" > "t$i.out" 2> "t$i.err"; echo $? > "t$i.rc") &
done
wait
codes=$(cat t?.rc | sort | uniq -c | tr -s ' ' | tr '\n' ';')
[ "$codes" = " 8 3;" ] && ok "writers: 8 tracks at once exit 3" || bad "writers: exit codes $codes: $(cat t?.err | sort -u | head -c 300)"
got=$("$SQLITE3" h.db "SELECT count(*), group_concat(label, ' '), min(id), max(id) FROM (SELECT * FROM regression_history ORDER BY label)")
[ "$got" = "8|w1 w2 w3 w4 w5 w6 w7 w8|1|8" ] && ok "writers: 8 rows kept" || bad "writers: history holds $got"

# ---- unprinted ----
"$CLI" track "$A" "$B" --history h.db --label full -q > /dev/full 2> err
rc=$?
"$CLI" track "$A" "$B" --history h.db --label full_o -q -o /dev/full 2> err2
rc2=$?
got=$("$SQLITE3" h.db "SELECT count(*) FROM regression_history WHERE label LIKE 'full%'")
if ((rc == 1 && rc2 == 1)) && grep -q 'No space left on device' err && grep -q 'No space left on device' err2 && [ "$got" = 0 ]; then
  ok "unprinted: a track record that could not be written is not in the history"
else bad "unprinted: exit $rc/$rc2, $got rows: $(cat err err2 | head -c 300)"; fi
"$CLI" track "$A" "$B" --history h.db --label printed -q > printed.json
printf '.parameter set @f printed.json\n' > p.sql
got=$("$SQLITE3" -cmd "$(cat p.sql)" h.db "SELECT record = json(CAST(readfile(@f) AS TEXT)) FROM regression_history WHERE label = 'printed'")
[ "$got" = 1 ] && ok "unprinted: the row of a printed track is the printed document, compact" || bad "unprinted: the row's record is not the printed document ($got)"

# ---- folder ----
"$CLI" summarize "$A" -o missing/dir/s.json 2> err
rc=$?
if ((rc == 1)) && grep -qx 'xplane: missing/dir/s.json: No such file or directory' err && [ ! -e missing ]; then
  ok "folder: -o into a missing folder"
else bad "folder: exit $rc: $(cat err)"; fi

# ---- symlink ----
echo target > target.txt
ln -s target.txt link.json
"$CLI" summarize "$A" -o link.json --quiet 2> err
rc=$?
if ((rc == 0)) && [ -L link.json ] && [ "$(readlink link.json)" = target.txt ] &&
  /usr/bin/python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["schema_version"] == "profile_summary.v1"' target.txt &&
  [ -z "$(ls | grep tmp-)" ]; then
  ok "symlink: -o follows the link, the link stays"
else bad "symlink: exit $rc, $(ls -l | tr '\n' ' ') $(cat err)"; fi

# ---- bundle ----
mkdir real && ln -s real linked
"$CLI" bundle "$A" "$B" -o linked > /dev/null 2> err
rc=$?
if ((rc == 0 || rc == 3)) && [ -f real/manifest.json ] && [ -L linked ]; then ok "bundle: into a linked folder (exit $rc)"
else bad "bundle: into a linked folder: exit $rc, $(ls real | tr '\n' ' ') $(cat err)"; fi
for name in history.db before.summary.json; do
  rm -rf b && mkdir b && echo outside > outside.txt && ln -s "$TMP/outside.txt" "b/$name"
  "$CLI" bundle "$A" "$B" -o b > /dev/null 2> err
  rc=$?
  if ((rc == 1)) && grep -qxF "xplane: bundle: b/$name is a symbolic link; a bundle folder holds only its own files: choose a new folder" err &&
    [ "$(cat outside.txt)" = outside ] && [ "$(ls b)" = "$name" ]; then
    ok "bundle: $name a symbolic link is refused"
  else bad "bundle: $name a symbolic link: exit $rc, outside.txt $(head -c 40 outside.txt), b: $(ls b | tr '\n' ' ') $(cat err)"; fi
done

# ---- metadata ----
/usr/bin/python3 - <<'EOF'
with open("big.meta", "w") as f:
    f.write("key,value\n")
    f.write("k," + "v" * (1 << 20) + "\n")
for n, name in ((1001, "k1001.meta"), (1000, "k1000.meta")):
    with open(name, "w") as f:
        f.write("key,value\n" + "".join("k%d,v%d\n" % (i, i) for i in range(n)))
with open("bin.meta", "wb") as f:
    f.write(bytes(range(256)) * 16)
EOF
expect_meta() { # NAME FILE MESSAGE
  "$CLI" report "$A" --metadata "$2" > out 2> err
  local rc=$?
  if ((rc == 1)) && grep -qxF "$3" err && [ ! -s out ]; then ok "metadata: $1"; else bad "metadata: $1: exit $rc: $(head -c 300 err)"; fi
}
expect_meta "1 MiB + 1" big.meta "xplane: --metadata big.meta: larger than 1048576 bytes (run facts are a few keys)"
expect_meta "1,001 keys" k1001.meta "xplane: --metadata k1001.meta: 1001 facts, at most 1000"
expect_meta "/dev/zero" /dev/zero "xplane: --metadata /dev/zero: larger than 1048576 bytes (run facts are a few keys)"
expect_meta "binary" bin.meta "xplane: --metadata bin.meta: holds a NUL byte: not a JSON or CSV text"
"$CLI" report "$A" --metadata k1000.meta > out 2> err
n=$(grep -c '^- k[0-9]*: `v[0-9]*`$' out)
[ "$n" = 1000 ] && ok "metadata: 1,000 keys printed" || bad "metadata: 1,000 keys: $n printed $(head -c 200 err)"

# ---- signal ----
"$BUILD/tools/xplane_gen" --out g60 --target-mb 60 --seed 3 > /dev/null
G=g60/plugins/profile/run1/host0.xplane.pb
stopped=0
for d in 0.1 0.25; do
  for sig in INT TERM; do
    rm -f s.json
    "$CLI" summarize "$G" -o s.json --quiet 2> err &
    pid=$!
    sleep "$d"
    kill -"$sig" "$pid"
    wait "$pid"
    rc=$?
    want=$((128 + $(kill -l "$sig")))
    # (a signal that comes before the command catches signals ends it silently: no message)
    if ((rc == want)) && { grep -qx "xplane: stopped by SIG$sig" err || [ ! -s err ]; } && [ ! -e s.json ] &&
      [ -z "$(ls | grep tmp-)" ]; then
      stopped=$((stopped + 1)); ok "signal: SIG$sig at ${d}s: stopped, no file"
    elif ((rc == 0)) && /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' s.json; then
      ok "signal: SIG$sig at ${d}s: finished first, the whole document"
    else bad "signal: SIG$sig at ${d}s: exit $rc, $(cat err), files: $(ls | tr '\n' ' ')"; fi
  done
done
((stopped > 0)) && ok "signal: $stopped of 4 runs stopped" || bad "signal: no run was stopped"
rm -rf g60

# ---- paths ----
weird=$'-a dir\nwith newline'
mkdir -- "$weird" && cp "$A" -- "$weird/-p q.xplane.pb"
"$CLI" summarize "./$weird/-p q.xplane.pb" -o s.json --quiet 2> err
rc=$?
sp=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["source_path"], end="")' s.json 2>&1)
if ((rc == 0)) && [ "$sp" = "./$weird/-p q.xplane.pb" ]; then ok "paths: a space, a newline, leading dashes"
else bad "paths: exit $rc, source_path '$sp' $(cat err)"; fi

echo "$pass passed, $fail failed"
((fail == 0))
