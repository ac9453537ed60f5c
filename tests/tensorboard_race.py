"""tests/tensorboard_race.py: the plugin reads the file it listed, even when the
logdir changes between the listing and the read.

Run by tests/tensorboard_test.py (after it pip-installs the plugin into SITE):

    python tests/tensorboard_race.py SITE DATA WORKDIR

The plugin is driven in this process (no server: the race is placed between
the listing and the opening, where a request cannot place it reliably):

1. a folder swapped for a link out of the logdir: the session folder of a
   listed profile is renamed away and a link to a folder outside the logdir,
   holding a file of the same name, is put in its place. Before descriptors,
   the report then read the outside file (its 8 V100 GPUs); now the opened file is
   not the listed one, a fresh listing does not follow the link, and the
   request is a 404;
2. a file replaced inside the logdir (a new inode renamed over it): the fresh
   listing finds the new file and the answer is the new file's, not a cached
   answer about the old one.
Expected device counts come from ../shared/data/README.md's provenance:
tracelens_jax08_gemm ran on 8 AMD MI300X (compute capability 9.4), gpu_mw on 8 V100
(compute capability 7.0).
"""
import os
import shutil
import sys

SITE, DATA, WORK = sys.argv[1:4]
sys.path.insert(0, SITE)
from xplane_tensorboard import logdir as logdir_mod  # noqa: E402
from xplane_tensorboard import native, plugin  # noqa: E402

failures = passes = 0


def check(name, want, got):
    global failures, passes
    if want == got:
        passes += 1
        print("ok   %s" % name)
    else:
        failures += 1
        print("FAIL %s\n     want %r\n     got  %r" % (name, want, got))


class Context:
    def __init__(self, logdir):
        self.logdir = logdir


class Request:
    def __init__(self, **args):
        self.args = args
        self.method = "GET"


def devices(md):
    return [l for l in md.decode().split("\n") if l.startswith("- Devices: ")]


logdir_mod.LISTING_TTL_S = 3600  # the kept listing is the one made before the swap
root = os.path.join(WORK, "race")
session = os.path.join(root, "logdir", "r", "plugins", "profile", "s")
outside = os.path.join(root, "outside", "s")
os.makedirs(session)
os.makedirs(outside)
shutil.copy(os.path.join(DATA, "tracelens_jax08_gemm.xplane.pb"), os.path.join(session, "h.xplane.pb"))
shutil.copy(os.path.join(DATA, "gpu_mw.xplane.pb"), os.path.join(outside, "h.xplane.pb"))

tb = plugin.XplanePlugin(Context(os.path.join(root, "logdir")))


def report(run="r/s", host="h"):
    held = []
    try:
        p = tb._pick(Request(run=run, host=host), held)
        return 200, p.path.startswith("/dev/fd/"), devices(native.command("report", [p]))
    except native.NativeError as e:
        return e.status, e.message
    finally:
        for o in held:
            o.close()


check("before any change: the listed file is read through a descriptor (8 AMD MI300X GPUs)",
      (200, True, ["- Devices: `8 x AMD GPU (compute capability 9.4)`"]), report())

# 1. the session folder swapped for a link out of the logdir, after the listing was made
os.rename(session, session + ".old")
os.symlink(outside, session)
check("a folder swapped for a link out of the logdir after the listing: 404, the outside file not read",
      (404, "run='r/s' with host='h' is not in the runs listing"), report())
os.remove(session)
os.rename(session + ".old", session)

# 2. the file replaced by a new one (another inode) inside the logdir
check("the folder put back: read again (8 AMD MI300X GPUs)",
      (200, True, ["- Devices: `8 x AMD GPU (compute capability 9.4)`"]), report())
shutil.copy(os.path.join(DATA, "gpu_mw.xplane.pb"), os.path.join(session, "new.tmp"))
os.rename(os.path.join(session, "new.tmp"), os.path.join(session, "h.xplane.pb"))
check("a file replaced inside the logdir: the new file's answer, not a cached one (8 V100 GPUs)",
      (200, True, ["- Devices: `8 x GPU (compute capability 7.0)`"]), report())

# the descriptor is the listed file even when its name is a link inside the logdir
os.symlink(os.path.join(session, "h.xplane.pb"), os.path.join(session, "alias.xplane.pb"))
check("a link inside the logdir is read as the file it names (8 V100 GPUs)",
      (200, True, ["- Devices: `8 x GPU (compute capability 7.0)`"]), report(host="alias"))
print("race: %d passed, %d failed" % (passes, failures))
sys.exit(1 if failures else 0)
