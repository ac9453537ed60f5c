#!/usr/bin/env bash
# test_bad_input.sh: bad input gives a clear SQL error, never a crash or a hang.
#
#   ctest -R bad_input        (or: XPLANE_EXT=build/xplane bash tests/test_bad_input.sh)
#
# Each case runs ONE sqlite3 shell session that loads the extension, runs a
# query over the bad input, then a good query on the same connection:
#   SELECT 'bad:' || count(*) FROM <table>('<bad input>');      -- must fail
#   SELECT 'after:' || count(*) FROM xplane_events('<good>');    -- must work
# and asserts: the shell's exit code is 1 (its error exit: no signal, no
# timeout), the error text holds the exact substrings given (the file's name
# and the problem), the bad query printed no row, and the good query printed
# exactly `after:3782` (the event count of tracelens_jax08_gemm in
# ../shared/data/README.md). Inputs are built in a temp dir; random bytes come
# from AES-CTR keystreams (openssl) with fixed keys, so every run is the same.
# Env (set by ctest): XPLANE_EXT, XPLANE_DATA, SQLITE3. Exit 77 without data.
set -euo pipefail

: "${XPLANE_EXT:?set XPLANE_EXT to the extension to .load, e.g. build/xplane}"
SQLITE3=${SQLITE3:-sqlite3}
SRC=$(cd "$(dirname "$0")/.." && pwd)
DATA=${XPLANE_DATA:-$SRC/../shared/data}
GOOD=$DATA/tracelens_jax08_gemm.xplane.pb
GOOD_EVENTS=3782
if [[ ! -f $GOOD ]]; then
  echo "SKIP: real profiles not found in $DATA (need tracelens_jax08_gemm.xplane.pb)"
  exit 77
fi

TMP=$(mktemp -d)
chmod 755 "$TMP" # the permission cases run the shell as `nobody`
trap 'chmod -R u+rwX "$TMP"; rm -rf "$TMP"' EXIT

pass=0
fail=0
RUNAS=() # a command prefix to run the shell as another user
TIMEOUT=60

# bad_query NAME FROM EXPECT... : the session described above, FROM being the
# table call, e.g. "xplane_events('/x')". Each EXPECT must be in the error.
bad_query() {
  local name=$1 from=$2 out err rc why=""
  shift 2
  set +e
  out=$(printf ".load %s\nSELECT 'bad:' || count(*) FROM %s;\nSELECT 'after:' || count(*) FROM xplane_events('%s');\n" \
    "$XPLANE_EXT" "$from" "$GOOD" | timeout "$TIMEOUT" "${RUNAS[@]}" "$SQLITE3" -batch :memory: 2>"$TMP/stderr")
  rc=$?
  set -e
  err=$(<"$TMP/stderr")
  if ((rc == 124)); then
    why="timed out after ${TIMEOUT}s"
  elif ((rc != 1)); then
    why="exit code $rc, want 1 (the shell's error exit; over 128 is a signal)"
  elif [[ $out == *bad:* ]]; then
    why="the bad query returned a row: $out"
  elif [[ $out != "after:$GOOD_EVENTS" ]]; then
    why="the next query on the same connection printed '$out', want 'after:$GOOD_EVENTS'"
  else
    for e in "$@"; do
      if [[ $err != *"$e"* ]]; then
        why="the error lacks '$e'"
        break
      fi
    done
  fi
  if [[ -z $why ]]; then
    echo "PASS $name"
    pass=$((pass + 1))
  else
    echo "FAIL $name: $why"
    echo "     stderr: $err"
    fail=$((fail + 1))
  fi
}

# bad_file NAME FILE EXPECT... : bad_query over xplane_events('FILE'), the
# error being "xplane_events: FILE: EXPECT...".
bad_file() {
  local name=$1 file=$2 first=$3
  shift 3
  bad_query "$name" "xplane_events('$file')" "xplane_events: $file: $first" "$@"
}

# A keystream of N bytes, the same for the same SEED.
random_bytes() { head -c "$2" /dev/zero | openssl enc -aes-128-ctr -K "$(printf '%032x' "$1")" -iv "$(printf "%032x" 0)"; }

