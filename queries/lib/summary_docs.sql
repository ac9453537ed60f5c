-- queries/lib/summary_docs.sql: the two summary documents compare_summaries.sql compares.
--
-- Fills temp.xq_before(doc) and temp.xq_after(doc), as compare_build.sql does
-- from two profiles, from xq_input.before_summary and after_summary: the text
-- of two profile_summary.v1 documents (summary.sql's output, from either
-- engine). Anything else stops the script with the message.
INSERT INTO xq_fail SELECT 'summaries' FROM xq_input
 WHERE NOT coalesce(json_valid(before_summary) AND json_valid(after_summary), 0)
    OR json_extract(before_summary, '$.schema_version') IS NOT 'profile_summary.v1'
    OR json_extract(after_summary, '$.schema_version') IS NOT 'profile_summary.v1';
DROP TABLE IF EXISTS temp.xq_before;
CREATE TEMP TABLE xq_before AS SELECT json(before_summary) AS doc FROM xq_input;
DROP TABLE IF EXISTS temp.xq_after;
CREATE TEMP TABLE xq_after AS SELECT json(after_summary) AS doc FROM xq_input;
