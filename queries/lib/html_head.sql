-- queries/lib/html_head.sql: the head of the HTML pages (queries/report_html.sql,
-- queries/profile_report_html.sql): doctype, title (the profile's path,
-- escaped) and the inline CSS, ending with <body>; part 0 of temp.xq_html.
-- Input: temp.xq_summary (the source path), temp.xq_html_page(width: the
-- page's max-width in px, extra: CSS rules added at the end of the style).
INSERT INTO xq_html
SELECT 0, '<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>xplane report: ' || xplane_html(s.doc->>'$.source_path') || '</title>
<style>
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; background: #fafafa; margin: 0; padding: 16px 24px; max-width: ' || (SELECT width FROM xq_html_page) || 'px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 4px; }
.meta { color: #555; font-size: 13px; word-break: break-all; }
.card { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.note { color: #555; font-size: 12px; margin: 2px 0 6px; }
svg { display: block; font: 11px system-ui, sans-serif; }
svg text { fill: #333; } .axis line, .axis path { stroke: #888; } .grid line { stroke: #eee; }
.axis-title { font-size: 12px; fill: #222; }
table { border-collapse: collapse; width: 100%; font-size: 12px; }
th, td { border-bottom: 1px solid #eee; padding: 4px 6px; text-align: left; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
.sev { display: inline-block; padding: 1px 6px; border-radius: 8px; color: #fff; font-size: 11px; }
.sev-high { background: #c0392b; } .sev-medium { background: #e67e22; } .sev-low { background: #7f8c8d; }
.kv { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 13px; }
.kv b { font-weight: 600; }
' || (SELECT extra FROM xq_html_page) || '</style></head><body>'
  FROM xq_summary s;
