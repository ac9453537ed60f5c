"""native.py: the xplane command and extension, run in child processes with limits.

Where they are (the first that exists):
    command    $XPLANE_CLI, the copy bundled at install (_native/bin/xplane,
               setup.py), `xplane` on PATH
    extension  $XPLANE_EXTENSION, the bundled copy (_native/lib/xplane/xplane.so),
               <command's folder>/../lib/xplane/xplane.so (cmake --install's layout)

Every request that reads a profile runs in a child process: the report and
the comparison are the `xplane` command (`report`, `report --html`,
`compare`), findings and the SQL console are sql_worker.py (Python's sqlite3
with the extension). A child gets an address-space limit (RLIMIT_AS,
$XPLANE_TB_MEMORY_MB, default 4096; 0: none, for a build under AddressSanitizer,
which reserves terabytes of address space), a CPU-time limit, and a wall-clock
time limit ($XPLANE_TB_TIMEOUT_S, default 120): the SQL worker stops its
statement at the limit itself, and any child still running GRACE_S later is
killed; its
environment drops XPLANE_FILE_OUTPUT, so nothing it runs may write a file.
The command's argv holds only fixed options and /dev/fd/N, the descriptor of
a listed file the plugin opened and checked (logdir.open_listed), passed to
the child (pass_fds): the child reads the very file that was checked and
never looks a path up. Answers are cached in memory by (file, device, inode,
size, mtime) read from that descriptor, so a changed file is read again.
"""
import collections
import json
import os
import resource
import shutil
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE = os.path.join(HERE, "_native")
GRACE_S = 5  # the SQL worker stops itself at the time limit; the kill comes this much later


class NativeError(Exception):
    """A failure to report to the client: HTTP status and message (a bad
    request as much as a failed analysis)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


def _int_env(name, default):
    try:
        return max(1, int(os.environ.get(name, "")))
    except ValueError:
        return default


def locate():
    """(command, extension path without .so) or raises NativeError 503."""
    cli = os.environ.get("XPLANE_CLI") or ""
    if not cli:
        bundled = os.path.join(NATIVE, "bin", "xplane")
        cli = bundled if os.access(bundled, os.X_OK) else (shutil.which("xplane") or "")
    if not cli or not os.access(cli, os.X_OK):
        raise NativeError(503, "cannot find the xplane command: install the plugin from a built "
                               "repository (bash tools/setup.sh; pip install ./tensorboard_plugin), "
                               "put xplane on PATH or set XPLANE_CLI")
    ext = os.environ.get("XPLANE_EXTENSION") or ""
    if not ext:
        for cand in (os.path.join(NATIVE, "lib", "xplane", "xplane"),
                     os.path.join(os.path.dirname(os.path.realpath(cli)), "..", "lib", "xplane", "xplane")):
            if os.path.isfile(cand + ".so"):
                ext = os.path.normpath(cand)
                break
    if ext.endswith(".so"):
        ext = ext[:-3]
    if not ext or not os.path.isfile(ext + ".so"):
        raise NativeError(503, "cannot find the xplane extension (xplane.so): set XPLANE_EXTENSION")
    return cli, ext


def limits():
    """(memory MB, 0 for no limit; seconds)."""
    memory = os.environ.get("XPLANE_TB_MEMORY_MB", "").strip()
    return (0 if memory == "0" else _int_env("XPLANE_TB_MEMORY_MB", 4096)), _int_env("XPLANE_TB_TIMEOUT_S", 120)


def _child_env(ext):
    env = {k: v for k, v in os.environ.items() if k != "XPLANE_FILE_OUTPUT"}
    env["XPLANE_EXTENSION"] = ext
    return env


def _preexec(memory_mb, timeout_s):
    def apply():
        if memory_mb:
            lim = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        resource.setrlimit(resource.RLIMIT_CPU, (timeout_s + GRACE_S, timeout_s + GRACE_S + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.setsid()
    return apply


def _run(argv, ext, fds, stdin=None):
    memory_mb, timeout_s = limits()
    try:
        p = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout_s + GRACE_S, env=_child_env(ext),
                           preexec_fn=_preexec(memory_mb, timeout_s), cwd="/", check=False, pass_fds=tuple(fds))
    except subprocess.TimeoutExpired:
        raise NativeError(504, "the analysis took longer than %d s (XPLANE_TB_TIMEOUT_S) and was stopped" % timeout_s)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace").strip()


class _Cache:
    """A small LRU of answers (bytes), keyed by what they depend on."""

    def __init__(self, n=64):
        self.n = n
        self.d = collections.OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            if key in self.d:
                self.d.move_to_end(key)
                return self.d[key]
        return None

    def put(self, key, value):
        with self.lock:
            self.d[key] = value
            self.d.move_to_end(key)
            while len(self.d) > self.n:
                self.d.popitem(last=False)


_cache = _Cache()


def command(what, profiles):
    """The xplane command's stdout (bytes) for WHAT: 'report' (markdown),
    'report_html' or 'compare' ('compare_md'), on listed profiles held open
    (logdir.Opened)."""
    key = (what, tuple(p.key() for p in profiles))
    hit = _cache.get(key)
    if hit is not None:
        return hit
    cli, ext = locate()
    files = [p.path for p in profiles]
    if what == "report":
        argv = [cli, "report", "-q", "--", files[0]]
    elif what == "report_html":
        argv = [cli, "report", "--html", "--format", "reference", "-q", "--", files[0]]
    elif what == "compare":
        argv = [cli, "compare", "-q", "--format", "json", "--", files[0], files[1]]
    elif what == "compare_md":
        argv = [cli, "compare", "-q", "--format", "markdown", "--", files[0], files[1]]
    else:
        raise ValueError(what)
    rc, out, err = _run(argv, ext, [p.fd for p in profiles])
    if rc != 0:
        raise NativeError(500 if rc != 2 else 400, "xplane %s failed (exit %d): %s" % (argv[1], rc, err or "no message"))
    _cache.put(key, out)
    return out


def sql(profile, query, max_rows, cacheable=False):
    """One read-only statement over one listed profile held open, in sql_worker.py:
    {"columns", "rows", "truncated", "elapsed_ms"}; raises NativeError."""
    key = ("sql", profile.key(), query, max_rows)
    if cacheable:
        hit = _cache.get(key)
        if hit is not None:
            return hit
    _, ext = locate()
    memory_mb, timeout_s = limits()
    request = json.dumps({"extension": ext, "profile": profile.path, "query": query,
                          "max_rows": max_rows, "seconds": timeout_s}).encode()
    rc, out, err = _run([sys.executable, "-I", os.path.join(HERE, "sql_worker.py")], ext, [profile.fd], stdin=request)
    try:
        answer = json.loads(out.decode("utf-8"))
    except ValueError:
        if rc < 0:  # killed by a signal: SIGXCPU at the CPU limit, or an abort when memory ran out at the address-space limit
            raise NativeError(507 if rc != -24 else 504, "the query was stopped: it went over the memory (%d MB) "
                              "or CPU-time limit" % memory_mb)
        raise NativeError(500, "the SQL worker failed (exit %d): %s" % (rc, err[-500:] or "no message"))
    if "error" in answer:
        raise NativeError(answer.get("status", 400), answer["error"])
    if cacheable:
        _cache.put(key, answer)
    return answer
