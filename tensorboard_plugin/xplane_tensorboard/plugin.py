"""plugin.py: the xplane tab of TensorBoard (plugin name "xplane").

Active when the logdir holds at least one profile (logdir.py's layout). Routes,
under /data/plugin/xplane/:

    index.js                    the front end (an ES module, frontend_metadata)
    runs                        JSON {"runs": [{"run", "hosts": [{"host", "bytes"}]}], "truncated"}
    report?run=R&host=H         the HTML report (`xplane report --html`: pictures);
                                &format=markdown: the markdown report (`xplane report`)
    findings?run=R&host=H       JSON {"run", "host", "columns", "rows"}: xplane_findings
    compare?a=R1&b=R2           JSON (`xplane compare --format json`); &format=markdown
                                the markdown comparison; &host_a= &host_b= choose hosts
    sql?run=R&host=H&q=SQL      JSON {"columns", "rows", "truncated", "elapsed_ms"}: one
                                read-only statement (sql_worker.py); &limit=N rows
                                (default 500, at most 5000; and at most 16 MB of
                                values: "truncated" says either cut the answer)
    questions                   JSON: the console's canned questions (label, SQL)

Errors are JSON {"error": "..."} with a 4xx status (400 bad request, 403 refused,
404 unknown run or host, 409 the file changed while it was being opened) or 5xx (500 analysis failed, 503 command not found,
504 time limit, 507 memory limit). Runs and hosts are names from the `runs`
listing; a name that is not in it is a 404, never a path. HOST may be empty
(the run's first host). Requests reach only GET handlers; the plugin writes
no file. Limits per request: native.py.
"""
import json
import os

from werkzeug import wrappers

from tensorboard.backend import http_util
from tensorboard.plugins import base_plugin

from . import logdir as logdir_mod
from . import native

PLUGIN_NAME = "xplane"
STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
MAX_QUERY = 20000
DEFAULT_LIMIT, MAX_LIMIT = 500, 5000

# The console's canned questions: each one statement over the extension's tables
# (schema/TABLES.md), picoseconds converted to ms at the edge.
QUESTIONS = [
    ("Device time (ms)",
     "SELECT plane_name, device_kind, round(wall_ps/1e9, 3) AS wall_ms, round(busy_ps/1e9, 3) AS busy_ms,\n"
     "       round(idle_ps/1e9, 3) AS idle_ms, round(100.0*duty_cycle, 2) AS duty_cycle_pct,\n"
     "       round(compute_ps/1e9, 3) AS compute_ms, round(communication_ps/1e9, 3) AS communication_ms,\n"
     "       round(transfer_ps/1e9, 3) AS transfer_ms, round(other_ps/1e9, 3) AS other_ms\n"
     "  FROM xplane_device_time ORDER BY plane_index"),
    ("Top device ops by self time",
     "SELECT name, xplane_op_family(line_name, name) AS family, count(*) AS calls,\n"
     "       round(sum(self_ps)/1e9, 3) AS self_ms, round(sum(dur_ps)/1e9, 3) AS total_ms\n"
     "  FROM xplane_ops GROUP BY name ORDER BY sum(self_ps) DESC LIMIT 20"),
    ("Findings",
     "SELECT severity, id, plane_name, subject, count, of_total, round(time_ps/1e9, 3) AS time_ms,\n"
     "       round(100.0*share, 2) AS share_pct, suggestion FROM xplane_findings"),
    ("Steps (ms)",
     "SELECT step, source, plane_name, round(dur_ps/1e9, 3) AS step_ms, n_ops,\n"
     "       round(compute_ps/1e9, 3) AS compute_ms, round(idle_ps/1e9, 3) AS idle_ms\n"
     "  FROM xplane_steps ORDER BY plane_index, step LIMIT 200"),
    ("Regions (named scopes)",
     "SELECT scope_path, depth, count, round(inclusive_ps/1e9, 3) AS inclusive_ms,\n"
     "       round(exclusive_ps/1e9, 3) AS exclusive_ms FROM xplane_scopes\n"
     " ORDER BY inclusive_ps DESC LIMIT 50"),
    ("Largest gaps before an op",
     "SELECT name, plane_name, round(gap_before_ps/1e9, 3) AS gap_ms, gap_payload_name\n"
     "  FROM xplane_ops WHERE gap_before_ps > 0 ORDER BY gap_before_ps DESC LIMIT 20"),
]


