-- xplane.breakdown: where the time goes, by event category
-- (docs/ANALYSIS.md, time breakdown, mode exclusive_per_track).
--
--   INCLUDE PERFETTO MODULE xplane.breakdown;
--   SELECT category, self_ps / 1e6 AS us, share FROM xplane_breakdown;
--
-- The exclusive time of every analysis event except those of lines
-- labelled exactly `Steps` (display name, else name), summed per event category (xplane_event_category:
-- stall, host, communication, compute, other); the total is the sum of the
-- five, and share = part / total (0 when the total is 0).

INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.slices;

-- One row per category, all five always present.
CREATE PERFETTO TABLE xplane_breakdown(
  -- compute, communication, host, stall or other.
  category STRING,
  -- Summed exclusive time in ps.
  self_ps LONG,
  -- Fraction of the total.
  share DOUBLE
) AS
WITH
  cats(category) AS (VALUES ('compute'), ('communication'), ('host'), ('stall'), ('other')),
  -- (summed per line and name first: the category rule and the line's
  -- label once per group, not per event)
  sums AS (
    SELECT xplane_event_category(l.plane_name, e.name) AS category, sum(e.self_ps) AS self_ps
    FROM (
      SELECT upid, line_index, name, sum(self_ps) AS self_ps
      FROM _xplane_analysis_core
      GROUP BY upid, line_index, name
    ) e
    JOIN _xplane_event_line l ON l.upid = e.upid AND l.line_index IS e.line_index
    WHERE l.line_label != 'Steps'
    GROUP BY 1
  ),
  total AS (SELECT coalesce(sum(self_ps), 0) AS t FROM sums)
SELECT
  c.category,
  coalesce(s.self_ps, 0) AS self_ps,
  CASE WHEN total.t > 0 THEN coalesce(s.self_ps, 0) * 1.0 / total.t ELSE 0.0 END AS share
FROM cats c
LEFT JOIN sums s USING (category)
CROSS JOIN total;
