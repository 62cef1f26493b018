"""`meson install` puts the package into Debian's python3 path layout and
cradle-plot into bindir: installed into a scratch DESTDIR, the package imports
from there (not from the source tree), finds the installed libcradle through
its _config.py, and reads a run."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD


@pytest.mark.skipif(not os.path.exists(os.path.join(BUILD, "build.ninja")), reason="no build dir")
def test_meson_install(runs, tmp_path):
    dest = tmp_path / "dest"
    p = subprocess.run(["meson", "install", "-C", BUILD, "--no-rebuild", "--quiet", "--destdir",
                        str(dest)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    found = [os.path.join(r, "__init__.py") for r, _, fs in os.walk(dest)
             if r.endswith(os.sep + "cradle") and "__init__.py" in fs]
    assert len(found) == 1
    pkg = os.path.dirname(found[0])
    assert os.path.exists(os.path.join(pkg, "_config.py"))
    site = os.path.dirname(pkg)
    # Debian's python3 reads this folder once DESTDIR is stripped (prefix /usr/local)
    rel = "/" + os.path.relpath(site, dest)
    opts = json.loads(subprocess.run(["meson", "introspect", BUILD, "--buildoptions"],
                                     capture_output=True, text=True).stdout)
    prefix = [o["value"] for o in opts if o["name"] == "prefix"][0]
    if prefix in ("/usr/local", "/usr"):
        assert rel in subprocess.run(["/usr/bin/python3", "-c", "import sys; print(sys.path)"],
                                     capture_output=True, text=True).stdout
    plotter = [os.path.join(r, f) for r, _, fs in os.walk(dest) for f in fs if f == "cradle-plot"]
    assert len(plotter) == 1 and os.access(plotter[0], os.X_OK)
    code = ("import cradle, cradle.lib, sys; assert cradle.__file__.startswith(sys.argv[1]); "
            "from cradle import _config; print(_config.LIBDIR); "
            "print(len(cradle.read(sys.argv[2]).collisions))")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CRADLE_LIB")}
    env["PYTHONPATH"] = site
    p = subprocess.run(["/usr/bin/python3", "-c", code, pkg, runs["chain"][0]], cwd=str(tmp_path),
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    libdir, ncoll = p.stdout.split()
    assert os.path.exists(str(dest) + libdir + "/libcradle.so") and ncoll == "3"
