-- queries/lib/md_html.sql: the markdown of temp.xq_pmd(seq, line) (the
-- profile report's lines, queries/lib/profile_report_md.sql and the files
-- after it) as HTML, into temp.xq_html(part, html) as part 10.
--
-- It reads only the markdown these files write: `#`, `##`, `###` headings;
-- tables (a row `| a | b |`, the header row followed by `|---|`, cells
-- separated by unescaped `|`); list items `- `; other lines paragraphs (one
-- in parentheses a note). Inline: `code` spans; `\|` and `\`` are a literal
-- `|` and backtick. Every text is HTML-escaped (& < > "), so a name from a
-- profile cannot open a tag. Numbers are the markdown's, character for
-- character: the HTML and the markdown report cannot disagree.
DROP TABLE IF EXISTS temp.xq_mdl;
CREATE TEMP TABLE xq_mdl AS
SELECT seq, line,
       CASE WHEN line LIKE '|%' AND line GLOB '|*-|*' AND replace(replace(replace(line, '|', ''), '-', ''), ':', '') = '' THEN 'sep'
            WHEN line LIKE '|%' THEN 'row' WHEN line LIKE '- %' THEN 'li' WHEN line LIKE '### %' THEN 'h3'
            WHEN line LIKE '## %' THEN 'h2' WHEN line LIKE '# %' THEN 'h1' WHEN line = '' THEN 'blank'
            WHEN line LIKE '(%)' THEN 'note' ELSE 'p' END AS kind
  FROM xq_pmd;
DROP TABLE IF EXISTS temp.xq_mdk;
CREATE TEMP TABLE xq_mdk AS
SELECT seq, kind, lag(kind) OVER w AS prev, lead(kind) OVER w AS next,
       -- the text to render: markers stripped; escapes of | and ` to control characters (1, 2);
       -- table cells separated by character 3 (every | left is a separator)
       CASE kind
         WHEN 'row' THEN replace(replace(replace(substr(line, 2, length(line) - 2), '\`', char(1)), '\|', char(2)), '|', char(3))
         WHEN 'li' THEN replace(replace(substr(line, 3), '\`', char(1)), '\|', char(2))
         WHEN 'h3' THEN replace(replace(substr(line, 5), '\`', char(1)), '\|', char(2))
         WHEN 'h2' THEN replace(replace(substr(line, 4), '\`', char(1)), '\|', char(2))
         WHEN 'h1' THEN replace(replace(substr(line, 3), '\`', char(1)), '\|', char(2))
         ELSE replace(replace(line, '\`', char(1)), '\|', char(2)) END AS body
  FROM xq_mdl WINDOW w AS (ORDER BY seq);
-- inline code: split each body at its backticks, escape each piece, <code> around every other
DROP TABLE IF EXISTS temp.xq_mdi;
CREATE TEMP TABLE xq_mdi AS
WITH RECURSIVE i(seq, n, rest, out, open) AS (
  SELECT seq, 0, body, '', 0 FROM xq_mdk WHERE kind NOT IN ('sep', 'blank')
  UNION ALL
  SELECT seq, n + 1,
         CASE WHEN instr(rest, '`') > 0 THEN substr(rest, instr(rest, '`') + 1) ELSE '' END,
         out || replace(replace(replace(replace(replace(replace(
                  CASE WHEN instr(rest, '`') > 0 THEN substr(rest, 1, instr(rest, '`') - 1) ELSE rest END,
                  '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), char(1), '`'), char(2), '|')
             || CASE WHEN instr(rest, '`') = 0 THEN '' WHEN open THEN '</code>' ELSE '<code>' END,
         CASE WHEN instr(rest, '`') > 0 THEN 1 - open ELSE open END
    FROM i WHERE rest <> '')
SELECT seq, out || CASE WHEN open THEN '</code>' ELSE '' END AS html
  FROM (SELECT *, row_number() OVER (PARTITION BY seq ORDER BY n DESC) AS last FROM i) WHERE last = 1;
INSERT INTO xq_html
SELECT 10, group_concat(h, char(10)) FROM (
  SELECT k.seq, CASE k.kind
      WHEN 'h1' THEN '<h1>' || i.html || '</h1>'
      WHEN 'h2' THEN '<h2>' || i.html || '</h2>'
      WHEN 'h3' THEN '<h3>' || i.html || '</h3>'
      WHEN 'p' THEN '<p>' || i.html || '</p>'
      WHEN 'note' THEN '<p class="note">' || i.html || '</p>'
      WHEN 'li' THEN CASE WHEN k.prev IS NOT 'li' THEN '<ul>' ELSE '' END || '<li>' || i.html || '</li>'
                     || CASE WHEN k.next IS NOT 'li' THEN '</ul>' ELSE '' END
      WHEN 'row' THEN CASE WHEN k.prev NOT IN ('row', 'sep') OR k.prev IS NULL THEN '<div class="scroll"><table>' ELSE '' END
                     || CASE WHEN k.next = 'sep' THEN '<tr><th>' || replace(trim(i.html), char(3), '</th><th>') || '</th></tr>'
                             ELSE '<tr><td>' || replace(i.html, char(3), '</td><td>') || '</td></tr>' END
                     || CASE WHEN k.next NOT IN ('row', 'sep') OR k.next IS NULL THEN '</table></div>' ELSE '' END
      ELSE '' END AS h
    FROM xq_mdk k LEFT JOIN xq_mdi i ON i.seq = k.seq
   WHERE k.kind NOT IN ('sep', 'blank')
   ORDER BY k.seq);
