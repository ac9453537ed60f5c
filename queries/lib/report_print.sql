-- queries/lib/report_print.sql: render and print the markdown report from temp.xq_summary.
--
-- The body of queries/report.sql and queries/report_from_summary.sql: the
-- region shares (lib/region_shares.sql), the markdown (lib/report_md.sql),
-- printed as one text column.
.read queries/lib/region_shares.sql
.read queries/lib/report_md.sql
.mode list
.headers off
SELECT md AS document FROM xq_report;
