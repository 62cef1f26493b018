"""cradle.read against the JSON report of the same run: two writers (the
store, HDF5; run-report.c, json-c with 17 digits) of the same monitor, so
every number must be equal exactly; and the /collisions layout against the
episodes it groups."""
import h5py
import numpy as np
import pytest

import cradle


def _flat(a):
    return [None if not np.isfinite(x) else float(x) for x in np.ravel(a)]


@pytest.mark.parametrize("kind", ["chain", "pool", "spheres"])
def test_episodes_equal_json(runs, kind):
    h5, js, _ = runs[kind]
    r = cradle.read(h5)
    assert r.kind == js["engine"] and r.dim == js["dim"]
    assert len(r.episodes) == len(js["episodes"]) > 0
    for e, j in zip(r.episodes, js["episodes"]):
        # reference: the JSON report, exact (17 significant digits round-trip a double)
        assert (e.t_start, e.t_end, e.kappa) == (j["t_start"], j["t_end"], j["kappa"])
        assert list(e.bodies) == j["bodies"]
        assert _flat(e.velocity_before) == j["velocity_before"]
        assert _flat(e.velocity_after) == j["velocity_after"]
        assert _flat(e.contacts["impulse"]) == [c["impulse"] for c in j["contacts"]]
    assert _flat(r.final_velocity) == js["final_velocities"]


@pytest.mark.parametrize("kind", ["chain", "pool", "spheres"])
def test_collisions_equal_json(runs, kind):
    h5, js, _ = runs[kind]
    r = cradle.read(h5)
    assert r.collision_window == js["collision_window"]
    assert r.free_flight == js["free_flight"]
    assert len(r.collisions) == len(js["collisions"]) > 0
    for c, j in zip(r.collisions, js["collisions"]):
        assert (c.t_start, c.t_end, c.kappa, c.T_minus, c.T_plus) == \
            (j["t_start"], j["t_end"], j["kappa"], j["T_minus"], j["T_plus"])
        assert list(c.episodes) == j["episodes"] and list(c.bodies) == j["bodies"]
        assert _flat(c.velocity_before) == j["velocity_before"]
        assert _flat(c.velocity_after) == j["velocity_after"]
        assert _flat(c.contacts["impulse"]) == [x["impulse"] for x in j["contacts"]]
        assert _flat(c.vector_impulse) == sum((x["vector_impulse"] for x in j["contacts"]), [])


def test_pendulum_collisions(runs):
    """Three swings in 1.2 s (T/4 + 2 T/2 = 1.124 s < 1.2 s < T/4 + 3 T/2): three
    collisions; their per-contact impulses are their episodes' sums (1e-12)."""
    r = cradle.read(runs["chain"][0])
    assert len(r.collisions) == 3 and len(r.episodes) > 3
    for c in r.collisions:
        assert sorted(c.bodies) == [0, 1, 2, 3, 4]
        for rec in c.contacts:
            total = sum(e.contacts["impulse"][e.contacts["contact"] == rec["contact"]].sum()
                        for e in (r.episodes[k] for k in c.episodes))
            assert abs(rec["impulse"] - total) <= 1e-12 * abs(total)
    # every episode in exactly one collision
    owner = r.episode_collision()
    assert (owner >= 0).all() and len(owner) == len(r.episodes)


@pytest.mark.parametrize("kind", ["chain", "pool", "spheres"])
def test_collision_offsets(runs, kind):
    """The ragged layout: the runs of /collision tile its datasets in order."""
    with h5py.File(runs[kind][0], "r") as f:
        c = f["collisions"][()]
        for key, n in (("episode", "episodes"), ("body", "bodies"), ("contact", "contacts")):
            off, cnt = c[key + "_offset"], c[key + "_count"]
            assert off[0] == 0 and (off[1:] == off[:-1] + cnt[:-1]).all()
            assert off[-1] + cnt[-1] == len(f["collision/" + n])
        assert len(f["collision/velocity_before"]) == len(f["collision/bodies"])
        assert len(f["collision/vector_impulse"]) == len(f["collision/contacts"])
        assert dict(zip(c.dtype.names, f["collisions"].attrs["units"]))["t_start"] == "s"


