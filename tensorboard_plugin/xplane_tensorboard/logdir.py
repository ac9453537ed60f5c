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
  huge or looping logdir costs a bounded time (the listing says it was cut);
- a listed file is read through a descriptor (`open_listed`): the plugin
  opens it, checks that the descriptor is the listed file (the same real path,
  read back from /proc/self/fd, and the same device and inode, a regular
  file), and hands the descriptor to the child, which reads /dev/fd/N. A folder
  swapped for a link out of the logdir between the listing and the read, or
  a file replaced, is caught by that check: nothing is ever opened by a path
  a second time.

The listing is kept for LISTING_TTL_S seconds (`Listing`), so a burst of
requests walks the logdir once; a run or host that is not in a kept listing,
or a file that no longer is the listed one, makes it walk again at once.
"""
import os
import stat
import threading
import time

MAX_DIRS = 20000
MAX_DEPTH = 16
SUFFIX = ".xplane.pb"
LISTING_TTL_S = 2.0


class Profile:
    """One listed profile file."""

    __slots__ = ("run", "host", "path", "size", "mtime_ns", "dev", "ino")

    def __init__(self, run, host, path, st):
        self.run, self.host, self.path = run, host, path
        self.size, self.mtime_ns, self.dev, self.ino = st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino


class Changed(Exception):
    """The listed file is no longer what the listing saw (moved, replaced,
    removed, or a folder on its path swapped)."""


class Opened:
    """A listed profile held open: `path` is what a child process reads
    (/dev/fd/N, with the descriptor passed to it), `key()` what a cached
    answer about it depends on (from the descriptor, not the listing)."""

    def __init__(self, profile, fd, st):
        self.run, self.host, self.fd = profile.run, profile.host, fd
        self.path = "/dev/fd/%d" % fd
        self._key = (profile.path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def key(self):
        return self._key

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def open_listed(profile):
    """The listed PROFILE opened and checked (an Opened), or raises Changed."""
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(profile.path, flags)
    except OSError as e:
        raise Changed("%s: %s" % (profile.path, e.strerror))
    try:
        st = os.fstat(fd)
        real = os.readlink("/proc/self/fd/%d" % fd)
        if real != profile.path or not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (profile.dev, profile.ino):
            raise Changed("%s is no longer the file listed" % profile.path)
    except OSError as e:
        os.close(fd)
        raise Changed("%s: %s" % (profile.path, e.strerror))
    except Changed:
        os.close(fd)
        raise
    return Opened(profile, fd, st)


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
            found.append(Profile(run, name[: -len(SUFFIX)], real, st))
    found.sort(key=lambda p: (p.run, p.host))
    return found, truncated


class Listing:
    """The listing of one logdir, walked at most once per LISTING_TTL_S
    seconds unless asked to walk again (`get(fresh=True)`)."""

    def __init__(self, logdir):
        self.logdir = logdir
        self._lock = threading.Lock()
        self._at = None
        self._value = None

    def get(self, fresh=False):
        with self._lock:
            now = time.monotonic()
            if fresh or self._at is None or now - self._at > LISTING_TTL_S:
                self._value = list_profiles(self.logdir)
                self._at = time.monotonic()
            return self._value


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
