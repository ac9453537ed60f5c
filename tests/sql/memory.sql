-- memory.sql: xplane_memory and xplane_memory_peaks on the hand-made profile
-- tests/fixtures/memory.textproto (its comments give the events), with the
-- expected peaks derived by hand:
--   GPU_0_bfc: allocations at 1, 2, 4 us (100 + 200 + 100 = 400 bytes), frees at
--     3 and 5 us; in use 100, 300, 200, 300, 0: peak 300 first reached at 2 us
--     (2000000 ps; the tie at 4 us is not a new peak); the allocator's own
--     peak_bytes_in_use reaches 400; 0 in use at the end; device ops running at
--     2 us: k1 [1.5, 2.5) and k2 [2, 3).
--   index_on_host:1 (a TPU-style event without allocator_name): one allocation
--     of 50 at 2.5 us, its peak; no peak_bytes_in_use stat (NULL); at 2.5 us k2
--     and k3 run (k1 ends at 2.5: not running).
-- The event at 4.5 us has no bytes_allocated and is not a memory event.
.load @EXT@
.mode list
.separator ' | '
SELECT time_ps, kind, allocator, bytes, in_use_bytes, peak_in_use_bytes, tf_op
  FROM xplane_memory('@FIXTURES@/memory.xplane.pb');
SELECT allocator, n_allocations, n_deallocations, allocated_bytes, peak_in_use_bytes, peak_time_ps,
       reported_peak_bytes, final_in_use_bytes, first_time_ps, last_time_ps, n_ops_at_peak, ops_at_peak
  FROM xplane_memory_peaks('@FIXTURES@/memory.xplane.pb');
CREATE TEMP TABLE want(allocator, n_alloc, n_dealloc, allocated, peak, peak_time, reported, final, n_ops, ops);
INSERT INTO want VALUES ('GPU_0_bfc', 3, 2, 400, 300, 2000000, 400, 0, 2, '["k1","k2"]'),
                        ('index_on_host:1', 1, 0, 50, 50, 2500000, NULL, 50, 2, '["k2","k3"]');
SELECT count(*) AS rows_as_derived FROM want w JOIN xplane_memory_peaks('@FIXTURES@/memory.xplane.pb') p
    ON p.allocator = w.allocator AND p.n_allocations = w.n_alloc AND p.n_deallocations = w.n_dealloc
   AND p.allocated_bytes = w.allocated AND p.peak_in_use_bytes = w.peak AND p.peak_time_ps = w.peak_time
   AND p.reported_peak_bytes IS w.reported AND p.final_in_use_bytes = w.final AND p.n_ops_at_peak = w.n_ops
   AND p.ops_at_peak = w.ops;
-- No memory events: no rows, not an error.
SELECT (SELECT count(*) FROM xplane_memory('@FIXTURES@/xprof.xplane.pb')) AS events,
       (SELECT count(*) FROM xplane_memory_peaks('@FIXTURES@/xprof.xplane.pb')) AS allocators;
