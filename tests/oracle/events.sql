-- tests/oracle/events.sql: the events tests/oracle/device_op_regions.py reads,
-- dumped as JSON by the sqlite3 shell (profile in the shell parameter @f).
-- signature_of_long_name: xplane_shape_signature of the long_name stat, else
-- of the metadata name where it differs from the display name (the oracle
-- decides itself whether an event has a long name).
SELECT plane_index, plane_name, line_index, line_id, line_name, line_display_name, name, display_name,
       start_ps, dur_ps, stats,
       xplane_shape_signature(coalesce(CASE WHEN typeof(stats ->> '$.long_name') = 'text'
                                             THEN nullif(stats ->> '$.long_name', '') END,
                                        CASE WHEN name <> coalesce(nullif(display_name, ''), name) THEN name END))
         AS signature_of_long_name
  FROM xplane_events(@f) ORDER BY plane_index, line_index, event_index;
