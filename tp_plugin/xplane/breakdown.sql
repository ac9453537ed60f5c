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
INCLUDE PERFETTO MODULE xplane.line_sums;

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
  sums AS (
    SELECT xplane_event_category(plane_name, name) AS category, sum(self_ps) AS self_ps
    FROM _xplane_line_name_sum
    WHERE line_label != 'Steps'
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
