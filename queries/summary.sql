-- queries/summary.sql: print the profile_summary.v1 JSON document of one profile.
--
-- The same document as the field's reference summarizer (marin's
-- `profile_summary summarize`): every key, keys sorted at every level,
-- 2-space indent, durations in microseconds. Computed by
-- queries/lib/summary_json.sql; see there for the semantics.
--
-- Parameters (.parameter set NAME VALUE; unset ones take the default):
--   @profile         a .xplane.pb file, or a directory holding exactly one (required)
--   @warmup_steps    steps numbered below this are warmup          (default 5)
--   @hot_op_limit    hot ops kept                                  (default 25)
--   @breakdown_mode  exclusive_per_track | exclusive_global        (default exclusive_per_track)
--
-- Run from the repository root (the .read paths below are relative to it):
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile run/host.xplane.pb" \
--           :memory: '.read queries/summary.sql' > summary.json
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql
.mode list
.headers off
SELECT xplane_json_pretty(doc) AS document FROM xq_summary;
.read queries/lib/cleanup.sql
