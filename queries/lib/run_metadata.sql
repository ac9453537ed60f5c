-- queries/lib/run_metadata.sql: run metadata from the profile itself, plus the user's run facts.
-- sqlite3-only: it reads the device planes' stats (xplane_planes), which the
-- PerfettoSQL package does not define.
--
-- Read after queries/lib/summary_json.sql (the xplane command does, for
-- summarize and report; in the shell: `.read queries/lib/run_metadata.sql`
-- before printing). Updates temp.xq_summary(doc).run_metadata, which the
-- reference leaves null, from what the profile says about its hardware:
--   hardware_type  the device planes' `device_type_string` ("TPU v6 Lite"),
--                  else "<vendor> GPU (compute capability X.Y)"
--   num_devices    device planes that carry such stats
--   facts          [{"name", "value"}] in this order, each only when known:
--                  Host (the file's host), Host names (XSpace hostnames),
--                  Devices ("4 x TPU v6 Lite"), Peak FLOP/s per device
--                  (peak_teraflops_per_second * 1e12, '.3e'), Peak memory
--                  bandwidth per device (GB/s: peak_hbm_bw_gigabytes_per_second,
--                  else memory_bandwidth bytes/s / 1e9), Cores per device
--                  (core_count), Memory per device (GiB: memory_size / 2^30),
--                  Clock (GHz: clock_rate kHz / 1e6); then the user's facts.
-- The user's facts are the rows of temp.xq_run_facts(key, value) (the
-- command fills it from --metadata FILE; in the shell:
-- `.import --csv --schema temp facts.csv xq_run_facts`): a key that is a
-- run_metadata field (git_sha, config_hash, run_id, run_path, artifact_ref,
-- artifact_name, hardware_type, mesh_or_topology, num_devices, num_hosts;
-- `topology` is another name of mesh_or_topology) sets that field; any other
-- key is appended to facts. report_md.sql prints
-- the facts under "## Run Metadata".
CREATE TEMP TABLE IF NOT EXISTS xq_run_facts(key TEXT, value TEXT);
DROP TABLE IF EXISTS temp.xq_devices;
CREATE TEMP TABLE xq_devices AS
SELECT plane_name,
       coalesce(stats ->> '$.device_type_string',
                CASE WHEN stats ->> '$.compute_cap_major' IS NOT NULL
                     THEN ltrim(coalesce(stats ->> '$.device_vendor', '') || ' GPU (compute capability '
                                || (stats ->> '$.compute_cap_major') || '.' || coalesce(stats ->> '$.compute_cap_minor', 0) || ')') END)
         AS type,
       stats ->> '$.peak_teraflops_per_second' AS peak_tflops,
       coalesce(stats ->> '$.peak_hbm_bw_gigabytes_per_second', stats ->> '$.memory_bandwidth' / 1e9) AS mem_gbps,
       stats ->> '$.core_count' AS cores,
       stats ->> '$.memory_size' AS mem_bytes,
       stats ->> '$.clock_rate' AS clock_khz
  FROM xplane_planes
 WHERE plane_name LIKE '/device:%'
   AND (stats ->> '$.device_type_string' IS NOT NULL OR stats ->> '$.compute_cap_major' IS NOT NULL);
