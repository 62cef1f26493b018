"""cradle: read cradle run files and run models through libcradle.

    import cradle
    run = cradle.read("cradle-out.h5")           # a file written by `cradle run`
    run = cradle.run("models/pendulum-cradle.yaml")   # or a model, through libcradle
    run.time, run.position, run.velocity             # numpy arrays, (T,), (T, N, dim)
    run.episodes[0].kappa, run.collisions[0].bodies  # plain objects

Reading needs h5py and numpy (Debian: python3-h5py); running needs libcradle
(ctypes, no compiled extension). cradle.law, cradle.compare, cradle.sweep,
cradle.table.make/lookup and cradle.fit do what the CLI commands of those
names do (cradle/api.py). Layout: docs/hdf5-layout.md; this package:
docs/python.md.
"""
from .data import Run, Episode, Collision
from .io import read
from .lib import CradleError
from . import sweep, table
from .api import compare, fit, law, synthesize

__version__ = "0.1.0"


def run(model, output=None, **kw):
    """Runs a model (a path, a YAML string or a dict) through libcradle, compliant
    or with rigid=LAW; see cradle.lib.run."""
    from . import lib
    return lib.run(model, output=output, **kw)


__all__ = ["read", "run", "law", "compare", "sweep", "table", "fit", "synthesize",
           "CradleError", "Run", "Episode", "Collision"]
