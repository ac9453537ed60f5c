-- xplane.reports: everything the canned queries (queries/) read, in one
-- include: the tables xplane_files and xplane_space (xplane.source),
-- xplane_tracks, xplane_hints, xplane_op_names, xplane_op_tf_ops and
-- xplane_gaps (xplane.aggregates), xplane_op_regions (xplane.xprof),
-- xplane_ops, xplane_steps, xplane_scopes,
-- xplane_events (xplane.slices), and the rule and formatting functions
-- (xplane.rules, xplane.semantics, xplane.format). tp_plugin/tp_query.sh
-- starts every assembled query with it.
--
--   INCLUDE PERFETTO MODULE xplane.reports;

INCLUDE PERFETTO MODULE xplane.source;
INCLUDE PERFETTO MODULE xplane.format;
INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.semantics;
INCLUDE PERFETTO MODULE xplane.slices;
INCLUDE PERFETTO MODULE xplane.ops;
INCLUDE PERFETTO MODULE xplane.steps;
INCLUDE PERFETTO MODULE xplane.scopes;
INCLUDE PERFETTO MODULE xplane.aggregates;
INCLUDE PERFETTO MODULE xplane.xprof;
