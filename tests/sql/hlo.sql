-- hlo.sql: xplane_hlo_instructions on the hand-made HloProto
-- tests/fixtures/module.hlo.textproto (every value there, read back), and its
-- errors: a missing file, a file that is not an HloProto, no path; and BLOBs.
.load @EXT@
.mode list
.separator ' | '
SELECT module, module_id, computation, computation_id, is_entry, name, opcode, id, shape, fusion_kind, op_type,
       op_name, source_file, source_line, is_root, called_computations
  FROM xplane_hlo_instructions('@FIXTURES@/module.hlo_proto.pb');
-- Device ops join to their instruction by name.
SELECT h.opcode, h.op_name FROM xplane_hlo_instructions('@FIXTURES@/module.hlo_proto.pb') h WHERE h.name = 'fusion.3';
.bail off
SELECT count(*) FROM xplane_hlo_instructions('@TMP@/missing.hlo_proto.pb');
SELECT writefile('@TMP@/bad.hlo_proto.pb', x'0a05ffffffffff') > 0 AS written;
SELECT count(*) FROM xplane_hlo_instructions('@TMP@/bad.hlo_proto.pb');
SELECT count(*) FROM xplane_hlo_instructions('@TINY@');
SELECT count(*) FROM xplane_hlo_instructions;
-- It reads files: not from a view (SQLITE_VTAB_DIRECTONLY).
CREATE VIEW main.v AS SELECT name FROM xplane_hlo_instructions('@FIXTURES@/module.hlo_proto.pb');
SELECT count(*) FROM v;
-- The bytes themselves (a BLOB, e.g. the `Hlo Proto` stat of a JAX profile's
-- /host:metadata plane): the same five instructions, no file columns.
SELECT count(*) AS n, group_concat(name, ',') AS names, count(file) AS files
  FROM xplane_hlo_instructions(readfile('@FIXTURES@/module.hlo_proto.pb'));
SELECT count(*) FROM xplane_hlo_instructions(x'0a05ffffffffff');
