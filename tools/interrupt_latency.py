#!/usr/bin/python3
"""tools/interrupt_latency.py: how soon sqlite3_interrupt stops a long query of
the extension (tools/bench.sh, BENCH_PARTS=interrupt; issue 41's target:
below 100 ms).

    /usr/bin/python3 tools/interrupt_latency.py EXT PROFILE [RUNS]

For each query below, RUNS times (default 5) on a fresh connection (a cold
query: map, decode, analysis): Connection.interrupt() from a timer thread at
a delay spread over the query's own cold time (10 %, 30 %, 50 %, 70 %, 90 %
of it, measured first), and the latency is the time from that call to the
query's exception. Prints per query: its cold time, the latency's median and
largest (ms), and how many runs ended by the interrupt (a run that finished
first is counted apart). Debian's python3: its sqlite3 module loads
extensions.
"""
import sqlite3
import statistics
import sys
import threading
import time

QUERIES = [
    ("scan", "SELECT count(*), sum(dur_ps) FROM xplane_events(?)"),
    ("ops", "SELECT count(*), sum(self_ps) FROM xplane_ops(?)"),
    ("steps", "SELECT count(*) FROM xplane_steps(?)"),
    ("device_time", "SELECT count(*) FROM xplane_device_time(?)"),
    ("findings", "SELECT count(*) FROM xplane_findings(?)"),
]


def connect(ext):
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.enable_load_extension(True)
    db.load_extension(ext)
    return db


def main():
    ext, profile = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    print("%-12s %9s | %10s %10s | %s" % ("query", "cold_s", "median_ms", "max_ms", "interrupted"))
    for name, sql in QUERIES:
        db = connect(ext)
        t0 = time.monotonic()
        db.execute(sql, [profile]).fetchall()
        cold = time.monotonic() - t0
        db.close()
        lat, done = [], 0
        for k in range(runs):
            db = connect(ext)
            stop = [None]

            def fire(db=db, stop=stop):
                stop[0] = time.monotonic()
                db.interrupt()
            delay = cold * (0.1 + 0.8 * k / max(runs - 1, 1))
            timer = threading.Timer(delay, fire)
            timer.start()
            try:
                db.execute(sql, [profile]).fetchall()
                done += 1
            except sqlite3.OperationalError:
                lat.append(time.monotonic() - stop[0])
            timer.cancel()
            timer.join()
            db.close()
        if lat:
            print("%-12s %9.3f | %10.1f %10.1f | %d of %d (%d finished first)"
                  % (name, cold, 1000 * statistics.median(lat), 1000 * max(lat), len(lat), runs, done))
        else:
            print("%-12s %9.3f | %10s %10s | 0 of %d" % (name, cold, "-", "-", runs))


if __name__ == "__main__":
    main()
