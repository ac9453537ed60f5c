-- xplane.reports: everything the canned queries (queries/) read, in one
-- include: xplane.summary (the tables xplane_files, xplane_space,
-- xplane_events, xplane_ops, xplane_steps, xplane_scopes, xplane_tracks,
-- xplane_hints, xplane_op_names, xplane_op_tf_ops, xplane_gaps,
-- xplane_op_regions, and the rule and formatting functions) and
-- xplane.xprof (memory, devices, roofline, kernel stats).
-- tp_plugin/tp_query.sh starts an assembled query with it when the query
-- reads an xprof table (else with xplane.summary, which builds fewer tables).
--
--   INCLUDE PERFETTO MODULE xplane.reports;

INCLUDE PERFETTO MODULE xplane.summary;
INCLUDE PERFETTO MODULE xplane.xprof;