@pytest.mark.parametrize("kind", ["chain", "pool", "spheres"])
def test_arrays(runs, kind):
    """Shapes and values against h5py directly (the reader reshapes only)."""
    h5 = runs[kind][0]
    r = cradle.read(h5)
    with h5py.File(h5, "r") as f:
        T, n, d = len(f["trajectory/time"]), r.body_count, r.dim
        assert r.position.shape == (T, n, d) and r.velocity.shape == (T, n, d)
        assert (r.position.reshape(T, n * d) == f["trajectory/position"][()]).all()
        assert (r.velocity.reshape(T, n * d) == f["trajectory/velocity"][()]).all()
        assert (r.events == f["events"][()]).all()
        assert r.model_text == f["model/text"].asstr()[()]
        if kind == "chain":
            assert (r.force == f["trajectory/force"][()]).all()
        else:
            assert r.force is None and r.impulse is None


def test_comparison_read_when_present(runs, tmp_path):
    """/comparison (another module writes it) is read as it is, when present."""
    src = runs["chain"][0]
    dst = tmp_path / "with-comparison.h5"
    dst.write_bytes(open(src, "rb").read())
    with h5py.File(dst, "a") as f:
        g = f.create_group("comparison")
        g.attrs["laws"] = "newton"
        g.create_dataset("error", data=np.array([0.5, 0.25]))
        g.create_group("episode/0000").create_dataset("u_plus", data=np.ones((5, 1)))
    r = cradle.read(str(dst))
    assert r.comparison["attrs"]["laws"] == "newton"
    assert list(r.comparison["error"]) == [0.5, 0.25]
    assert r.comparison["episode"]["0000"]["u_plus"].shape == (5, 1)
    assert cradle.read(src).comparison is None


def _as_format_2(src, dst):
    """src (format 3, the whole trajectory) as format 2 wrote it: without
    /trajectory's column indices and fields attribute."""
    dst.write_bytes(open(src, "rb").read())
    with h5py.File(dst, "a") as f:
        del f["trajectory/bodies"], f["trajectory/contacts"]
        del f["trajectory"].attrs["fields"]
        f.attrs["format_version"] = 2


@pytest.mark.parametrize("kind", ["chain", "pool", "spheres"])
def test_reads_format_2_and_3(runs, tmp_path, kind):
    h5 = runs[kind][0]
    with h5py.File(h5, "r") as f:
        assert f.attrs["format_version"] == 3
    old = tmp_path / "v2.h5"
    _as_format_2(h5, old)
    a, b = cradle.read(h5), cradle.read(str(old))
    for k in ("time", "position", "velocity", "kinetic_energy", "force"):
        x, y = getattr(a, k), getattr(b, k)
        assert (x is None and y is None) or np.array_equal(x, y), k
    assert len(a.episodes) == len(b.episodes) > 0