# LEVELS nested length-delimited fields of the one-byte tag TAG (hex), the
# innermost empty: TAG len(TAG len(... TAG 00)). Written outermost first.
nested() {
  awk -v levels="$2" -v tag="$1" '
    function vhex(n, s) { s = ""; while (n >= 128) { s = s sprintf("\\x%02x", n % 128 + 128); n = int(n / 128) } return s sprintf("\\x%02x", n) }
    function vlen(n, k) { k = 1; while (n >= 128) { k++; n = int(n / 128) } return k }
    BEGIN {
      p[1] = 0
      for (i = 2; i <= levels; i++) p[i] = p[i - 1] + 1 + vlen(p[i - 1])
      for (i = levels; i >= 1; i--) printf "\\x%s%s", tag, vhex(p[i])
      printf "\n"
    }' | { IFS= read -r esc; printf '%b' "$esc"; }
}

size_of() { stat -c %s "$1"; }

# ---- paths that are not profiles -------------------------------------------
bad_file "missing path" "$TMP/missing.xplane.pb" "no such file or directory"
mkdir -p "$TMP/noprofile/sub"
echo "notes" >"$TMP/noprofile/notes.txt"
bad_file "directory without a profile" "$TMP/noprofile" "no *.xplane.pb profile in this directory or below"
mkfifo "$TMP/fifo.xplane.pb"
bad_file "FIFO (must not block)" "$TMP/fifo.xplane.pb" "not a regular file"
ln -s "$TMP/missing.xplane.pb" "$TMP/dangling.xplane.pb"
bad_file "dangling symlink" "$TMP/dangling.xplane.pb" "no such file or directory"
bad_query "NULL path" "xplane_events(NULL)" "xplane_events: the path argument is NULL"
bad_query "no path (bare table)" "xplane_events" \
  "xplane_events: a path is required: SELECT ... FROM xplane_events('<file, run dir or logdir>')"
bad_query "no path (empty call)" "xplane_events()" "xplane_events: a path is required"
bad_query "empty path" "xplane_events('')" \
  "xplane_events: empty path: give a .xplane.pb file, a run directory or a logdir"

# ---- files that are not XSpaces --------------------------------------------
: >"$TMP/empty.xplane.pb"
bad_file "empty file" "$TMP/empty.xplane.pb" "empty file (0 bytes): not an XSpace"
printf '{"traceEvents": [{"name": "x", "ph": "X"}]}\n' >"$TMP/trace.xplane.pb"
bad_file "JSON given as XPlane" "$TMP/trace.xplane.pb" \
  "looks like JSON, not an XSpace (a Chrome/Perfetto JSON trace?)"
gzip -c "$GOOD" >"$TMP/gz.xplane.pb"
bad_file "gzip given as XPlane" "$TMP/gz.xplane.pb" \
  "is gzip-compressed, not an XSpace (decompress it, or give the .xplane.pb)"
# Field 1 (planes), length varint ff ff 03 = 65535 from byte 4: needs 65539 bytes.
printf '\x0a\xff\xff\x03abc' >"$TMP/len_past_eof.xplane.pb"
bad_file "length past the end of the file" "$TMP/len_past_eof.xplane.pb" \
  "truncated at byte 7: the field at byte 0 needs 65539 bytes but the file has 7"
# A plane of 4 bytes holding a line (field 3) of 16 bytes, then valid hostnames:
# the line overruns its plane, not the file.
printf '\x0a\x04\x1a\x10\x00\x00\x22\x02h0\x22\x02h1\x22\x02h2\x22\x02h3\x22\x02h4' >"$TMP/len_past_msg.xplane.pb"
bad_file "length past the end of its message" "$TMP/len_past_msg.xplane.pb" \
  "corrupt: the length of the field at byte 2 points past the end of its enclosing message"