DROP TABLE IF EXISTS temp.xq_meta;
CREATE TEMP TABLE xq_meta AS
WITH types(type, n) AS (SELECT type, count(*) FROM xq_devices GROUP BY type),
user(key, value, i) AS (SELECT key, value, rowid FROM xq_run_facts),
facts(i, name, value) AS (
  SELECT 1, 'Host', (SELECT group_concat(host, ', ') FROM (SELECT DISTINCT host FROM xplane_files ORDER BY host))
  UNION ALL SELECT 2, 'Host names', (SELECT group_concat(h.value, ', ') FROM xplane_space s, json_each(s.hostnames) h)
  UNION ALL SELECT 3, 'Devices', (SELECT group_concat(n || ' x ' || type, ', ') FROM (SELECT * FROM types ORDER BY type))
  UNION ALL SELECT 4, 'Peak FLOP/s per device', (SELECT xplane_format(max(peak_tflops) * 1e12, '.3e') FROM xq_devices)
  UNION ALL SELECT 5, 'Peak memory bandwidth per device (GB/s)', (SELECT xplane_format(max(mem_gbps), '.3f') FROM xq_devices)
  UNION ALL SELECT 6, 'Cores per device', (SELECT max(cores) FROM xq_devices)
  UNION ALL SELECT 7, 'Memory per device (GiB)', (SELECT xplane_format(max(mem_bytes) / 1073741824.0, '.3f') FROM xq_devices)
  UNION ALL SELECT 8, 'Clock (GHz)', (SELECT xplane_format(max(clock_khz) / 1e6, '.3f') FROM xq_devices)
  UNION ALL SELECT 100 + i, key, value FROM user
   WHERE key NOT IN ('git_sha', 'config_hash', 'run_id', 'run_path', 'artifact_ref', 'artifact_name', 'hardware_type',
                     'mesh_or_topology', 'topology', 'num_devices', 'num_hosts'))
SELECT (SELECT json_group_array(json_object('name', name, 'value', CAST(value AS TEXT)))
          FROM (SELECT * FROM facts WHERE value IS NOT NULL AND value <> '' ORDER BY i)) AS facts,
       (SELECT group_concat(type, ', ') FROM (SELECT type FROM types ORDER BY type)) AS hardware_type,
       (SELECT nullif(count(*), 0) FROM xq_devices) AS num_devices;
UPDATE xq_summary SET doc = json_set(doc,
  '$.run_metadata.hardware_type', coalesce((SELECT value FROM xq_run_facts WHERE key = 'hardware_type'),
                                           (SELECT hardware_type FROM xq_meta), doc ->> '$.run_metadata.hardware_type'),
  '$.run_metadata.num_devices', coalesce((SELECT CAST(value AS INTEGER) FROM xq_run_facts WHERE key = 'num_devices'),
                                         (SELECT num_devices FROM xq_meta), doc ->> '$.run_metadata.num_devices'),
  '$.run_metadata.num_hosts', coalesce((SELECT CAST(value AS INTEGER) FROM xq_run_facts WHERE key = 'num_hosts'),
                                       doc ->> '$.run_metadata.num_hosts'),
  '$.run_metadata.git_sha', coalesce((SELECT value FROM xq_run_facts WHERE key = 'git_sha'), doc ->> '$.run_metadata.git_sha'),
  '$.run_metadata.config_hash', coalesce((SELECT value FROM xq_run_facts WHERE key = 'config_hash'), doc ->> '$.run_metadata.config_hash'),
  '$.run_metadata.run_id', coalesce((SELECT value FROM xq_run_facts WHERE key = 'run_id'), doc ->> '$.run_metadata.run_id'),
  '$.run_metadata.run_path', coalesce((SELECT value FROM xq_run_facts WHERE key = 'run_path'), doc ->> '$.run_metadata.run_path'),
  '$.run_metadata.artifact_ref', coalesce((SELECT value FROM xq_run_facts WHERE key = 'artifact_ref'), doc ->> '$.run_metadata.artifact_ref'),
  '$.run_metadata.artifact_name', coalesce((SELECT value FROM xq_run_facts WHERE key = 'artifact_name'), doc ->> '$.run_metadata.artifact_name'),
  '$.run_metadata.mesh_or_topology', coalesce((SELECT value FROM xq_run_facts WHERE key = 'mesh_or_topology'),
                                              (SELECT value FROM xq_run_facts WHERE key = 'topology'),
                                              doc ->> '$.run_metadata.mesh_or_topology'),
  '$.run_metadata.facts', json((SELECT facts FROM xq_meta)));