def test_chosen_output(runs, tmp_path):
    """output.bodies and output.fields: the chosen columns in place, NaN
    elsewhere, the rows of the whole run."""
    from conftest import EXE
    import subprocess
    model = runs["chain"][2]
    out = str(tmp_path / "chosen.h5")
    p = subprocess.run([EXE, "run", "-q", model, "-o", out, "--set", "output.bodies=[1, 3-4]",
                        "--set", "output.fields=[velocity, force]"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    a, b = cradle.read(runs["chain"][0]), cradle.read(out)
    assert np.array_equal(b.time, a.time)
    assert np.array_equal(b.velocity[:, [1, 3, 4]], a.velocity[:, [1, 3, 4]])
    assert np.all(np.isnan(b.velocity[:, [0, 2]])) and np.all(np.isnan(b.position))
    assert np.all(np.isnan(b.kinetic_energy)) and b.impulse is None
    # contacts 0 (0-1), 1 (1-2), 2 (2-3), 3 (3-4) each touch body 1, 3 or 4
    assert np.array_equal(b.force, a.force)


def test_no_trajectory(runs, tmp_path):
    from conftest import EXE
    import subprocess
    out = str(tmp_path / "none.h5")
    p = subprocess.run([EXE, "run", "-q", runs["pool"][2], "-o", out, "--set", "output=none"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    r = cradle.read(out)
    assert len(r.time) == 0 and r.position.shape == (0, 3, 2)
    assert len(r.episodes) == len(cradle.read(runs["pool"][0]).episodes) > 0


def test_bad_column_indices(runs, tmp_path):
    dst = tmp_path / "bad-bodies.h5"
    dst.write_bytes(open(runs["chain"][0], "rb").read())
    with h5py.File(dst, "a") as f:
        del f["trajectory/bodies"]
        f["trajectory/bodies"] = np.array([0, 1, 2, 3, 9])
    with pytest.raises(ValueError, match="trajectory/bodies: indices outside"):
        cradle.read(str(dst))


def test_newer_version_refused(runs, tmp_path):
    dst = tmp_path / "v4.h5"
    dst.write_bytes(open(runs["chain"][0], "rb").read())
    with h5py.File(dst, "a") as f:
        f.attrs["format_version"] = 4
    with pytest.raises(ValueError, match="format version 4, newer than this cradle"):
        cradle.read(str(dst))


def test_wrong_version(runs, tmp_path):
    dst = tmp_path / "v1.h5"
    dst.write_bytes(open(runs["chain"][0], "rb").read())
    with h5py.File(dst, "a") as f:
        f.attrs["format_version"] = 1
    with pytest.raises(ValueError, match="format.version"):
        cradle.read(str(dst))


def test_isolated_crash_and_hang(tmp_path):
    """A read that crashes or loops in the child is one ValueError here (what
    cradle.read does when HDF5 crashes or loops on a damaged file)."""
    import os
    import signal
    import time
    from cradle import io
    path = str(tmp_path / "x.h5")
    open(path, "wb").write(b"not hdf5")

    def crash(p):
        os.kill(os.getpid(), signal.SIGSEGV)

    def hang(p):
        time.sleep(60)

    with pytest.raises(ValueError, match=r"x\.h5: cannot be read: HDF5 crashed on it \(signal 11\)"):
        io.isolated(crash, path)
    t0 = time.monotonic()
    with pytest.raises(ValueError, match=r"x\.h5: cannot be read: HDF5 did not finish in 1 s"):
        io.isolated(hang, path, timeout=1)
    assert time.monotonic() - t0 < 10
    with pytest.raises(ValueError, match=r"^\S+x\.h5: "):
        cradle.read(path)


def test_read_not_isolated(runs):
    """isolate=False reads in this process: the same Run."""
    a, b = cradle.read(runs["chain"][0]), cradle.read(runs["chain"][0], isolate=False)
    assert (a.time == b.time).all() and len(a.episodes) == len(b.episodes)


def _rewrite_records(f, drop=(), change=None):
    """Each /episode/NNNN/contacts again, without the columns `drop`, with
    change(rows) applied (a file of another writer, or a damaged one)."""
    for k in range(len(f["episodes"])):
        name = "episode/%04d/contacts" % k
        rows = f[name][()]
        keep = [n for n in rows.dtype.names if n not in drop]
        new = np.zeros(len(rows), dtype=[(n, rows.dtype[n]) for n in keep])
        for n in keep:
            new[n] = rows[n]
        if change is not None:
            change(new)
        del f[name]
        f[name] = new


@pytest.mark.parametrize("kind", ["chain", "pool", "spheres"])
def test_peaks_of_older_files(runs, kind, tmp_path):
    """Issue 22: a file written before the located peaks (no /contact_peaks,
    records without peak_force_time and duration) reads; it has no peaks."""
    src = runs[kind][0]
    r = cradle.read(src)
    assert r.contact_peaks is not None and len(r.contact_peaks) == len(r.contacts)
    assert r.located_peaks()
    dst = tmp_path / "older.h5"
    dst.write_bytes(open(src, "rb").read())
    with h5py.File(dst, "a") as f:
        del f["contact_peaks"]
        _rewrite_records(f, drop=("peak_force_time", "duration"))
    old = cradle.read(str(dst))
    assert old.contact_peaks is None and old.located_peaks() == {}
    assert [list(e.contacts["peak_force"]) for e in old.episodes] == \
        [list(e.contacts["peak_force"]) for e in r.episodes]


def _damaged(src, tmp_path, edit):
    dst = tmp_path / "damaged.h5"
    dst.write_bytes(open(src, "rb").read())
    with h5py.File(dst, "a") as f:
        edit(f)
    return str(dst)


def test_peaks_damaged(runs, tmp_path):
    """Issue 23: peaks are checked before they are trusted: a /contact_peaks of
    another length, a negative loaded time, and a record's peak after its
    episode are each refused with one line naming the dataset."""
    src = runs["chain"][0]

    def short(f):
        rows = f["contact_peaks"][()]
        del f["contact_peaks"]
        f["contact_peaks"] = rows[:-1]

    def negative(f):
        rows = f["contact_peaks"][()]
        rows["duration"][0] = -1.0
        f["contact_peaks"][...] = rows

    def late(f):
        end = float(f["episodes"][0]["t_end"])

        def shift(rows):
            rows["peak_force_time"][0] = end + 1.0
        _rewrite_records(f, change=shift)

    for edit, what in ((short, "contact_peaks: shape"), (negative, "contact_peaks duration"),
                       (late, "contacts")):
        with pytest.raises(ValueError, match=what):
            cradle.read(_damaged(src, tmp_path, edit))
