-- analysis_real.sql: the semantic tables on every real profile: invariants
-- that must hold, an independent SQL formulation of exclusive time checked
-- against the cached one, and hand-checked ops (values read off the
-- protoc text dump of xprof_tpu_inference_2 and worked through by hand).
.load @EXT@
.mode list
.separator ' | '
CREATE TEMP TABLE ops AS SELECT * FROM xplane_ops('@DATA@');

-- Invariants per file: 0 <= self <= dur, gaps >= 0, every payload is an op
-- at or after its marker on the same line, and on GPU streams (kernels never
-- nest) the self times add up to the durations.
SELECT host, count(*) AS ops,
       sum(self_ps < 0 OR self_ps > dur_ps) AS bad_self,
       sum(gap_before_ps < 0) AS bad_gap,
       sum(gap_before_ps > 0 AND gap_payload_op_id IS NULL) AS marker_without_payload,
       sum(gap_before_ps = 0 AND gap_payload_op_id IS NOT NULL) AS payload_without_gap,
       sum(CASE WHEN line_name LIKE 'Stream #%' THEN dur_ps - self_ps ELSE 0 END) AS stream_nesting
  FROM ops GROUP BY host ORDER BY host;
SELECT 'payloads off their marker''s line', count(*) FROM ops m JOIN ops p
    ON p.host = m.host AND p.op_id = m.gap_payload_op_id
 WHERE p.plane_index <> m.plane_index OR p.line_index <> m.line_index OR p.start_ps < m.start_ps;

-- Exclusive time, closed form: the parent of an event is the latest event
-- before it in (start asc, end desc, position) order whose end is at or after
-- its end; self = dur - the durations of the events whose parent it is.
-- Checked on every op of the TPU file (nested async copies) and every event
-- of a GPU file (host threads nest deeply).
CREATE TEMP TABLE ev AS
  SELECT host, plane_index AS p, line_index AS l, event_index AS i, start_ps AS s, end_ps AS e,
         dur_ps AS d, self_ps FROM xplane_events('@DATA@/tracelens_jax08_gemm.xplane.pb')
   WHERE self_ps IS NOT NULL
  UNION ALL
  SELECT host, plane_index, line_index, event_index, start_ps, end_ps, dur_ps, self_ps FROM ops
   WHERE host = 'xprof_tpu_inference_2';
CREATE INDEX ev_track ON ev(host, p, l, s);
CREATE TEMP TABLE parent AS
  SELECT c.host, c.p, c.l, c.i, c.d,
         (SELECT q.i FROM ev q
           WHERE q.host = c.host AND q.p = c.p AND q.l = c.l AND q.e >= c.e
             AND (q.s < c.s OR (q.s = c.s AND (q.e > c.e OR (q.e = c.e AND q.i < c.i))))
           ORDER BY q.s DESC, q.e ASC, q.i DESC LIMIT 1) AS parent_i
    FROM ev c;
SELECT 'closed form', count(*) AS events,
       sum(ev.self_ps = max(0, ev.d - coalesce((SELECT sum(k.d) FROM parent k
             WHERE k.host = ev.host AND k.p = ev.p AND k.l = ev.l AND k.parent_i = ev.i), 0))) AS agree
  FROM ev;

-- Hand-checked: three async copies of /device:TPU:0 that end together
-- (an event ending exactly at its parent's end is its child):
--   92 [31356402498578, 31886405787000) dur 530003288422
--   93 [31553525072328, 31886405787000) dur 332880714672  child of 92
--   94 [31755788561000, 31886405787000) dur 130617226000  child of 93
--   self 92 = 530003288422 - 332880714672 = 197122573750
--   self 93 = 332880714672 - 130617226000 = 202263488672
SELECT event_index, name, start_ps, dur_ps, self_ps FROM ops
 WHERE host = 'xprof_tpu_inference_2' AND plane_index = 0 AND line_name = 'Async XLA Ops'
   AND event_index BETWEEN 92 AND 94 ORDER BY event_index;
-- Hand-checked gaps on XLA Ops of /device:TPU:0: op 26 ends at 20788791543078;
-- copy-start.3 starts 78 ps later (gap 78, marker-like) but the next op starts
-- after its end (a second idle period): it is its own payload. copy-done.4
-- starts 78 ps after copy-start.3's end (gap 78, marker-like); the next op,
-- broadcast_add_fusion, starts exactly at its end: the payload.
SELECT event_index, name, start_ps, end_ps, gap_before_ps, gap_payload_name FROM ops
 WHERE host = 'xprof_tpu_inference_2' AND plane_index = 0 AND line_name = 'XLA Ops'
   AND event_index BETWEEN 26 AND 29 ORDER BY event_index;

-- Steps: where each file's steps come from, and ops tied to them.
SELECT host, source, count(*) AS rows, count(DISTINCT step) AS steps, min(step), max(step), sum(n_ops)
  FROM xplane_steps('@DATA@') GROUP BY host, source ORDER BY host;
SELECT host, count(*) AS ops_with_step FROM ops WHERE step IS NOT NULL GROUP BY host ORDER BY host;

-- Scopes: the depth-1 regions hold every op once, so their inclusive time is
-- the sum of the ops' self time, and their counts the op count.
SELECT s.host, sum(s.count) = o.n AS counts_ok, sum(s.inclusive_ps) = o.self AS inclusive_ok
  FROM xplane_scopes('@DATA@') s
  JOIN (SELECT host, count(*) AS n, sum(self_ps) AS self FROM ops GROUP BY host) o ON o.host = s.host
 WHERE s.depth = 1 GROUP BY s.host ORDER BY s.host;
