"""The plain objects a run is read into (from a file or from libcradle)."""
from dataclasses import dataclass, field
from typing import Optional

import numpy as np


@dataclass
class Episode:
    """One impact episode (docs/design.md, "Contact states and episodes").

    Per-contact records are a numpy structured array with the columns of
    /episode/NNNN/contacts: contact, body_a, body_b, impulse, compression,
    expansion, gamma_minus, gamma_plus, newton, poisson, alpha, peak_overlap,
    peak_force, closings, openings, flags, and (files since the located peaks)
    peak_force_time and duration (the contact's loaded time).
    """
    index: int
    t_start: float
    t_end: float
    reference: int
    reference_record: int
    T_minus: float
    T_plus: float
    kappa: float
    field_work: float
    dissipated: float
    complete: bool
    bodies: np.ndarray                 # (B,) int
    mass: np.ndarray                   # (B,) kg, inf for a fixed body
    velocity_before: np.ndarray        # (B, dim) m/s
    velocity_after: np.ndarray         # (B, dim) m/s
    contacts: np.ndarray               # (R,) structured
    vector_impulse: np.ndarray         # (R, dim) N s
    normal: np.ndarray                 # (R, dim)
    events: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    M_diagonal: Optional[np.ndarray] = None
    W: Optional[dict] = None           # {"row", "col", "value", "shape"} (file only)


@dataclass
class Collision:
    """Episodes of one impact taken together (docs/design.md, collisions).

    contacts: structured array with contact, body_a, body_b, impulse,
    compression, expansion, alpha, episode_count.
    """
    index: int
    t_start: float
    t_end: float
    reference: int
    reference_record: int
    T_minus: float
    T_plus: float
    kappa: float
    field_work: float
    dissipated: float
    complete: bool
    episodes: np.ndarray               # (E,) rows of run.episodes
    bodies: np.ndarray                 # (B,)
    velocity_before: np.ndarray        # (B, dim)
    velocity_after: np.ndarray         # (B, dim)
    contacts: np.ndarray               # (R,) structured
    vector_impulse: np.ndarray         # (R, dim)


@dataclass
class Run:
    """A run: model data, trajectory, events, episodes, collisions.

    Arrays are numpy; per-body vectors are (..., N, dim). `overlap`, `force`
    and `impulse` (T, C) exist for chains only (fixed contact set), else None.
    `comparison` holds the /comparison group when the file has one, as nested
    dicts of numpy arrays with their attributes under "attrs".
    """
    path: Optional[str]
    attrs: dict
    kind: str
    dim: int
    name: str
    model_text: str
    mass: np.ndarray
    radius: np.ndarray
    fixed: np.ndarray
    position0: np.ndarray
    velocity0: np.ndarray
    gravity: np.ndarray
    wall_normal: np.ndarray
    wall_offset: np.ndarray
    time: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    kinetic_energy: np.ndarray
    potential_energy: np.ndarray
    dissipated_work: np.ndarray
    overlap: Optional[np.ndarray]
    force: Optional[np.ndarray]
    impulse: Optional[np.ndarray]
    final_time: float
    final_position: np.ndarray
    final_velocity: np.ndarray
    contacts: np.ndarray               # structured, /contacts columns
    events: np.ndarray                 # structured: time, contact, kind, overlap, rate, force, impulse
    event_kinds: dict                  # name -> value
    episodes: list
    collisions: list
    collision_window: float = float("nan")
    free_flight: float = float("nan")
    comparison: Optional[dict] = None
    # /contact_peaks (None in files before the located peaks): per row of
    # /contacts, the largest located peak force over the episodes, its time
    # and episode, the largest overlap, the loaded time and the episodes
    contact_peaks: Optional[np.ndarray] = None
    # /restart (None in files before it): the last trajectory time between
    # episodes and the bodies' state there, where `cradle run --continue` starts
    restart_time: float = float("nan")
    restart_position: Optional[np.ndarray] = None
    restart_velocity: Optional[np.ndarray] = None

    @property
    def body_count(self):
        return len(self.mass)

    @property
    def moving(self):
        """Mask of the bodies that move (not fixed)."""
        return self.fixed == 0

    def located_peaks(self):
        """Per contact: (times, forces) of its located force maxima, one per
        episode record (docs/hdf5-layout.md, peak_force_time). Empty for
        files written before the located peaks."""
        out = {}
        for e in self.episodes:
            c = e.contacts
            if len(c) == 0 or "peak_force_time" not in c.dtype.names:
                continue
            for r in c[np.isfinite(c["peak_force_time"]) & (c["peak_force"] > 0)]:
                t, f = out.setdefault(int(r["contact"]), ([], []))
                t.append(float(r["peak_force_time"]))
                f.append(float(r["peak_force"]))
        return {k: (np.array(t), np.array(f)) for k, (t, f) in sorted(out.items())}

    def episode_collision(self):
        """For each episode, the index of its collision."""
        out = np.full(len(self.episodes), -1, dtype=np.int64)
        for c in self.collisions:
            out[c.episodes] = c.index
        return out
