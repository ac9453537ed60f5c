"""tests/tensorboard_test.py: the xplane TensorBoard plugin in real TensorBoard.

Run by tests/test_tensorboard.sh (which says what it needs) with the project
venv's Python:

    python tests/tensorboard_test.py SRC BUILD DATA EXT SQLITE3 WORKDIR

It installs tensorboard_plugin/ into WORKDIR/site (pip --target: the
package as a user gets it, with its bundled command and extension), builds a
logdir in WORKDIR from copies of ../shared/data, starts TensorBoard 2.21 on
127.0.0.1 on a free port with that logdir beside xprof's profile plugin, and
checks every route. Expected values come from elsewhere than the plugin: the
listing from how the logdir was built here, the report and comparison from
the `xplane` command run directly on the same files, findings and SQL
answers from the sqlite3 shell with the extension, device counts from the
profiles' provenance (../shared/data/README.md: 4 TPU v6e cores). Security:
traversal (`..`, absolute paths, symbolic links out of the logdir, a linked
folder), ATTACH, writes, PRAGMA, load_extension, path arguments, a long
query (time limit), a memory-hungry one (memory limit), POST, two browser
tabs' worth of requests at once, and that nothing was written (the logdir
and TensorBoard's TMPDIR are unchanged). Then headless Chromium
(tests/tensorboard_browser.mjs) drives the tab; its screenshot is kept in
WORKDIR (and copied to docs/ with XPLANE_TB_SCREENSHOT=PATH).
"""
import concurrent.futures
import gzip
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

SRC, BUILD, DATA, EXT, SQLITE3, WORK = sys.argv[1:7]
PY = sys.executable
failures = 0
passes = 0


def check(name, want, got):
    global failures, passes
    if want == got:
        passes += 1
        print("ok   %s" % name)
    else:
        failures += 1
        print("FAIL %s\n  want: %r\n  got:  %r" % (name, want if len(repr(want)) < 2000 else repr(want)[:2000],
                                                    got if len(repr(got)) < 2000 else repr(got)[:2000]))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get(path, method="GET"):
    """(status, content type, body bytes) of a request to the running TensorBoard."""
    req = urllib.request.Request(BASE + path, method=method)
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            body = r.read()
            if r.headers.get("Content-Encoding") == "gzip":  # xprof's routes gzip unasked
                body = gzip.decompress(body)
            return r.status, r.headers.get("Content-Type", ""), body
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


def get_json(path):
    status, ctype, body = get(path)
    try:
        return status, json.loads(body)
    except ValueError:
        return status, {"not json": body[:200].decode("utf-8", "replace")}


def q(**kw):
    return urllib.parse.urlencode(kw)


def shell_json(sql):
    out = subprocess.run([SQLITE3, "-bail", "-json", "-cmd", ".load " + EXT, ":memory:", sql],
                         capture_output=True, check=True).stdout
    return json.loads(out or b"[]")


def snapshot(root):
    """Every file and folder under ROOT with its size and mtime."""
    seen = {}
    for top, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(top, n)
            st = os.lstat(p)
            seen[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns)
    return seen


# ---- the package, as pip installs it --------------------------------------
site = os.path.join(WORK, "site")
pip = subprocess.run([PY, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", site,
                      os.path.join(SRC, "tensorboard_plugin")], capture_output=True, text=True,
                     env=dict(os.environ, XPLANE_BUILD_DIR=BUILD))
check("pip installs tensorboard_plugin", 0, pip.returncode)
if pip.returncode:
    print(pip.stdout[-2000:], pip.stderr[-2000:])
    sys.exit(1)
native = os.path.join(site, "xplane_tensorboard", "_native")
check("the package carries the command, the extension and the queries",
      [True, True, True],
      [os.access(os.path.join(native, "bin", "xplane"), os.X_OK),
       os.path.isfile(os.path.join(native, "lib", "xplane", "xplane.so")),
       os.path.isfile(os.path.join(native, "share", "xplane", "queries", "summary.sql"))])
