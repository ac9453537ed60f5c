-- xplane.line_sums: the analysis events summed per line and name (private;
-- read by xplane.breakdown and xplane.aggregates, its own module so that
-- neither builds the other's tables).
--
--   INCLUDE PERFETTO MODULE xplane.line_sums;

INCLUDE PERFETTO MODULE xplane.slices;

-- The analysis events summed per line and name, with the line's names:
-- xplane_breakdown (xplane.breakdown) and xplane_tracks (xplane.aggregates)
-- group these rows, a few per line, not the events.
CREATE PERFETTO TABLE _xplane_line_name_sum(
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- XLine index.
  line_index LONG,
  -- XPlane index of the plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- Raw XLine name.
  line_name STRING,
  -- The line's own label (as xplane_slice.line_label).
  line_label STRING,
  -- Event name.
  name STRING,
  -- Number of analysis events.
  n_events LONG,
  -- Their summed duration in ps.
  dur_ps LONG,
  -- Their summed exclusive time in ps.
  self_ps LONG,
  -- The first start in ps.
  first_start_ps LONG,
  -- The last end in ps.
  last_end_ps LONG
) AS
WITH
  -- (each group's exclusive time is its duration minus what the children
  -- of its parents take, min(duration, children's durations) per parent:
  -- the exclusive time per event is max(0, duration - children's), and
  -- few events are parents, so they are looked up, not every event)
  taken AS MATERIALIZED (
    SELECT e.upid, e.line_index, e.name, sum(min(e.dur_ps, c.ps)) AS ps
    FROM _xplane_child_ps c
    CROSS JOIN _xplane_analysis_slice e USING (id)
    GROUP BY e.upid, e.line_index, e.name
  )
SELECT
  e.upid, e.line_index, l.plane_index, l.plane_name, l.line_name, l.line_label, e.name, e.n_events, e.dur_ps,
  e.dur_ps - coalesce(t.ps, 0) AS self_ps, e.first_start_ps, e.last_end_ps
FROM (
  SELECT
    upid, line_index, name,
    count(*) AS n_events,
    sum(dur_ps) AS dur_ps,
    min(start_ps) AS first_start_ps,
    max(start_ps + dur_ps) AS last_end_ps
  FROM _xplane_analysis_slice
  GROUP BY upid, line_index, name
) e
LEFT JOIN taken t ON t.upid = e.upid AND t.line_index IS e.line_index AND t.name = e.name
-- (the names of the line: _xplane_event_line, one row per upid and
-- line_index)
JOIN _xplane_event_line l ON l.upid = e.upid AND l.line_index IS e.line_index;
