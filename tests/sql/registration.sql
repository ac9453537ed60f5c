-- registration.sql: exactly what the extension adds to a connection, and
-- that its tables cannot be reached from a database schema.
--
-- The module and function lists are taken before and after `.load`, in the
-- same connection, and compared (set difference): whoever adds a function or
-- a table updates registration.expected. (SQLite registers each pragma_*
-- table as a module on first use: read the functions before the modules.)
CREATE TEMP TABLE functions_before AS SELECT name, narg, type, flags FROM pragma_function_list;
CREATE TEMP TABLE modules_before AS SELECT name FROM pragma_module_list;
.load @EXT@

SELECT name FROM pragma_module_list EXCEPT SELECT name FROM modules_before ORDER BY name;
-- type: s scalar, w window. flags: 524288 = SQLITE_DIRECTONLY (the functions
-- that touch the connection's cache), 2099200 = SQLITE_INNOCUOUS |
-- SQLITE_DETERMINISTIC (pure functions).
SELECT name, narg, type, flags FROM pragma_function_list
EXCEPT SELECT name, narg, type, flags FROM functions_before ORDER BY name, narg;
-- Nothing that existed before was replaced.
SELECT count(*) AS replaced FROM functions_before b
 WHERE NOT EXISTS (SELECT 1 FROM pragma_function_list f
                    WHERE f.name = b.name AND f.narg = b.narg AND f.type = b.type
                      AND f.flags = b.flags);

-- Direct use works, also through a TEMP view (the temp schema is the
-- connection's own, not a database file's).
CREATE TEMP VIEW tv AS SELECT count(*) AS n FROM xplane_events('@TINY@');
SELECT n FROM tv;
SELECT xplane_version() GLOB '[0-9]*.[0-9]*.[0-9]*' AS version_ok;

-- The tables are SQLITE_VTAB_DIRECTONLY: SQLite refuses them inside a view or
-- trigger of a database schema, whatever trusted_schema says (for a default
-- "normal risk" table only trusted_schema=OFF would refuse). Creating the
-- view is allowed; using it is not.
ATTACH '@TMP@/schema.db' AS disk;
CREATE VIEW disk.v AS SELECT count(*) AS n FROM xplane_events('@TINY@');
CREATE TABLE disk.t(x);
CREATE TABLE disk.log(n);
CREATE TRIGGER disk.t_insert AFTER INSERT ON t BEGIN
  INSERT INTO log SELECT count(*) FROM xplane_planes('@TINY@');
END;
CREATE VIEW disk.fv AS SELECT xplane_cache_stats() AS c;
DETACH disk;
.bail off
-- A new connection that opens the database (and loads the extension).
.open @TMP@/schema.db
.load @EXT@
PRAGMA trusted_schema = OFF;
SELECT n FROM v;
PRAGMA trusted_schema = ON;
SELECT n FROM v;
INSERT INTO t VALUES (1);
SELECT count(*) AS logged FROM log;
SELECT c FROM fv;
-- The same query typed directly is fine.
SELECT count(*) AS n FROM xplane_events('@TINY@');
