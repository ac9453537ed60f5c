-- timeline.sql: exclusive time and pre-op gap (docs/ANALYSIS.md) through the
-- window functions, on hand-made rows that carry their hand-checked values
-- (self-checking: ok or FAIL per row); and the
-- frame contract (a wrong frame or a plain aggregate use is an error).
.load @EXT@
.mode list
.headers off
.separator ' | '
-- Each row: the event, then its expected self time, gap and gap payload,
-- worked out by hand from the rules of docs/ANALYSIS.md.
CREATE TEMP TABLE ev(track, id, name, ts, dur, want_self, want_gap, want_payload);
INSERT INTO ev VALUES
  -- self time: nesting, equal end (a child), start at the parent's end (not a
  -- child), partial overlap (not a child: the earlier event closes).
  (1, 1, 'e1', 0, 100, 10, 0, NULL),
  (1, 2, 'e2', 10, 20, 20, 0, NULL),
  (1, 3, 'e3', 30, 70, 60, 0, NULL),
  (1, 4, 'e4', 40, 10, 10, 0, NULL),
  (1, 5, 'e5', 100, 10, 10, 0, NULL),
  (1, 6, 'e6', 105, 20, 15, 0, NULL),
  (1, 7, 'e7', 110, 5, 5, 0, NULL),
  -- identical spans: the later one (input order) is the child; a NULL duration takes no part.
  (2, 1, 'f1', 0, 10, 0, 0, NULL),
  (2, 2, 'f2', 0, 10, 10, 0, NULL),
  (2, 3, 'f3', 3, NULL, NULL, NULL, NULL),
  -- gaps: marker-like marker with a payload two ops on; a marker whose chain
  -- breaks (second idle period) is its own payload; a plain marker.
  (3, 1, 'fusion.1', 0, 10, 10, 0, NULL),
  (3, 2, 'fusion.2', 5, 10, 10, 0, NULL),
  (3, 3, 'iota.1', 20, 1, 1, 5, 'convolution.3'),
  (3, 4, 'constant.2', 21, 1, 1, 0, NULL),
  (3, 5, 'convolution.3', 22, 8, 8, 0, NULL),
  (3, 6, 'iota.4', 40, 2, 2, 10, 'iota.4'),
  (3, 7, 'fusion.5', 50, 5, 5, 8, 'fusion.5'),
  -- the payload search looks at exactly the next 8 ops.
  (4, 0, 'x', 0, 1, 1, 0, NULL),
  (4, 1, 'iota', 5, 1, 1, 4, 'iota'),
  (4, 2, 'constant', 6, 1, 1, 0, NULL),
  (4, 3, 'constant', 7, 1, 1, 0, NULL),
  (4, 4, 'constant', 8, 1, 1, 0, NULL),
  (4, 5, 'constant', 9, 1, 1, 0, NULL),
  (4, 6, 'constant', 10, 1, 1, 0, NULL),
  (4, 7, 'constant', 11, 1, 1, 0, NULL),
  (4, 8, 'constant', 12, 1, 1, 0, NULL),
  (4, 9, 'constant', 13, 1, 1, 0, NULL),
  (4, 10, 'dot', 14, 1, 1, 0, NULL);
SELECT CASE WHEN self IS want_self AND gap IS want_gap AND payload IS want_payload THEN 'ok   ' ELSE 'FAIL ' END ||
       track || '/' || id || ' ' || name || ': self ' || quote(self) || ', gap ' || quote(gap) || ', payload ' ||
       quote(payload) ||
       CASE WHEN self IS want_self AND gap IS want_gap AND payload IS want_payload THEN ''
            ELSE ' (expected ' || quote(want_self) || ', ' || quote(want_gap) || ', ' || quote(want_payload) || ')' END
  FROM (SELECT *, xplane_self_ps(ts, dur) OVER w AS self, xplane_gap_ps(ts, dur) OVER w AS gap,
               xplane_gap_payload(ts, dur, name) OVER w AS payload
          FROM ev
        WINDOW w AS (PARTITION BY track ORDER BY ts, id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING))
 ORDER BY track, id;
-- Any ORDER BY inside the window gives the same values (the function orders rows itself).
SELECT 'reversed order, same self', sum(s) FROM (
  SELECT xplane_self_ps(ts, dur) OVER (PARTITION BY track ORDER BY ts DESC, id
         ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS s FROM ev WHERE track = 1);
.bail off
-- The default frame (RANGE ... CURRENT ROW) hands over rows one by one: the
-- second row's value finds the frame has not moved past the first, and errs.
SELECT count(*) FROM (SELECT xplane_self_ps(ts, dur) OVER (PARTITION BY track ORDER BY ts) FROM ev WHERE track = 1);
SELECT xplane_gap_ps(ts, dur) FROM ev;