eps = subprocess.run([PY, "-c", "import importlib.metadata as m; "
                      "print([(e.name, e.value) for e in m.entry_points(group='tensorboard_plugins') if e.name == 'xplane'])"],
                     capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=site)).stdout.strip()
check("entry point tensorboard_plugins: xplane", "[('xplane', 'xplane_tensorboard.plugin:XplanePlugin')]", eps)
race_env = {k: v for k, v in os.environ.items() if k not in ("XPLANE_CLI", "XPLANE_EXTENSION")}
if os.environ.get("LD_PRELOAD"):  # an ASan build (test_tensorboard.sh preloads its runtime) reserves terabytes of address space
    race_env["XPLANE_TB_MEMORY_MB"] = "0"
race = subprocess.run([PY, os.path.join(SRC, "tests", "tensorboard_race.py"), site, DATA, WORK], capture_output=True, text=True,
                      env=race_env)
print(race.stdout.rstrip())
check("tensorboard_race.py: the file listed is the file read (a folder swapped for a link, a file replaced)",
      (0, ""), (race.returncode, race.stderr[-2000:]))

# ---- a logdir from copies of the real profiles -----------------------------
logdir = os.path.join(WORK, "logdir")
outside = os.path.join(WORK, "outside")
os.makedirs(os.path.join(outside, "plugins", "profile", "s"))
shutil.copy(os.path.join(DATA, "gpu_mw.xplane.pb"), os.path.join(outside, "plugins", "profile", "s", "secret.xplane.pb"))
layout = {
    ("tpu", "2024_01_01_00_00_00", "t1v-n-0"): "xprof_tpu_inference_2.xplane.pb",
    ("gpu", "2024_01_02_00_00_00", "host0"): "gpu_mw.xplane.pb",
    ("amd", "s1", "gemm"): "tracelens_jax08_gemm.xplane.pb",
    ("amd", "s1", "attention"): "tracelens_jax08_attention.xplane.pb",
}
HOSTILE = '<img src=x onerror="alert(1)">'  # a host name that is HTML: it must stay text in the tab
layout[("hostile", "s", HOSTILE)] = "tracelens_jax08_elementwise.xplane.pb"
files = {}
for (run, session, host), name in layout.items():
    d = os.path.join(logdir, run, "plugins", "profile", session)
    os.makedirs(d, exist_ok=True)
    files[(run + "/" + session, host)] = os.path.join(d, host + ".xplane.pb")
    shutil.copy(os.path.join(DATA, name), files[(run + "/" + session, host)])
# links out of the logdir: a file link, a folder link, and a link to a non-profile
amd = os.path.join(logdir, "amd", "plugins", "profile", "s1")
os.symlink(os.path.join(outside, "plugins", "profile", "s", "secret.xplane.pb"), os.path.join(amd, "escape.xplane.pb"))
os.symlink(outside, os.path.join(logdir, "linked"))
os.symlink("/etc/passwd", os.path.join(amd, "passwd.xplane.pb"))
tpu_file = files[("tpu/2024_01_01_00_00_00", "t1v-n-0")]
gpu_file = files[("gpu/2024_01_02_00_00_00", "host0")]

tb_tmp = os.path.join(WORK, "tb_tmp")
os.makedirs(tb_tmp)
before = snapshot(logdir)

