-- queries/lib/cleanup.sql: the end of every query file: drop its temporary tables, turn .bail off.
-- sqlite3-only: trace processor scripts (tp_plugin/tp_query.sh) leave it out.
--
-- Every query file builds its work in temp.xq_* tables and views (and
-- temp.xq_params, the triggers of checks.sql on temp.xq_fail); this file drops
-- them all, so after `.read queries/X.sql` the shell's `.tables` lists what
-- it listed before (tests/test_shell_habits.sh checks every top-level file),
-- and leaves the shell in its default settings: `.bail off` (lib/checks.sql
-- turned it on), `.mode list` and `.headers off` (the files print one text
-- column, which only list mode without headers prints as is; the 3.40 shell
-- cannot report the user's mode or headers, so they cannot be restored:
-- queries/README.md "Shell settings"). The shell's parameters
-- (temp.sqlite_parameters) are the user's and stay. A file that adds a temp
-- table adds its name here.
DROP VIEW IF EXISTS temp.xq_cmp;
DROP VIEW IF EXISTS temp.xq_doc;
DROP VIEW IF EXISTS temp.xq_dt;
DROP VIEW IF EXISTS temp.xq_region_shares;
DROP VIEW IF EXISTS temp.xq_xdoc;
DROP TABLE IF EXISTS temp.xq_after;
DROP TABLE IF EXISTS temp.xq_before;
DROP TABLE IF EXISTS temp.xq_breakdown;
DROP TABLE IF EXISTS temp.xq_breakdown_total;
DROP TABLE IF EXISTS temp.xq_candidates;
DROP TABLE IF EXISTS temp.xq_classes;
DROP TABLE IF EXISTS temp.xq_comm;
DROP TABLE IF EXISTS temp.xq_compare;
DROP TABLE IF EXISTS temp.xq_devices;
DROP TABLE IF EXISTS temp.xq_dstats;
DROP TABLE IF EXISTS temp.xq_seqsum;
DROP TABLE IF EXISTS temp.xq_evgroups;
DROP TABLE IF EXISTS temp.xq_fail;
DROP TABLE IF EXISTS temp.xq_families;
DROP TABLE IF EXISTS temp.xq_file;
DROP TABLE IF EXISTS temp.xq_finding;
DROP TABLE IF EXISTS temp.xq_findings_doc;
DROP TABLE IF EXISTS temp.xq_gap_groups;
DROP TABLE IF EXISTS temp.xq_gap_regions;
DROP TABLE IF EXISTS temp.xq_gaps;
DROP TABLE IF EXISTS temp.xq_global_events;
DROP TABLE IF EXISTS temp.xq_h_bd;
DROP TABLE IF EXISTS temp.xq_h_bdx;
DROP TABLE IF EXISTS temp.xq_h_colors;
DROP TABLE IF EXISTS temp.xq_h_dec;
DROP TABLE IF EXISTS temp.xq_h_gaps;
DROP TABLE IF EXISTS temp.xq_h_icicle;
DROP TABLE IF EXISTS temp.xq_h_lanes;
DROP TABLE IF EXISTS temp.xq_h_ops;
DROP TABLE IF EXISTS temp.xq_h_rcol;
DROP TABLE IF EXISTS temp.xq_h_rdim;
DROP TABLE IF EXISTS temp.xq_h_rep;
DROP TABLE IF EXISTS temp.xq_h_roof;
DROP TABLE IF EXISTS temp.xq_h_sc;
DROP TABLE IF EXISTS temp.xq_h_sdim;
DROP TABLE IF EXISTS temp.xq_h_steps;
DROP TABLE IF EXISTS temp.xq_h_tl;
DROP TABLE IF EXISTS temp.xq_h_tree;
DROP TABLE IF EXISTS temp.xq_hints;
DROP TABLE IF EXISTS temp.xq_hot;
DROP TABLE IF EXISTS temp.xq_html;
DROP TABLE IF EXISTS temp.xq_html_page;
DROP TABLE IF EXISTS temp.xq_h_oplab;
DROP TABLE IF EXISTS temp.xq_mdl;
DROP TABLE IF EXISTS temp.xq_mdk;
DROP TABLE IF EXISTS temp.xq_mdi;
DROP TABLE IF EXISTS temp.xq_mdt;
DROP TABLE IF EXISTS temp.xq_input;
DROP TABLE IF EXISTS temp.xq_km;
DROP TABLE IF EXISTS temp.xq_km_groups;
DROP TABLE IF EXISTS temp.xq_km_in;
DROP TABLE IF EXISTS temp.xq_md;
DROP TABLE IF EXISTS temp.xq_pmd;
DROP TABLE IF EXISTS temp.xq_cdt;
DROP TABLE IF EXISTS temp.xq_chw;
DROP TABLE IF EXISTS temp.xq_cname;
DROP TABLE IF EXISTS temp.xq_cst;
DROP TABLE IF EXISTS temp.xq_csq;
DROP TABLE IF EXISTS temp.xq_cop;
DROP TABLE IF EXISTS temp.xq_cchg;
DROP TABLE IF EXISTS temp.xq_pcdoc;
DROP TABLE IF EXISTS temp.xq_st;
DROP TABLE IF EXISTS temp.xq_stq;
DROP TABLE IF EXISTS temp.xq_host;
DROP TABLE IF EXISTS temp.xq_top;
DROP TABLE IF EXISTS temp.xq_find;
DROP VIEW IF EXISTS temp.xq_roof_any;
DROP VIEW IF EXISTS temp.xq_roof_cells;
DROP TABLE IF EXISTS temp.xq_roof;
DROP TABLE IF EXISTS temp.xq_half;
DROP TABLE IF EXISTS temp.xq_pair;
DROP TABLE IF EXISTS temp.xq_async;
DROP TABLE IF EXISTS temp.xq_kern;
DROP TABLE IF EXISTS temp.xq_mem;
DROP TABLE IF EXISTS temp.xq_reg;
DROP TABLE IF EXISTS temp.xq_regp;
DROP TABLE IF EXISTS temp.xq_gap;
DROP TABLE IF EXISTS temp.xq_lines;
DROP TABLE IF EXISTS temp.xq_profile_report;
DROP TABLE IF EXISTS temp.xq_meta;
DROP TABLE IF EXISTS temp.xq_op_regions;
DROP TABLE IF EXISTS temp.xq_overview;
DROP TABLE IF EXISTS temp.xq_params;
DROP TABLE IF EXISTS temp.xq_payload_path;
DROP TABLE IF EXISTS temp.xq_preferred;
DROP TABLE IF EXISTS temp.xq_record;
DROP TABLE IF EXISTS temp.xq_records;
DROP TABLE IF EXISTS temp.xq_regions;
DROP TABLE IF EXISTS temp.xq_report;
DROP TABLE IF EXISTS temp.xq_run_facts;
DROP TABLE IF EXISTS temp.xq_run_ops;
DROP TABLE IF EXISTS temp.xq_run_stats;
DROP TABLE IF EXISTS temp.xq_run_steps;
DROP TABLE IF EXISTS temp.xq_shares;
DROP TABLE IF EXISTS temp.xq_sorted;
DROP TABLE IF EXISTS temp.xq_step;
DROP TABLE IF EXISTS temp.xq_step_parts;
DROP TABLE IF EXISTS temp.xq_stepset;
DROP TABLE IF EXISTS temp.xq_summary;
DROP TABLE IF EXISTS temp.xq_target;
DROP TABLE IF EXISTS temp.xq_thresholds;
DROP TABLE IF EXISTS temp.xq_track_m;
DROP TABLE IF EXISTS temp.xq_track_msgs;
DROP TABLE IF EXISTS temp.xq_track_in;
DROP TABLE IF EXISTS temp.xq_use;
DROP TABLE IF EXISTS temp.xq_window;
DROP TABLE IF EXISTS temp.xq_xmd;
DROP TABLE IF EXISTS temp.xq_xprof;
DROP TABLE IF EXISTS temp.xq_xprof_md;
.bail off
.mode list
.headers off
