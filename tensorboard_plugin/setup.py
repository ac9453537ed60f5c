"""setup.py: the one build step pyproject.toml cannot say, bundling the native part.

At build time (pip install ./tensorboard_plugin) the package gets a copy of what
the project's CMake build made, in the layout `cmake --install` gives, so the
copied command finds its extension and queries beside itself:

    xplane_tensorboard/_native/bin/xplane                 <build>/cli/xplane
    xplane_tensorboard/_native/lib/xplane/xplane.so       <build>/xplane.so
    xplane_tensorboard/_native/share/xplane/queries/      <repo>/queries/

<build> is $XPLANE_BUILD_DIR, else the repository's build/ (tools/setup.sh
makes it). Without a build the package is made without _native and the plugin
looks for the `xplane` command at run time instead (native.py: $XPLANE_CLI,
then PATH).
"""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


class BuildWithNative(build_py):
    def run(self):
        super().run()
        build = os.environ.get("XPLANE_BUILD_DIR") or os.path.join(REPO, "build")
        cli = os.path.join(build, "cli", "xplane")
        ext = os.path.join(build, "xplane.so")
        queries = os.path.join(REPO, "queries")
        if not (os.path.isfile(cli) and os.path.isfile(ext) and os.path.isdir(queries)):
            print("xplane-tensorboard: no build at %s (bash tools/setup.sh makes one): the plugin "
                  "will use the `xplane` command on PATH or $XPLANE_CLI" % build)
            return
        native = os.path.join(self.build_lib, "xplane_tensorboard", "_native")
        if os.path.isdir(native):
            shutil.rmtree(native)
        os.makedirs(os.path.join(native, "bin"))
        os.makedirs(os.path.join(native, "lib", "xplane"))
        shutil.copy2(cli, os.path.join(native, "bin", "xplane"))
        shutil.copy2(ext, os.path.join(native, "lib", "xplane", "xplane.so"))
        shutil.copytree(queries, os.path.join(native, "share", "xplane", "queries"))


setup(cmdclass={"build_py": BuildWithNative})