class XplanePlugin(base_plugin.TBPlugin):
    plugin_name = PLUGIN_NAME

    def __init__(self, context):
        self._logdir = context.logdir or ""
        self._listing = logdir_mod.Listing(self._logdir)

    # ---- TBPlugin --------------------------------------------------------
    def get_plugin_apps(self):
        return {
            "/index.js": self._serve_index,
            "/runs": self._serve_runs,
            "/report": self._serve_report,
            "/findings": self._serve_findings,
            "/compare": self._serve_compare,
            "/sql": self._serve_sql,
            "/questions": self._serve_questions,
        }

    def is_active(self):
        if not self._logdir or not os.path.isdir(self._logdir):
            return False
        profiles, _ = self._listing.get()
        return bool(profiles)

    def frontend_metadata(self):
        return base_plugin.FrontendMetadata(es_module_path="/index.js", tab_name="xplane")

    # ---- helpers ---------------------------------------------------------
    def _profiles(self, fresh=False):
        if not self._logdir or not os.path.isdir(self._logdir):
            raise native.NativeError(404, "no logdir")
        return self._listing.get(fresh)

    def _pick(self, request, held, run_key="run", host_key="host"):
        """The listed profile the request names, opened and checked
        (logdir.open_listed) and appended to HELD, which _guard closes. A name
        missing from a kept listing, or a file that is no longer the listed
        one, is looked for once more in a fresh listing."""
        run, host = request.args.get(run_key, ""), request.args.get(host_key, "")
        if not run:
            raise native.NativeError(400, "%s: give a run from the runs listing" % run_key)
        for fresh in (False, True):
            profiles, _ = self._profiles(fresh)
            p = logdir_mod.find(profiles, run, host)
            if p is None:
                if fresh:
                    raise native.NativeError(404, "%s=%r%s is not in the runs listing" % (run_key, run, (" with %s=%r" % (host_key, host)) if host else ""))
                continue
            try:
                opened = logdir_mod.open_listed(p)
            except logdir_mod.Changed as e:
                if fresh:
                    raise native.NativeError(409, "%s=%r: the file changed while it was being opened; try again (%s)" % (run_key, run, e))
                continue
            held.append(opened)
            return opened

    @staticmethod
    def _json(request, obj, code=200):
        return http_util.Respond(request, json.dumps(obj, allow_nan=False), "application/json", code=code)

    def _guard(self, request, fn):
        """FN(held) answers the request; the profiles it opened into HELD are
        closed when it returns."""
        if request.method not in ("GET", "HEAD"):
            return self._json(request, {"error": "only GET is served"}, 405)
        held = []
        try:
            return fn(held)
        except native.NativeError as e:
            return self._json(request, {"error": e.message}, e.status)
        finally:
            for o in held:
                o.close()

    # ---- routes ----------------------------------------------------------
    @wrappers.Request.application
    def _serve_index(self, request):
        with open(os.path.join(STATIC, "index.js"), "rb") as f:
            body = f.read()
        return http_util.Respond(request, body, "application/javascript")

    @wrappers.Request.application
    def _serve_runs(self, request):
        def go(held):
            profiles, truncated = self._profiles()
            return self._json(request, logdir_mod.runs_json(profiles, truncated))
        return self._guard(request, go)

    @wrappers.Request.application
    def _serve_questions(self, request):
        return self._json(request, {"questions": [{"label": l, "sql": q} for l, q in QUESTIONS]})

    @wrappers.Request.application
    def _serve_report(self, request):
        def go(held):
            p = self._pick(request, held)
            fmt = request.args.get("format", "html")
            if fmt == "html":
                return http_util.Respond(request, native.command("report_html", [p]), "text/html")
            if fmt == "markdown":
                return http_util.Respond(request, native.command("report", [p]), "text/markdown; charset=utf-8")
            raise native.NativeError(400, "format: html (default) or markdown, not %r" % fmt)
        return self._guard(request, go)

    @wrappers.Request.application
    def _serve_findings(self, request):
        def go(held):
            p = self._pick(request, held)
            ans = native.sql(p, "SELECT * FROM xplane_findings", MAX_LIMIT, cacheable=True)
            return self._json(request, {"run": p.run, "host": p.host, "columns": ans["columns"], "rows": ans["rows"]})
        return self._guard(request, go)

    @wrappers.Request.application
    def _serve_compare(self, request):
        def go(held):
            a = self._pick(request, held, "a", "host_a")
            b = self._pick(request, held, "b", "host_b")
            fmt = request.args.get("format", "json")
            if fmt == "json":
                return http_util.Respond(request, native.command("compare", [a, b]), "application/json")
            if fmt == "markdown":
                return http_util.Respond(request, native.command("compare_md", [a, b]), "text/markdown; charset=utf-8")
            raise native.NativeError(400, "format: json (default) or markdown, not %r" % fmt)
        return self._guard(request, go)

    @wrappers.Request.application
    def _serve_sql(self, request):
        def go(held):
            q = request.args.get("q", "")
            if not q.strip():
                raise native.NativeError(400, "q: give one SQL statement")
            if len(q) > MAX_QUERY:
                raise native.NativeError(400, "q: longer than %d characters" % MAX_QUERY)
            try:
                limit = int(request.args.get("limit", DEFAULT_LIMIT))
            except ValueError:
                raise native.NativeError(400, "limit: a whole number of rows")
            if not 1 <= limit <= MAX_LIMIT:
                raise native.NativeError(400, "limit: from 1 to %d rows" % MAX_LIMIT)
            p = self._pick(request, held)
            ans = native.sql(p, q, limit)
            ans.update({"run": p.run, "host": p.host})
            return self._json(request, ans)
        return self._guard(request, go)
