"""sql_worker.py: one read-only SQL statement over one profile, in its own process.

    echo '{"extension": E, "profile": P, "query": Q, "max_rows": N, "seconds": S}' |
        python -I sql_worker.py      # -> {"columns": [...], "rows": [[...]], "truncated": b, "elapsed_ms": t}
                                     #    or {"error": "...", "status": 400}

native.py starts it with memory and CPU limits and kills it at its timeout;
this file adds what only the connection can do:
- the extension is loaded by the C API and loading is switched off again, so
  the SQL function load_extension() is refused;
- SELECT xplane_use_only(P): the extension's tables read P, and only P
  (a path argument naming another file is an error), write no file and read
  no HLO file by name;
- an authorizer that allows reading (SELECT, reads, functions, recursive
  CTEs) and refuses everything else: ATTACH, DETACH, PRAGMA, writes, schema
  changes, transactions, and the functions that change connection state or
  files (load_extension, xplane_use*, xplane_to_perfetto, xplane_threads,
  xplane_cache_budget, xplane_skip_unreadable, xplane_progress);
- one statement (Python's sqlite3 refuses more), whose first word is SELECT,
  WITH, VALUES or EXPLAIN;
- temp_store = MEMORY, so sorts and temporary tables write no file;
- a time limit: the progress handler stops the statement once `seconds` have
  passed and a timer interrupts it (sqlite3_interrupt, which the extension's
  decode and analysis loops poll);
- a row limit (`max_rows`; one more row says it was truncated), a limit on
  the length of any value (SQLITE_LIMIT_LENGTH, 1 MB) and on the answer's
  size (MAX_ANSWER_BYTES, 16 MB of values: rows past it are left out and the
  answer says truncated), so no answer holds more than about 16 MB whatever
  the row limit.
Values: integers and reals as JSON numbers (non-finite reals as null), text
as strings, blobs as {"blob_bytes": n}.
"""
import json
import math
import re
import sqlite3
import sys
import threading
import time

REFUSED_FUNCTIONS = {
    "load_extension", "xplane_use", "xplane_use_only", "xplane_to_perfetto", "xplane_threads",
    "xplane_cache_budget", "xplane_skip_unreadable", "xplane_progress", "readfile", "writefile", "edit",
    "fts3_tokenizer",
}
ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
ACTION_NAMES = {getattr(sqlite3, "SQLITE_" + n): n for n in (
    "CREATE_INDEX", "CREATE_TABLE", "CREATE_TEMP_INDEX", "CREATE_TEMP_TABLE", "CREATE_TEMP_TRIGGER",
    "CREATE_TEMP_VIEW", "CREATE_TRIGGER", "CREATE_VIEW", "DELETE", "DROP_INDEX", "DROP_TABLE",
    "DROP_TEMP_INDEX", "DROP_TEMP_TABLE", "DROP_TEMP_TRIGGER", "DROP_TEMP_VIEW", "DROP_TRIGGER", "DROP_VIEW",
    "INSERT", "PRAGMA", "READ", "SELECT", "TRANSACTION", "UPDATE", "ATTACH", "DETACH", "ALTER_TABLE",
    "REINDEX", "ANALYZE", "CREATE_VTABLE", "DROP_VTABLE", "FUNCTION", "SAVEPOINT", "RECURSIVE")
    if hasattr(sqlite3, "SQLITE_" + n)}  # the authorizer's action codes (some share values with result codes)
FIRST_WORD = re.compile(r"^\s*(?:(?:--[^\n]*\n)|(?:/\*.*?\*/)|\s)*([A-Za-z]+)", re.S)
MAX_LENGTH = 1000000
MAX_ANSWER_BYTES = 16 * 1000000


def fail(message, status=400):
    json.dump({"error": message, "status": status}, sys.stdout)
    sys.exit(0)


def value(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, bytes):
        return {"blob_bytes": len(v)}
    return v


def main():
    try:
        req = json.load(sys.stdin)
        ext, path, query = req["extension"], req["profile"], req["query"]
        max_rows, seconds = int(req["max_rows"]), float(req["seconds"])
    except (ValueError, KeyError, TypeError) as e:
        fail("bad worker request: %s" % e, 500)
    if not isinstance(query, str) or not query.strip():
        fail("q: give one SQL statement")
    m = FIRST_WORD.match(query)
    if not m or m.group(1).upper() not in ("SELECT", "WITH", "VALUES", "EXPLAIN"):
        fail("q: only a read-only statement is answered (SELECT, WITH, VALUES or EXPLAIN)")

    db = sqlite3.connect(":memory:", isolation_level=None)
    try:
        db.enable_load_extension(True)
        db.load_extension(ext)
    except sqlite3.Error as e:
        fail("cannot load the xplane extension %s: %s" % (ext, e), 503)
    finally:
        db.enable_load_extension(False)
    try:
        db.execute("SELECT xplane_use_only(?)", (path,)).fetchall()
    except sqlite3.Error as e:
        fail("cannot open the profile: %s" % e, 500)
    try:  # connect every table of the extension now: a first use writes the schema, which the authorizer refuses
        for (name,) in db.execute("SELECT name FROM pragma_module_list WHERE name LIKE 'xplane%'").fetchall():
            db.execute('EXPLAIN SELECT * FROM "%s"' % name.replace('"', '""')).fetchall()
    except sqlite3.Error as e:
        fail("cannot prepare the extension's tables: %s" % e, 500)
    db.execute("PRAGMA temp_store = MEMORY")  # sorts and temporary tables never write a file
    db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_LENGTH)
    db.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)

    refused = []

    def authorize(action, arg1, arg2, dbname, source):
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in REFUSED_FUNCTIONS:
            refused.append("the function %s()" % arg2)
            return sqlite3.SQLITE_DENY
        if action in ALLOWED_ACTIONS:
            return sqlite3.SQLITE_OK
        refused.append(ACTION_NAMES.get(action, "action %d" % action) + (" " + arg1 if arg1 else ""))
        return sqlite3.SQLITE_DENY

    db.set_authorizer(authorize)
    deadline = time.monotonic() + seconds
    db.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10000)
    timer = threading.Timer(seconds, db.interrupt)
    timer.daemon = True
    timer.start()
    t0 = time.monotonic()
    try:
        cur = db.execute(query)
        columns = [d[0] for d in cur.description or []]
        rows, size, truncated = [], 0, False
        for r in cur:  # a row past either limit is read, not answered: it says the answer was cut
            row = [value(v) for v in r]
            size += sum(len(v) if isinstance(v, str) else 8 for v in row)
            if size > MAX_ANSWER_BYTES or len(rows) == max_rows:
                truncated = True
                break
            rows.append(row)
    except sqlite3.Warning as e:  # "You can only execute one statement at a time."
        fail("q: %s" % e)
    except (sqlite3.Error, MemoryError) as e:
        msg = str(e)
        if refused:
            fail("q: not allowed here (the console is read-only): %s" % refused[0], 403)
        if msg in ("out of memory", "database or disk is full") or isinstance(e, MemoryError):
            fail("q: stopped: it went over the memory limit", 507)
        if time.monotonic() > deadline or msg == "interrupted":
            fail("q: stopped after %g s (the time limit)" % seconds, 504)
        fail("q: %s" % msg)
    finally:
        timer.cancel()
    json.dump({"columns": columns, "rows": rows, "truncated": truncated,
               "elapsed_ms": round((time.monotonic() - t0) * 1000, 1)}, sys.stdout, allow_nan=False)


if __name__ == "__main__":
    main()