# ---- TensorBoard ------------------------------------------------------------
port = free_port()
BASE = "http://127.0.0.1:%d" % port
SANITIZED = bool(os.environ.get("LD_PRELOAD"))  # test_tensorboard.sh preloads the ASan runtime for an ASan build
# every socket address TensorBoard's process (the plugin inside it) connects, sends or binds
# to, and every name it resolves, logged by a Python audit hook (sitecustomize.py on its path)
audit_dir = os.path.join(WORK, "audit")
audit_log = os.path.join(WORK, "audit.log")
os.makedirs(audit_dir, exist_ok=True)
with open(os.path.join(audit_dir, "sitecustomize.py"), "w") as f:
    f.write("""import json, os, sys
_log = os.environ.get("XPLANE_TB_AUDIT_LOG")
_events = {"socket.connect", "socket.sendto", "socket.sendmsg", "socket.bind", "socket.getaddrinfo"}
def _hook(event, args):
    if _log and event in _events:
        a = args[1] if event != "socket.getaddrinfo" else args[0]
        fd = os.open(_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.write(fd, (json.dumps([event, repr(a)]) + "\\n").encode())
        os.close(fd)
if _log:
    sys.addaudithook(_hook)
""")
env = dict(os.environ, PYTHONPATH=site + os.pathsep + audit_dir, XPLANE_TB_AUDIT_LOG=audit_log,
           TMPDIR=tb_tmp, XPLANE_TB_TIMEOUT_S="20",
           XPLANE_TB_MEMORY_MB="0" if SANITIZED else "2048",  # ASan reserves terabytes of address space
           XPLANE_FILE_OUTPUT="replace")  # the plugin must drop it: nothing it runs may write
env.pop("XPLANE_CLI", None)
env.pop("XPLANE_EXTENSION", None)
tb_log = open(os.path.join(WORK, "tensorboard.log"), "wb")
tb = subprocess.Popen([PY, "-m", "tensorboard.main", "--logdir", logdir, "--host", "127.0.0.1", "--port", str(port),
                       "--load_fast=false"], env=env, stdout=tb_log, stderr=subprocess.STDOUT, cwd=WORK)
