"""logdir.py: the profiles of a TensorBoard logdir, the only files the plugin reads.

TensorBoard's layout (the one xprof's profile tab reads):

    LOGDIR/[RUN/...]/plugins/profile/SESSION/HOST.xplane.pb

A run, as the plugin names it, is the session folder's path below the logdir
without the `plugins/profile/` part ("train/2026_12_07_08_00_00", or just the
session when the profile folder is the logdir's own); its hosts are the
`*.xplane.pb` files in it ("HOST" for HOST.xplane.pb).

Rules (what keeps a request from naming a file of its own choosing):
- requests pick a run and a host by name, and the name is looked up in this
  listing; no path is ever built from request text;
- a file is listed only when its real path (symbolic links resolved) is a
  regular file inside the logdir's real path: a link that leaves the logdir
  is not listed, and `..` never appears in a listed name (the walk does not
  follow directory links);
- the walk is bounded: at most MAX_DIRS folders and MAX_DEPTH levels, so a
  huge or looping logdir costs a bounded time (the listing says it was cut).
"""
import os
import stat

MAX_DIRS = 20000
MAX_DEPTH = 16
SUFFIX = ".xplane.pb"


class Profile:
    """One listed profile file."""

    __slots__ = ("run", "host", "path", "size", "mtime_ns")

    def __init__(self, run, host, path, size, mtime_ns):
        self.run, self.host, self.path, self.size, self.mtime_ns = run, host, path, size, mtime_ns

    def key(self):
        """What a cached answer about this file depends on."""
        return (self.path, self.size, self.mtime_ns)


def _inside(real, root):
    return real == root or real.startswith(root + os.sep)


def list_profiles(logdir):
    """Returns (profiles sorted by run then host, truncated flag)."""
    root = os.path.realpath(logdir)
    found = []
    dirs = 0
    truncated = False
    for top, subdirs, files in os.walk(root, followlinks=False):
        dirs += 1
        depth = top[len(root):].count(os.sep)
        if dirs > MAX_DIRS:
            truncated = True
            break
        if depth >= MAX_DEPTH:
            subdirs[:] = []
        subdirs.sort()
        parent, session = os.path.split(top)
        if os.path.basename(parent) != "profile" or os.path.basename(os.path.dirname(parent)) != "plugins":
            continue
        run_root = os.path.dirname(os.path.dirname(parent))
        rel = os.path.relpath(run_root, root)
        run = session if rel == "." else rel.replace(os.sep, "/") + "/" + session
        for name in sorted(files):
            if not name.endswith(SUFFIX) or len(name) == len(SUFFIX):
                continue
            path = os.path.join(top, name)
            real = os.path.realpath(path)
            if not _inside(real, root):
                continue  # a link out of the logdir
            try:
                st = os.stat(real)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            found.append(Profile(run, name[: -len(SUFFIX)], real, st.st_size, st.st_mtime_ns))
    found.sort(key=lambda p: (p.run, p.host))
    return found, truncated


def find(profiles, run, host=None):
    """The listed profile of RUN and HOST (the run's first host when HOST is
    empty), or None. Names are compared exactly."""
    if not isinstance(run, str) or not run:
        return None
    for p in profiles:
        if p.run == run and (not host or p.host == host):
            return p
    return None


def runs_json(profiles, truncated):
    """The `runs` route's document."""
    runs = []
    for p in profiles:
        if not runs or runs[-1]["run"] != p.run:
            runs.append({"run": p.run, "hosts": []})
        runs[-1]["hosts"].append({"host": p.host, "bytes": p.size})
    return {"runs": runs, "truncated": truncated}
