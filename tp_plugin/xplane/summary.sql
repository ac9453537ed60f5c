-- xplane.summary: every module the summary document and the other canned
-- queries that run in trace processor read, without xplane.xprof's memory,
-- device, roofline and kernel tables: the tables xplane_files and
-- xplane_space (xplane.source), xplane_events (xplane.slices), xplane_ops,
-- xplane_steps, xplane_scopes, xplane_tracks, xplane_hints,
-- xplane_op_names, xplane_op_tf_ops and xplane_gaps (xplane.aggregates),
-- xplane_op_regions and xplane_hlo_op_paths (xplane.regions), and the rule
-- and formatting functions (xplane.rules, xplane.semantics, xplane.format).
-- A PERFETTO TABLE is built when its module is included, so a query pays
-- for every table of the modules it includes: tp_plugin/tp_query.sh starts
-- an assembled query with this module, or with xplane.reports when the
-- query reads an xprof table.
--
--   INCLUDE PERFETTO MODULE xplane.summary;

INCLUDE PERFETTO MODULE xplane.source;
INCLUDE PERFETTO MODULE xplane.format;
INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.semantics;
INCLUDE PERFETTO MODULE xplane.slices;
INCLUDE PERFETTO MODULE xplane.ops;
INCLUDE PERFETTO MODULE xplane.steps;
INCLUDE PERFETTO MODULE xplane.scopes;
INCLUDE PERFETTO MODULE xplane.aggregates;
INCLUDE PERFETTO MODULE xplane.regions;