try:
    for _ in range(240):
        try:
            if get("/data/plugins_listing")[0] == 200:
                break
        except (urllib.error.URLError, ConnectionError):
            pass
        if tb.poll() is not None:
            break
        time.sleep(0.25)
    status, listing = get_json("/data/plugins_listing")
    check("TensorBoard serves its plugin listing", 200, status)
    check("both tabs are active: xplane and xprof's profile",
          {"xplane": True, "profile": True},
          {k: listing.get(k, {}).get("enabled") for k in ("xplane", "profile")})
    check("the xplane tab loads as an ES module in an iframe",
          {"type": "IFRAME", "module_path": "/data/plugin/xplane/index.js"},
          {k: listing.get("xplane", {}).get("loading_mechanism", {}).get(k) for k in ("type", "module_path")})
    status, ctype, body = get("/data/plugin/xplane/index.js")
    check("index.js is served as JavaScript with render()", (200, True, True),
          (status, ctype.startswith("application/javascript"), b"export async function render()" in body))

    # -- runs: what this file put in the logdir, nothing from outside it
    status, runs = get_json("/data/plugin/xplane/runs")
    check("runs: exactly the profiles under the logdir (links out of it left out)",
          (200, {"runs": [{"run": "amd/s1", "hosts": [{"host": "attention", "bytes": os.path.getsize(files[("amd/s1", "attention")])},
                                                      {"host": "gemm", "bytes": os.path.getsize(files[("amd/s1", "gemm")])}]},
                          {"run": "gpu/2024_01_02_00_00_00", "hosts": [{"host": "host0", "bytes": os.path.getsize(gpu_file)}]},
                          {"run": "hostile/s", "hosts": [{"host": HOSTILE, "bytes": os.path.getsize(files[("hostile/s", HOSTILE)])}]},
                          {"run": "tpu/2024_01_01_00_00_00", "hosts": [{"host": "t1v-n-0", "bytes": os.path.getsize(tpu_file)}]}],
                 "truncated": False}),
          (status, runs))

    status, ctype, body = get("/data/plugin/profile/runs")
    check("xprof's profile tab lists the same runs (its own /runs route)",
          (200, sorted(r["run"] for r in runs.get("runs", []))), (status, sorted(json.loads(body))))

    # -- report: the command's own output on the same file
    direct_md = subprocess.run([os.path.join(BUILD, "cli", "xplane"), "report", "-q", tpu_file], capture_output=True).stdout
    direct_html = subprocess.run([os.path.join(BUILD, "cli", "xplane"), "report", "--html", "--format", "reference", "-q", tpu_file],
                                 capture_output=True).stdout
    status, ctype, body = get("/data/plugin/xplane/report?" + q(run="tpu/2024_01_01_00_00_00", format="markdown"))
    gen = lambda b: b"\n".join(l for l in b.split(b"\n") if not l.startswith(b"- Generated At"))
    check("report markdown = `xplane report` on the file (but its generation time)", (200, gen(direct_md)), (status, gen(body)))
    check("the markdown report names the 4 TPU v6e cores", True, b"- Devices: `4 x TPU v6 Lite`" in body)
    status, ctype, body = get("/data/plugin/xplane/report?" + q(run="tpu/2024_01_01_00_00_00", host="t1v-n-0"))
    fdpath = lambda b: re.sub(rb"/dev/fd/[0-9]+", b"/dev/fd/N", b)  # the plugin reads a descriptor it passed
    check("report HTML = `xplane report --html --format reference` (the pictures) on the file (but the path read), "
          "served as HTML under TensorBoard's CSP",
          (200, "text/html; charset=utf-8", len(direct_html.replace(tpu_file.encode(), b"/dev/fd/N")), True),
          (status, ctype, len(fdpath(body)), body.startswith(b"<!DOCTYPE html>")))

    # -- findings: xplane_findings of the same file in the sqlite3 shell
    want = shell_json("SELECT * FROM xplane_findings('%s')" % gpu_file)
    status, f = get_json("/data/plugin/xplane/findings?" + q(run="gpu/2024_01_02_00_00_00"))
    got = [dict(zip(f.get("columns", []), r)) for r in f.get("rows", [])]
    nofile = lambda rows: [{k: v for k, v in r.items() if k != "file"} for r in rows]
    check("findings = xplane_findings in the sqlite3 shell (%d rows; but the file read, a descriptor)" % len(want),
          (200, nofile(want), [True] * len(want)), (status, nofile(got), [r.get("file", "").startswith("/dev/fd/") for r in got]))

    # -- compare: `xplane compare` on the same two files
    direct = subprocess.run([os.path.join(BUILD, "cli", "xplane"), "compare", "-q", "--format", "json", gpu_file,
                             files[("amd/s1", "gemm")]], capture_output=True).stdout
    status, ctype, body = get("/data/plugin/xplane/compare?" + q(a="gpu/2024_01_02_00_00_00", b="amd/s1", host_b="gemm"))
    strip = lambda d: {k: v for k, v in d.items() if k not in ("generated_at", "before_source", "after_source")}
    check("compare JSON = `xplane compare --format json` (but the paths read: the plugin's are descriptors)",
          (200, strip(json.loads(direct))), (status, strip(json.loads(body))))
    got = json.loads(body) if status == 200 else {}
    check("compare JSON: the plugin's sources are the descriptors it passed, named by the files",
          (True, True, "2024_01_02_00_00_00/host0", "s1/gemm"),
          (got.get("before_source", "").startswith("/dev/fd/"), got.get("after_source", "").startswith("/dev/fd/"),
           got.get("before_name"), got.get("after_name")))
    status, ctype, body = get("/data/plugin/xplane/compare?" + q(a="gpu/2024_01_02_00_00_00", b="amd/s1", format="markdown"))
    check("compare markdown is the comparison of the two files (the run's first host: attention)", (200, True),
          (status, body.startswith(b"# Profile Comparison") and b"(run/host `2024_01_02_00_00_00/host0`, SHA256" in body
           and b"(run/host `s1/attention`, SHA256" in body))

    # -- sql: answers equal the shell's
    status, a = get_json("/data/plugin/xplane/sql?" + q(run="tpu/2024_01_01_00_00_00", q="SELECT count(*) AS n FROM xplane_events"))
    want = shell_json("SELECT count(*) AS n FROM xplane_events('%s')" % tpu_file)[0]["n"]
    check("sql: count of events = the shell's (%d)" % want, (200, ["n"], [[want]], False), (status, a.get("columns"), a.get("rows"), a.get("truncated")))
    status, a = get_json("/data/plugin/xplane/sql?" + q(run="tpu/2024_01_01_00_00_00",
                                                       q="SELECT device_kind, count(*) FROM xplane_device_time GROUP BY 1"))
    check("sql: the TPU profile has 4 TPU cores in the device-time model", (200, [["tpu", 4]]), (status, a.get("rows")))
    status, a = get_json("/data/plugin/xplane/sql?" + q(run="amd/s1", host="gemm", limit=3,
                                                       q="SELECT name FROM xplane_events ORDER BY start_ps, name"))
    want = [[r["name"]] for r in shell_json("SELECT name FROM xplane_events('%s') ORDER BY start_ps, name LIMIT 3" % files[("amd/s1", "gemm")])]
    check("sql: limit=3 gives the first 3 rows and says truncated", (200, want, True), (status, a.get("rows"), a.get("truncated")))
    status, qs = get_json("/data/plugin/xplane/questions")
    ok = []
    for item in qs.get("questions", []):
        s, a = get_json("/data/plugin/xplane/sql?" + q(run="tpu/2024_01_01_00_00_00", q=item["sql"]))
        ok.append((item["label"], s, "rows" in a))
    check("every canned question answers on the TPU profile", [(l, 200, True) for l, _, _ in ok], ok)

    # -- bad requests: 4xx with a JSON error
    def err(path, method="GET"):
        status, ctype, body = get(path, method)
        try:
            return status, ctype.split(";")[0], sorted(json.loads(body))
        except ValueError:
            return status, ctype, body[:100]
    J = "application/json"
    for name, path, code in [
            ("no run", "report", 400),
            ("unknown run", "report?run=nope", 404),
            ("run with ..", "report?" + q(run="../../../etc", host="passwd"), 404),
            ("run as an absolute path", "findings?" + q(run=tpu_file), 404),
            ("run/host as a folder path", "sql?" + q(run=os.path.dirname(tpu_file), q="SELECT 1"), 404),
            ("a host linked out of the logdir", "findings?" + q(run="amd/s1", host="escape"), 404),
            ("a host linked to /etc/passwd", "sql?" + q(run="amd/s1", host="passwd", q="SELECT 1"), 404),
            ("a run through a linked folder", "findings?" + q(run="linked/s"), 404),
            ("bad format", "report?" + q(run="amd/s1", format="pdf"), 400),
            ("no q", "sql?" + q(run="amd/s1"), 400),
            ("bad limit", "sql?" + q(run="amd/s1", q="SELECT 1", limit="lots"), 400),
            ("limit over 5000", "sql?" + q(run="amd/s1", q="SELECT 1", limit=5001), 400),
            ("a query over 20000 characters", "sql?" + q(run="amd/s1", q="SELECT " + "1+" * 10000 + "1"), 400),
            ("compare without b", "compare?" + q(a="amd/s1"), 400)]:
        check("%s: %d with a JSON error" % (name, code), (code, J, ["error"]), err("/data/plugin/xplane/" + path))
    check("POST: 405 with a JSON error", (405, J, ["error"]), err("/data/plugin/xplane/sql?" + q(run="amd/s1", q="SELECT 1"), "POST"))

    # -- an answer is bounded in bytes as well as rows: 40 values of 999,998 characters, a 16,000,000-byte cap -> 16 rows
    status, a = get_json("/data/plugin/xplane/sql?" + q(run="amd/s1", limit=5000, q=(
        "WITH RECURSIVE c(i) AS (VALUES(1) UNION ALL SELECT i + 1 FROM c WHERE i < 40) SELECT hex(zeroblob(499999)) AS s FROM c")))
    check("sql: an answer stops at 16 MB of values (16 rows of 999,998 characters) and says truncated",
          (200, 16, True, 999998), (status, len(a.get("rows", [])), a.get("truncated"), len((a.get("rows") or [[""]])[0][0])))

    # -- the console is read-only and reads the chosen profile only
    def sql_err(query, run="amd/s1"):
        status, a = get_json("/data/plugin/xplane/sql?" + q(run=run, q=query))
        return status, a.get("error", a)
    for name, query, code, msg in [
            ("ATTACH", "ATTACH '%s' AS x" % os.path.join(tb_tmp, "x.db"), 400, "q: only a read-only statement is answered (SELECT, WITH, VALUES or EXPLAIN)"),
            ("VACUUM INTO", "VACUUM INTO '%s'" % os.path.join(tb_tmp, "v.db"), 400, "q: only a read-only statement is answered (SELECT, WITH, VALUES or EXPLAIN)"),
            ("PRAGMA", "PRAGMA writable_schema=1", 400, "q: only a read-only statement is answered (SELECT, WITH, VALUES or EXPLAIN)"),
            ("INSERT in a WITH", "WITH a AS (SELECT 1) INSERT INTO sqlite_master SELECT * FROM a", 403, "q: not allowed here (the console is read-only): INSERT sqlite_master"),
            ("two statements", "SELECT 1; SELECT 2", 400, "q: You can only execute one statement at a time."),
            ("load_extension()", "SELECT load_extension('/tmp/evil')", 403, "q: not allowed here (the console is read-only): the function load_extension()"),
            ("xplane_use()", "SELECT xplane_use('/')", 403, "q: not allowed here (the console is read-only): the function xplane_use()"),
            ("xplane_to_perfetto()", "SELECT xplane_to_perfetto('%s', '%s')" % (tpu_file, os.path.join(tb_tmp, "t.pftrace")), 403,
             "q: not allowed here (the console is read-only): the function xplane_to_perfetto()"),
            ("another profile by path", "SELECT count(*) FROM xplane_events('%s')" % os.path.join(outside, "plugins", "profile", "s", "secret.xplane.pb"), 400,
             "q: xplane_events: this connection reads only its confined profile (xplane_use_only): call xplane_events without a path"),
            ("another profile in a path constraint", "SELECT count(*) FROM xplane_ops WHERE path = '/'", 400,
             "q: xplane_ops: this connection reads only its confined profile (xplane_use_only): call xplane_ops without a path"),
            ("an HLO file by name", "SELECT * FROM xplane_hlo_instructions('/etc/passwd')", 400,
             "q: xplane_hlo_instructions: (file): this connection is confined to one profile (xplane_use_only): give the HloProto as a blob (the `Hlo Proto` stat of its metadata plane), not a file name"),
    ]:
        check("sql refuses %s" % name, (code, msg), sql_err(query))
    t0 = time.monotonic()
    got = sql_err("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
    took = time.monotonic() - t0
    check("a query that never ends is stopped at the time limit (XPLANE_TB_TIMEOUT_S=20)", (504, "q: stopped after 20 s (the time limit)"), got)
    check("... within 20-30 s", True, 20 <= took < 30)
    if SANITIZED:
        print("skip the memory limit: an AddressSanitizer build runs without one (XPLANE_TB_MEMORY_MB=0)")
    else:
        got = sql_err("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 30000) "
                      "SELECT count(DISTINCT randomblob(100000)) FROM c")  # 3 GB of distinct values held in memory
        check("a query over the memory limit (2048 MB) is stopped with 507", (507, "q: stopped: it went over the memory limit"), got)

    # -- two tabs at once: a report, findings and SQL on different runs, concurrently
    jobs = [("/data/plugin/xplane/sql?" + q(run="tpu/2024_01_01_00_00_00", q="SELECT count(*) AS n FROM xplane_events"),
             shell_json("SELECT count(*) AS n FROM xplane_events('%s')" % tpu_file)[0]["n"]),
            ("/data/plugin/xplane/sql?" + q(run="gpu/2024_01_02_00_00_00", q="SELECT count(*) AS n FROM xplane_events"),
             shell_json("SELECT count(*) AS n FROM xplane_events('%s')" % gpu_file)[0]["n"])] * 4
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda j: get_json(j[0]), jobs))
        reports = list(pool.map(lambda r: get("/data/plugin/xplane/report?" + q(run=r))[0],
                                ["tpu/2024_01_01_00_00_00", "gpu/2024_01_02_00_00_00", "amd/s1", "tpu/2024_01_01_00_00_00"]))
    check("8 concurrent SQL requests on two profiles answer each its own", [(200, [[w]]) for _, w in jobs],
          [(s, a.get("rows")) for s, a in got])
    check("4 concurrent reports", [200] * 4, reports)

    # -- nothing written
    check("the logdir is unchanged", before, snapshot(logdir))
    check("TensorBoard's TMPDIR holds no file but its own .tensorboard-info", [".tensorboard-info"], sorted(os.listdir(tb_tmp)))

    # -- the page in headless Chromium
    shot = os.path.join(WORK, "xplane_tab.png")
    br = subprocess.run(["node", "--experimental-websocket", "--no-warnings", os.path.join(SRC, "tests", "tensorboard_browser.mjs"),
                         BASE, "tpu/2024_01_01_00_00_00", shot, os.path.join(WORK, "chromium"), "hostile/s",
                         "amd/s1", "gemm"],
                        capture_output=True, text=True, timeout=300,
                        env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"})  # no sanitizer runtime in the browser
    try:
        page = json.loads(br.stdout)
    except ValueError:
        page = {"error": br.stdout[-1000:] + br.stderr[-2000:]}
    if page.get("error"):
        print("browser: " + page["error"])
    want_events = shell_json("SELECT count(*) AS n FROM xplane_events('%s')" % tpu_file)[0]["n"]
    check("Chromium: the tab lists the runs", ["amd/s1", "gpu/2024_01_02_00_00_00", "hostile/s", "tpu/2024_01_01_00_00_00"], page.get("runs"))
    check("Chromium: a host named as HTML is shown as text: no element made of it, no dialog",
          ([HOSTILE], 0, True, []),
          (page.get("hostile_hosts"), page.get("hostile_imgs"), HOSTILE in page.get("hostile_report", ""), page.get("dialogs")))
    check("Chromium: the markdown report of the TPU host is shown", True, page.get("report_md", "").startswith("# Profile Report")
          and "- Host: `t1v-n-0`" in page.get("report_md", ""))
    md = page.get("report_md", "")
    check("Chromium: the report is rendered: its sections as headings, its pipe tables as tables",
          ([l[3:] for l in md.split("\n") if l.startswith("## ")], md.count("\n|---")),
          (page.get("report_h2"), page.get("report_tables")))
    check("Chromium: the HTML report is in its sandboxed frame (its charts drawn)", (True, ""), (page.get("report_svgs", 0) > 0, page.get("frame_sandbox")))
    check("Chromium: findings table rows = xplane_findings rows", len(shell_json("SELECT id FROM xplane_findings('%s')" % tpu_file)),
          page.get("findings_rows"))
    direct = subprocess.run([os.path.join(BUILD, "cli", "xplane"), "compare", "-q", "--format", "markdown", tpu_file,
                             files[("amd/s1", "gemm")]], capture_output=True, text=True).stdout
    # the paths read differ (the plugin's are descriptors /dev/fd/N); the run/host names beside them must not
    lines = lambda md: [re.sub(r"^- (Before|After): `[^`]*`", r"- \1: PATH", l)
                        for l in md.rstrip("\n").split("\n") if "Generated" not in l]
    check("Chromium: the Compare view with a chosen host = `xplane compare --format markdown` (its generation time and paths aside)",
          lines(direct), lines(page.get("compare_md", "")))
    check("Chromium: the canned questions are buttons", [x["label"] for x in qs["questions"]], page.get("questions"))
    check("Chromium: the first question's table (device time) has the 4 TPU cores", 4, page.get("device_rows"))
    check("Chromium: a typed query's answer", [["n"], [str(want_events)]], page.get("sql_answer"))
    check("Chromium: no error shown, no console error", ("", []), (page.get("error_text"), page.get("console_errors")))
    check("Chromium: a screenshot", True, os.path.isfile(shot) and os.path.getsize(shot) > 10000)
    # nothing outside loopback is contacted: every request the page (TensorBoard's and the
    # tab's frames) made went to this TensorBoard on 127.0.0.1, or is a data:/blob: URL
    reqs = page.get("requests", [])
    off_host = [u for u in reqs if not (u.startswith(BASE + "/") or u == BASE or u.startswith(("data:", "blob:", "about:")))]
    check("Chromium: every request went to the TensorBoard on 127.0.0.1 (%d URLs)" % len(reqs), [], off_host)
    check("Chromium: the tab's routes were requested", True, any("/data/plugin/xplane/" in u for u in reqs))
    # the server's side: TensorBoard's process touched only loopback addresses (the audit
    # hook saw its own bind, so it was running), and resolved no other name
    audit = [tuple(json.loads(l)) for l in open(audit_log)] if os.path.isfile(audit_log) else []
    loop = ("'127.0.0.1'", "'localhost'", "'::1'", "None", "'::ffff:127.0.0.1'")
    def loopback(ev, a):
        if ev == "socket.getaddrinfo":
            return a in loop
        return a.startswith(tuple("(" + x for x in loop)) or a.startswith(("'/", "b'"))  # a tuple, or AF_UNIX
    check("server: the audit hook saw TensorBoard bind 127.0.0.1:%d" % port, True,
          any(ev == "socket.bind" and a.startswith("('127.0.0.1', %d" % port) for ev, a in audit))
    check("server: every socket address TensorBoard's process used was loopback (%d events)" % len(audit), [],
          [x for x in audit if not loopback(*x)])
    # the children the plugin runs: the xplane command and the extension call no socket
    # function of their own (their dynamic imports), and the SQL worker (python -I, which the
    # hook does not reach) imports no network module
    net = {"socket", "connect", "sendto", "sendmsg", "getaddrinfo", "gethostbyname", "bind"}
    for binary in (os.path.join(BUILD, "xplane.so"), os.path.join(BUILD, "cli", "xplane")):
        syms = subprocess.run(["nm", "-D", "--undefined-only", binary], capture_output=True, text=True).stdout.split()
        check("server: %s imports no socket function" % os.path.relpath(binary, BUILD), [],
              sorted({x.split("@")[0] for x in syms} & net))
    import ast
    tree = ast.parse(open(os.path.join(SRC, "tensorboard_plugin", "xplane_tensorboard", "sql_worker.py")).read())
    mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | \
           {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    check("server: the SQL worker imports no network module", [],
          sorted(mods & {"socket", "ssl", "urllib", "http", "requests", "ftplib", "smtplib", "asyncio", "xmlrpc"}))
    if os.environ.get("XPLANE_TB_SCREENSHOT") and os.path.isfile(shot):
        shutil.copy(shot, os.environ["XPLANE_TB_SCREENSHOT"])
finally:
    tb.terminate()
    try:
        tb.wait(10)
    except subprocess.TimeoutExpired:
        tb.kill()
    tb_log.close()
print("%d passed, %d failed" % (passes, failures))
if failures:
    print("TensorBoard log (last 3000 bytes):")
    print(open(os.path.join(WORK, "tensorboard.log"), "rb").read()[-3000:].decode("utf-8", "replace"))
sys.exit(1 if failures else 0)