# Tag 0x0a then 11 continuation bytes: a varint longer than 10 bytes.
printf '\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01' >"$TMP/long_varint.xplane.pb"
bad_file "overlong varint" "$TMP/long_varint.xplane.pb" "not an XSpace: malformed varint at byte 1"
printf '\x0b\x00' >"$TMP/group.xplane.pb"
bad_file "group wire type" "$TMP/group.xplane.pb" "not an XSpace: invalid wire type at byte 0"
printf '\x08\x01' >"$TMP/wrong_type.xplane.pb"
bad_file "planes field as a varint" "$TMP/wrong_type.xplane.pb" \
  "not an XSpace: field has the wrong wire type for XSpace at byte 0"
printf '\x78\x01' >"$TMP/unknown_only.xplane.pb"
bad_file "only unknown fields" "$TMP/unknown_only.xplane.pb" \
  "not an XSpace: no planes, errors, warnings or hostnames in 2 bytes"

# ---- truncated real profiles -----------------------------------------------
for f in "$DATA"/*.xplane.pb; do
  size=$(size_of "$f")
  for cut in 1 100 $((size / 2)) $((size - 1)); do
    t=$TMP/cut_$cut.$(basename "$f")
    head -c "$cut" "$f" >"$t"
    bad_file "$(basename "$f") cut at $cut of $size bytes" "$t" "truncated at byte $cut: "
    rm -f "$t"
  done
done

# ---- random bytes ----------------------------------------------------------
# Whatever the bytes, the error names the file and is one of the decoder's
# problems; a truncation is reported at the file's size.
for seed in 1 2 3 4 5 6 7 8; do
  n=$((seed * 1000))
  r=$TMP/random_$seed.xplane.pb
  random_bytes "$seed" "$n" >"$r"
  bad_file "random bytes, seed $seed ($n bytes)" "$r" ""
  err=$(<"$TMP/stderr")
  if [[ $err =~ "xplane_events: $r: "(not an XSpace: |corrupt: |truncated at byte $n: |looks like JSON) ]]; then
    echo "PASS random bytes, seed $seed: a decoder error (${BASH_REMATCH[1]%: })"
    pass=$((pass + 1))
  else
    echo "FAIL random bytes, seed $seed: unexpected error: $err"
    fail=$((fail + 1))
  fi
done

# ---- deep nesting ----------------------------------------------------------
# 100k levels of field 1 (planes): the plane's own first field is again tag
# 0x0a, but XPlane.id is a varint. The outer length is between 2^14 and 2^21,
# a 3-byte varint, so that tag is at byte 4.
nested 0a 100000 >"$TMP/nested_planes.xplane.pb"
bad_file "100k nested planes" "$TMP/nested_planes.xplane.pb" \
  "not an XSpace: field has the wrong wire type for XSpace at byte 4"
# 100k levels of unknown field 15: skipped whole, never descended into.
nested 7a 100000 >"$TMP/nested_unknown.xplane.pb"
bad_file "100k nested unknown fields" "$TMP/nested_unknown.xplane.pb" \
  "not an XSpace: no planes, errors, warnings or hostnames in $(size_of "$TMP/nested_unknown.xplane.pb") bytes"

# ---- sizes around the 2 GiB limit (sparse: nothing is read) -----------------
truncate -s 3G "$TMP/huge.xplane.pb"
t0=$(date +%s%N)
bad_file "3 GiB sparse file" "$TMP/huge.xplane.pb" \
  "too large: 3221225472 bytes, over the 2 GiB limit of a protobuf message"
ms=$((($(date +%s%N) - t0) / 1000000))
if ((ms < 5000)); then
  echo "PASS 3 GiB file refused without reading it (${ms} ms)"
  pass=$((pass + 1))
else
  echo "FAIL 3 GiB file took ${ms} ms to refuse (want under 5000)"
  fail=$((fail + 1))
fi
truncate -s 2147483648 "$TMP/huge.xplane.pb"
bad_file "2 GiB + 0 sparse file (one over the limit)" "$TMP/huge.xplane.pb" "too large: 2147483648 bytes"
truncate -s 2147483647 "$TMP/huge.xplane.pb"
bad_file "2 GiB - 1 sparse file (at the limit: read, zeros)" "$TMP/huge.xplane.pb" \
  "not an XSpace: invalid field number at byte 0"
rm -f "$TMP/huge.xplane.pb"

# ---- one bad profile among good ones ---------------------------------------
# The scan must fail with the bad file's name, whichever order the files are
# read in, and for every table that reads profiles.
mkdir -p "$TMP/mixed1" "$TMP/mixed2"
cp "$GOOD" "$TMP/mixed1/a_good.xplane.pb"
head -c 5000 "$GOOD" >"$TMP/mixed1/b_bad.xplane.pb"
head -c 5000 "$GOOD" >"$TMP/mixed2/a_bad.xplane.pb"
cp "$GOOD" "$TMP/mixed2/b_good.xplane.pb"
for table in xplane_space xplane_planes xplane_lines xplane_events xplane_stats \
  xplane_event_metadata xplane_stat_metadata; do
  bad_query "$table over a dir with a bad second file" "$table('$TMP/mixed1')" \
    "$table: $TMP/mixed1/b_bad.xplane.pb: truncated at byte 5000: "
  bad_query "$table over a dir with a bad first file" "$table('$TMP/mixed2')" \
    "$table: $TMP/mixed2/a_bad.xplane.pb: truncated at byte 5000: "
done

# ---- odd but valid: a plane and a line without names -----------------------
# XSpace{planes{lines{events{metadata_id: 1, offset_ps: 5}}}}. A filter on ''
# matches the absent names (and must not pass their NULL pointer to memcmp:
# the sanitized run, tests/run_sanitized.sh, checks that).
printf '\x0a\x08\x1a\x06\x22\x04\x08\x01\x10\x05' >"$TMP/unnamed.xplane.pb"
u="('$TMP/unnamed.xplane.pb')"
set +e
out=$(printf '.load %s\nSELECT %s;\n' "$XPLANE_EXT" \
  "(SELECT count(*) FROM xplane_events$u WHERE plane_name = '' AND line_name = '') || ',' ||
   (SELECT count(*) FROM xplane_planes$u WHERE plane_name = '') || ',' ||
   (SELECT count(*) FROM xplane_lines$u WHERE line_name = '') || ',' ||
   (SELECT count(*) FROM xplane_stats$u WHERE plane_name = '') || ',' ||
   (SELECT count(*) FROM xplane_event_metadata$u WHERE plane_name = '') || ',' ||
   (SELECT count(*) FROM xplane_stat_metadata$u WHERE plane_name = '')" |
  timeout "$TIMEOUT" "$SQLITE3" -batch :memory: 2>&1)
rc=$?
set -e
if ((rc == 0)) && [[ $out == "1,1,1,0,0,0" ]]; then
  echo "PASS filters on '' over an unnamed plane and line"
  pass=$((pass + 1))
else
  echo "FAIL filters on '' over an unnamed plane and line: exit $rc, got '$out', want '1,1,1,0,0,0'"
  fail=$((fail + 1))
fi

# ---- permissions -----------------------------------------------------------
mkdir -p "$TMP/perm" "$TMP/lockeddir"
cp "$GOOD" "$TMP/perm/locked.xplane.pb"
cp "$GOOD" "$TMP/lockeddir/inside.xplane.pb"
chmod 000 "$TMP/perm/locked.xplane.pb" "$TMP/lockeddir"
if [[ $(id -u) == 0 ]]; then
  # root reads anything: run these sessions as `nobody`.
  if setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
    RUNAS=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  fi
fi
if [[ $(id -u) != 0 || ${#RUNAS[@]} -gt 0 ]] &&
  "${RUNAS[@]}" test -r "$XPLANE_EXT.so" -a -r "$GOOD"; then
  bad_file "unreadable file" "$TMP/perm/locked.xplane.pb" "cannot open: Permission denied"
  bad_file "unreadable directory" "$TMP/lockeddir" "cannot read directory: Permission denied"
else
  echo "SKIP unreadable file/directory: running as root and cannot switch to nobody" \
    "(setpriv failed, or nobody cannot read $XPLANE_EXT.so / $GOOD)"
fi
RUNAS=()

echo "$pass passed, $fail failed"
((fail == 0))
