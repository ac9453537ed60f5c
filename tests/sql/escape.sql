-- escape.sql: xplane_md_code, xplane_md_cell and xplane_html (core/escape.h),
-- the one escape of every name the reports print. Each row: the expected
-- value, derived by hand from the rules, beside the call; `ok` is 1 when
-- they are equal (the .expected file holds the rows).
.load @EXT@
.mode list
.headers off
WITH t(name, got, want) AS (VALUES
  -- a plain name: one backtick each side
  ('plain', xplane_md_code('fusion.1'), '`fusion.1`'),
  -- a backtick inside: the delimiter is one longer than the longest run (1)
  ('tick', xplane_md_code('a`b'), '``a`b``'),
  -- runs of 1 and 3: delimiter of 4
  ('runs', xplane_md_code('a`b```c'), '````a`b```c````'),
  -- begins with a backtick: a space inside each delimiter (CommonMark strips them)
  ('edge tick', xplane_md_code('`x'), '`` `x ``'),
  -- begins with a space, not all spaces: padded the same way
  ('edge space', xplane_md_code(' a'), '`  a `'),
  -- all spaces: not padded (CommonMark strips nothing there)
  ('spaces', xplane_md_code('  '), '`  `'),
  -- empty: a span of one space
  ('empty', xplane_md_code(''), '` `'),
  -- outside a table a pipe stays; in a cell it is \|
  ('pipe', xplane_md_code('a|b'), '`a|b`'),
  ('cell pipe', xplane_md_cell('a|b'), '`a\|b`'),
  -- control characters: newline U+240A, ESC U+241B, BEL U+2407, NUL U+2400, DEL U+2421
  ('controls', xplane_md_code('a' || char(10) || 'b' || char(27) || '[31m' || char(7) || char(127)),
   '`a' || char(0x240A) || 'b' || char(0x241B) || '[31m' || char(0x2407) || char(0x2421) || '`'),
  -- C1 CSI U+009B and a bidi override U+202E: U+FFFD each
  ('c1 bidi', xplane_md_code('x' || char(0x9B) || 'y' || char(0x202E) || 'z'), '`x' || char(0xFFFD) || 'y' || char(0xFFFD) || 'z`'),
  -- ill-formed UTF-8: FF, then C3 cut short: one U+FFFD each (maximal subparts)
  ('utf8', xplane_md_code(CAST(x'61ff62c3' AS TEXT)), '`a' || char(0xFFFD) || 'b' || char(0xFFFD) || '`'),
  -- well-formed non-ASCII kept: é, 😀
  ('unicode', xplane_md_code('é😀'), '`é😀`'),
  -- a number is its text
  ('number', xplane_md_cell(12), '`12`'),
  -- HTML: & < > " ' as references, controls as pictures
  ('html', xplane_html('<a href="x">&''' || char(27)), '&lt;a href=&quot;x&quot;&gt;&amp;&#39;' || char(0x241B)),
  ('html utf8', xplane_html(CAST(x'3cff3e' AS TEXT)), '&lt;' || char(0xFFFD) || '&gt;'))
SELECT name, got = want AS ok FROM t;
-- NULL stays NULL (coalesce(xplane_md_cell(x), 'n/a') relies on it)
SELECT xplane_md_code(NULL) IS NULL, xplane_md_cell(NULL) IS NULL, xplane_html(NULL) IS NULL;
