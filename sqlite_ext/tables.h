/*
** tables.h: the table descriptors the entry point registers (one per
** xplane_* table-valued function; each defined in a tables_*.c file).
*/
#ifndef XPLANE_TABLES_H
#define XPLANE_TABLES_H

#include "vtab.h"

extern const xp_table xp_table_files;          /* tables_files.c */
extern const xp_table xp_table_space;
extern const xp_table xp_table_planes;         /* tables_model.c */
extern const xp_table xp_table_lines;
extern const xp_table xp_table_event_metadata;
extern const xp_table xp_table_stat_metadata;
extern const xp_table xp_table_events;         /* tables_events.c */
extern const xp_table xp_table_stats;
extern const xp_table xp_table_ops;            /* tables_ops.c */
extern const xp_table xp_table_steps;
extern const xp_table xp_table_scopes;
extern const xp_table xp_table_tracks;         /* tables_summary.c */
extern const xp_table xp_table_hints;
extern const xp_table xp_table_op_names;
extern const xp_table xp_table_op_tf_ops;
extern const xp_table xp_table_gaps;
extern const xp_table xp_table_findings;      /* tables_findings.c */
extern const xp_table xp_table_op_regions;
extern const xp_table xp_table_device_time;    /* tables_device_time.c */
extern const xp_table xp_table_step_time;
extern const xp_table xp_table_devices;        /* tables_xprof.c */
extern const xp_table xp_table_hlo_stats;
extern const xp_table xp_table_kernel_stats;
extern const xp_table xp_table_memory;
extern const xp_table xp_table_memory_peaks;
extern const xp_table xp_table_hlo_op_paths; /* tables_hlo.c */
extern const xp_table xp_table_pf_slice;        /* tables_perfetto.c */
extern const xp_table xp_table_pf_thread_track;
extern const xp_table xp_table_pf_thread;
extern const xp_table xp_table_pf_process;
extern const xp_table xp_table_pf_args;
extern const xp_table xp_table_pf_flow;

/* xplane_hlo_instructions (tables_hlo.c): its own eponymous module, not an xp_table. */
int xp_register_hlo_table(sqlite3 *db, xp_cache *cache);

#endif
