#!/usr/bin/env bash
# tests/hostile/sqlargs.sh: every SQL function and table-valued function of the
# extension called with hostile arguments (issue 41): NULL, 0, -1, the int64
# extremes, 1e308, '', 'x', a string of a NUL, a blob, a 1 MB string, and for
# the table-valued functions also a directory, /dev/zero and the real TPU
# profile. Part of tests/test_hostile.sh; under tests/run_sanitized.sh every
# call runs under ASan+UBSan.
#
# The functions and modules are read from the connection (pragma_function_list,
# pragma_module_list), so a function added later is called too. Each call is
# one statement of one sqlite3 script, run without -bail: a call may answer or
# fail with an SQL error, never end the process. Checks: the shell exits 0 or 1
# (never by a signal), every statement ran (the script's last line prints END),
# no error is a bare "out of memory" (the limits say what they refuse, with a
# 1 MB argument nowhere near them), and the count of statements is as built.
# Then, exactly: a path with a NUL byte inside (the real profile's path, a
# NUL, "junk") is refused by every table and by xplane_use with "the path
# holds a NUL byte"; before, it read the profile named by the part before the
# NUL (26,723 events), a file other than the one written.
set -uo pipefail
. "$(dirname "$0")/../test_env.sh"
. "$(dirname "$0")/../hostile_common.sh"
cd "$TMP" || exit 1
TPU=$DATA/xprof_tpu_inference_2.xplane.pb

"$SQLITE3" -batch :memory: -cmd ".load $EXT" \
  "SELECT name, narg, type FROM pragma_function_list WHERE name LIKE 'xplane%' ORDER BY name, narg" > funcs.txt 2> err ||
  { bad "listing the functions: $(cat err)"; echo "$pass passed, $fail failed"; exit 1; }
"$SQLITE3" -batch :memory: -cmd ".load $EXT" \
  "SELECT name FROM pragma_module_list WHERE name LIKE 'xplane%' ORDER BY name" > modules.txt 2> err ||
  { bad "listing the modules: $(cat err)"; echo "$pass passed, $fail failed"; exit 1; }

/usr/bin/python3 - "$TPU" > calls.sql <<'EOF'
import itertools, sys
tpu = sys.argv[1]
values = ["NULL", "0", "-1", "9223372036854775807", "-9223372036854775808", "1e308", "''", "'x'",
          "char(0)", "x'00ff'", "zeroblob(16)", "printf('%.*c', 1000000, 'a')"]
paths = values + ["'.'", "'/dev/zero'", "'/nonexistent/x.xplane.pb'", "'" + tpu.replace("'", "''") + "'"]
n = 0
print(".headers off")
for line in open("funcs.txt"):
    name, narg, kind = line.strip().split("|")
    narg = int(narg)
    if narg < 0:
        continue
    # arity 3: the first argument from a shorter list (1,728 calls otherwise each)
    pools = [values] * narg if narg < 3 else [values[:6]] + [values] * (narg - 1)
    for args in itertools.product(*pools):
        a = ", ".join(args)
        if kind == "w":
            cols = ", ".join("v%d" % i for i in range(narg))
            sel = ", ".join("%s AS v%d" % (x, i) for i, x in enumerate(args))
            print("SELECT count(*) FROM (SELECT %s(%s) OVER (ORDER BY v0 ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) "
                  "FROM (SELECT %s UNION ALL SELECT %s));" % (name, cols, sel, sel))
        else:
            print("SELECT length(CAST(%s(%s) AS BLOB));" % (name, a))
        n += 1
for line in open("modules.txt"):
    m = line.strip()
    for p in paths:
        print("SELECT count(*) FROM %s(%s);" % (m, p))
        n += 1
    # the table with the real profile and a hostile second argument, where it takes one
    for x in values[:6]:
        print("SELECT count(*) FROM %s('%s', %s);" % (m, tpu.replace("'", "''"), x))
        n += 1
print("SELECT 'END';")
sys.stderr.write("%d\n" % n)
EOF
n=$(/usr/bin/python3 -c 'import sys; print(sum(1 for l in open(sys.argv[1]) if l.startswith("SELECT")) - 1)' calls.sql)
[ "$n" -gt 1000 ] && ok "built $n calls over $(wc -l < funcs.txt) functions and $(wc -l < modules.txt) tables" ||
  bad "only $n calls built"

# XPLANE_FILE_OUTPUT unset: xplane_to_perfetto refuses every call (README: Security)
timeout 1800 env -u XPLANE_FILE_OUTPUT "$SQLITE3" -batch :memory: -cmd ".load $EXT" < calls.sql > out 2> err
rc=$?
if ((rc == 0 || rc == 1)); then ok "the shell exits $rc (no signal)"; else bad "the shell exited $rc: $(tail -3 err)"; fi
[ "$(tail -1 out)" = END ] && ok "every statement ran" || bad "stopped early: last output $(tail -1 out | head -c 200)"
oom=$(grep -c -- 'out of memory$' err)
((oom == 0)) && ok "no bare out-of-memory error" || bad "$oom bare out-of-memory errors: $(grep -m3 -- 'out of memory$' err)"
if grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' err; then bad "sanitizer: $(grep -m3 'runtime error\|Sanitizer' err)"
else ok "no sanitizer report"; fi
nul_path="'$(printf '%s' "$TPU" | sed "s/'/''/g")' || char(0) || 'junk'"
bad_tables=""
while read -r m; do
  "$SQLITE3" -batch :memory: -cmd ".load $EXT" "SELECT count(*) FROM $m($nul_path)" > out1 2> err1
  grep -qxF "Error: stepping, $m: the path holds a NUL byte: no file is named so" err1 && [ ! -s out1 ] || bad_tables+=" $m"
done < modules.txt
[ -z "$bad_tables" ] && ok "a NUL inside a path: refused by all $(wc -l < modules.txt) tables" || bad "a NUL inside a path read by:$bad_tables"
"$SQLITE3" -batch :memory: -cmd ".load $EXT" "SELECT xplane_use($nul_path)" > out1 2> err1
grep -qxF "Error: stepping, xplane_use: the path holds a NUL byte: no file is named so" err1 && ok "a NUL inside a path: xplane_use refuses it" ||
  bad "xplane_use with a NUL: $(cat out1 err1 | head -c 200)"
echo "note: $(wc -l < out) answers, $(grep -c . err) error lines"
echo "$pass passed, $fail failed"
((fail == 0))
