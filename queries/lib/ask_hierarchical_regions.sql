-- queries/lib/ask_hierarchical_regions.sql: the answer of queries/hierarchical_regions.sql (and hierarchical_regions_from_summary.sql),
-- printed from temp.xq_summary, xq_input and xq_target (lib/answer.sql or
-- lib/answer_saved.sql builds them). Read by those two files only.
.read queries/lib/region_shares.sql
SELECT xplane_json_pretty(json_object(
  'query_type', 'hierarchical_regions',
  'results', json((SELECT json_group_array(json_object(
                 'path', path, 'depth', depth, 'count', n,
                 'inclusive_duration', json(xplane_repr(incl)), 'exclusive_duration', json(xplane_repr(excl)),
                 'inclusive_share_of_total', json(xplane_repr(incl_share)),
                 'exclusive_share_of_total', json(xplane_repr(excl_share))))
                FROM (SELECT * FROM xq_region_shares WHERE i < (SELECT top_k FROM xq_input) ORDER BY i))))) AS document;
