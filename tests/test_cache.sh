#!/usr/bin/env bash
# test_cache.sh: the per-connection profile cache (sqlite_ext/cache.c).
#
#   XPLANE_EXT=build/xplane XPLANE_BUILD=build bash tests/test_cache.sh
#
# One sqlite3 session reads a profile, then the file is replaced under it
# (`.system`, same connection) and read again. xplane_cache_stats() says what
# the cache did: a profile is decoded (opens) once per connection and served
# from the cache (hits) while its size and mtime stay the same; a file that
# changed, by mtime alone or by size alone, is decoded again and the new
# content is what the query sees. Also: a second connection has its own cache,
# and a directory is prefetched by several threads (every file opened once).
#
# The three profiles are the tiny one (make_tiny_xspace) with one more XSpace
# hostname appended as raw protobuf bytes (field 4, a string: 0x22, length,
# bytes), which is still a valid XSpace with a different content:
#   a.pb: hostnames ["tiny-host","aaaa"]   b.pb: ["tiny-host","bbbb"] (same size)
#   c.pb: ["tiny-host","longer-name"]      (11 bytes longer)
set -euo pipefail

. "$(dirname "$0")/test_env.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
"$BUILD/tests/make_tiny_xspace" tiny.pb
{ cat tiny.pb; printf '\x22\x04aaaa'; } > a.pb
{ cat tiny.pb; printf '\x22\x04bbbb'; } > b.pb
{ cat tiny.pb; printf '\x22\x0blonger-name'; } > c.pb
mkdir -p logs/run
for h in h1 h2 h3; do cp tiny.pb "logs/run/$h.xplane.pb"; done
cp a.pb work.xplane.pb
touch -d @1700000000 work.xplane.pb

W=$tmp/work.xplane.pb
"$SQLITE3" -bail -batch :memory: > actual 2>&1 <<EOF
.load $EXT
SELECT 'start', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
SELECT 'read a', hostnames FROM xplane_space('$W');
SELECT 'opened', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
SELECT 'events', count(*) FROM xplane_events('$W');
SELECT 'hit', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
SELECT 'two scans', (SELECT count(*) FROM xplane_planes('$W')), (SELECT count(*) FROM xplane_lines('$W'));
SELECT 'two hits', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
.system cp b.pb work.xplane.pb && touch -d @1700000001 work.xplane.pb
SELECT 'read b', hostnames FROM xplane_space('$W');
SELECT 'mtime changed', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
.system cp c.pb next.pb && touch -d @1700000001 next.pb && mv next.pb work.xplane.pb
SELECT 'read c', hostnames FROM xplane_space('$W');
SELECT 'size changed', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
SELECT 'read c again', hostnames FROM xplane_space('$W');
SELECT 'hit again', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
SELECT 'threads', xplane_threads();
SELECT 'dir', count(*) FROM xplane_events('$tmp/logs');
SELECT 'prefetched', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
SELECT 'dir again', count(*) FROM xplane_events('$tmp/logs');
SELECT 'all hits', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
.open :memory:
.load $EXT
SELECT 'new connection', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
SELECT 'read c', hostnames FROM xplane_space('$W');
SELECT 'own cache', json_remove(xplane_cache_stats(), '$.bytes', '$.budget', '$.peak_bytes');
EOF

cat > expected <<'EOF'
start|{"entries":0,"opens":0,"hits":0,"pf_imports":0}
read a|["tiny-host","aaaa"]
opened|{"entries":1,"opens":1,"hits":0,"pf_imports":0}
events|8
hit|{"entries":1,"opens":1,"hits":1,"pf_imports":0}
two scans|4|4
two hits|{"entries":1,"opens":1,"hits":3,"pf_imports":0}
read b|["tiny-host","bbbb"]
mtime changed|{"entries":1,"opens":2,"hits":3,"pf_imports":0}
read c|["tiny-host","longer-name"]
size changed|{"entries":1,"opens":3,"hits":3,"pf_imports":0}
read c again|["tiny-host","longer-name"]
hit again|{"entries":1,"opens":3,"hits":4,"pf_imports":0}
threads|2
dir|24
prefetched|{"entries":4,"opens":6,"hits":7,"pf_imports":0}
dir again|24
all hits|{"entries":4,"opens":6,"hits":10,"pf_imports":0}
new connection|{"entries":0,"opens":0,"hits":0,"pf_imports":0}
read c|["tiny-host","longer-name"]
own cache|{"entries":1,"opens":1,"hits":0,"pf_imports":0}
EOF

if [ "$(stat -c %s a.pb)" != "$(stat -c %s b.pb)" ]; then
  echo "FAIL: a.pb and b.pb should have the same size"
  exit 1
fi
if diff -u expected actual; then
  echo "ok: the cache opened and reused profiles as expected ($(wc -l < expected) results)"
else
  echo "FAIL: the cache did not behave as expected (--- expected, +++ actual)"
  exit 1
fi
