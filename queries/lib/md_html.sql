-- queries/lib/md_html.sql: the markdown of temp.xq_pmd(seq, line) (the
-- profile report's lines, queries/lib/profile_report_md.sql and the files
-- after it) as HTML, into temp.xq_html(part, html) as part 10.
--
-- It reads only the markdown these files write: `#`, `##`, `###` headings;
-- tables (a row `| a | b |`, the header row followed by `|---|`, cells
-- separated by unescaped `|`, `\|` a literal `|`); list items `- `; other
-- lines paragraphs (one in parentheses a note). Inline: code spans as
-- CommonMark reads them (a run of N backticks opens a span that the next
-- run of exactly N closes; one space is stripped from each side of a span
-- that begins and ends with one; an unclosed run is literal): the names of
-- xplane_md_code / xplane_md_cell, whose text is already printable. Every
-- text is HTML-escaped (& < > "), so a name from a profile cannot open a
-- tag. Numbers are the markdown's, character for character: the HTML and
-- the markdown report cannot disagree.
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
       -- the text to render: markers stripped; in a table row the escaped \| to character 2, and
       -- cells separated by character 3 (every | left is a separator)
       CASE kind
         WHEN 'row' THEN replace(replace(substr(line, 2, length(line) - 2), '\|', char(2)), '|', char(3))
         WHEN 'li' THEN substr(line, 3)
         WHEN 'h3' THEN substr(line, 5)
         WHEN 'h2' THEN substr(line, 4)
         WHEN 'h1' THEN substr(line, 3)
         ELSE line END AS body
  FROM xq_mdl WINDOW w AS (ORDER BY seq);
-- inline code, in two steps. First each body as tokens: runs of backticks and the text
-- between them, in order (xq_mdt: n from 1; tick: the token is a run).
DROP TABLE IF EXISTS temp.xq_mdt;
CREATE TEMP TABLE xq_mdt AS
WITH RECURSIVE t(seq, n, tok, rest) AS (
  SELECT seq, 0, '', body FROM xq_mdk WHERE kind NOT IN ('sep', 'blank')
  UNION ALL
  SELECT seq, n + 1,
         substr(rest, 1, CASE WHEN rest GLOB '`*' THEN length(rest) - length(ltrim(rest, '`'))
                              WHEN instr(rest, '`') = 0 THEN length(rest) ELSE instr(rest, '`') - 1 END),
         substr(rest, 1 + CASE WHEN rest GLOB '`*' THEN length(rest) - length(ltrim(rest, '`'))
                               WHEN instr(rest, '`') = 0 THEN length(rest) ELSE instr(rest, '`') - 1 END)
    FROM t WHERE rest <> '')
SELECT seq, n, tok, tok GLOB '`*' AS tick FROM t WHERE n > 0;
CREATE INDEX temp.xq_mdt_seq ON xq_mdt(seq, n);
-- Then the tokens of each line in order: `open` is the length of the run that opened the
-- span being read (0: none), `code` its text so far; a run of another length is text of the
-- span. A span still open at the end is literal text, as CommonMark reads it.
DROP TABLE IF EXISTS temp.xq_mdi;
CREATE TEMP TABLE xq_mdi AS
WITH RECURSIVE s(seq, n, out, open, code) AS (
  SELECT seq, 0, '', 0, '' FROM xq_mdk WHERE kind NOT IN ('sep', 'blank')
  UNION ALL
  SELECT s.seq, s.n + 1,
         CASE WHEN NOT t.tick THEN CASE WHEN s.open = 0 THEN s.out || replace(replace(replace(replace(replace(t.tok, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), char(2), '|') ELSE s.out END
              WHEN s.open = 0 OR length(t.tok) <> s.open THEN s.out
              ELSE s.out || '<code>' || replace(replace(replace(replace(replace(CASE WHEN s.code LIKE ' % ' AND trim(s.code, ' ') <> '' THEN substr(s.code, 2, length(s.code) - 2) ELSE s.code END, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), char(2), '|') || '</code>' END,
         CASE WHEN NOT t.tick THEN s.open WHEN s.open = 0 THEN length(t.tok) WHEN length(t.tok) = s.open THEN 0
              ELSE s.open END,
         CASE WHEN s.open = 0 OR (t.tick AND length(t.tok) = s.open) THEN '' ELSE s.code || t.tok END
    FROM s JOIN xq_mdt t ON t.seq = s.seq AND t.n = s.n + 1),
l AS (SELECT *, row_number() OVER (PARTITION BY seq ORDER BY n DESC) AS last FROM s)
SELECT seq, out || CASE WHEN open = 0 THEN '' ELSE printf('%.*c', open, '`') || replace(replace(replace(replace(replace(code, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), char(2), '|') END AS html
  FROM l WHERE last = 1;
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
