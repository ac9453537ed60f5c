-- xplane.line_sums: the analysis events summed per line and name (private;
-- read by xplane.breakdown and xplane.aggregates, its own module so that
-- neither builds the other's tables).
--
--   INCLUDE PERFETTO MODULE xplane.line_sums;

INCLUDE PERFETTO MODULE xplane.slices;

-- The analysis events summed per line and name (_xplane_line_name_agg),
-- with the line's names (_xplane_event_line): xplane_breakdown
-- (xplane.breakdown) and xplane_tracks (xplane.aggregates) group these
-- rows, a few per line, not the events. A view: both tables it joins have a
-- few rows per line.
CREATE PERFETTO VIEW _xplane_line_name_sum(
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
SELECT
  e.upid, e.line_index, l.plane_index, l.plane_name, l.line_name, l.line_label, e.name, e.n_events, e.dur_ps,
  e.self_ps, e.first_start_ps, e.last_end_ps
FROM _xplane_line_name_agg e
JOIN _xplane_event_line l ON l.upid = e.upid AND l.line_index IS e.line_index;
