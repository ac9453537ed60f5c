-- queries/profile_report.sql: the markdown profile report that `xplane report`
-- prints by default (the main job): what each device did, from the device-time
-- model (xplane_device_time), beside the host, then the top device ops and
-- the findings. Every time is in milliseconds and every share names its
-- denominator in its column header; shares lie in [0, 100] %.
--
-- Sections: run metadata, trace provenance and trace overview (the reference
-- report's own lines, so the two reports agree on them), device time
-- (overview: wall, busy, idle, duty cycle per device and for all devices;
-- breakdown of busy time into compute, communication, transfer, other),
-- steps (one source, named; count, warm-up excluded, statistics of the
-- steady steps per device, each step split like the device: parts and idle
-- sum to step time), host threads, top device ops by self time, roofline
-- (FLOP rate, bandwidth, bound-by, use of peak), async ops (start to done,
-- bytes once), kernel stats (GPU), memory peaks, findings, regions, gaps.
--
-- The reference summarizer's report (byte-equal to the field's) is
-- queries/report.sql: `xplane report --format reference`.
--
-- Parameters: those of report.sql (@profile required, @warmup_steps,
-- @hot_op_limit, @breakdown_mode, @top_k rows per table, default 10).
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile run/host.xplane.pb" \
--           :memory: '.read queries/profile_report.sql' > report.md
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql
.read queries/lib/region_shares.sql
.read queries/lib/report_md.sql
.read queries/lib/profile_report_md.sql
.read queries/lib/profile_report_device_md.sql
.read queries/lib/profile_report_tail_md.sql
.mode list
.headers off
SELECT md AS document FROM xq_profile_report;
.read queries/lib/cleanup.sql
