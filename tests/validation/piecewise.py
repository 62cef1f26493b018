"""Exact solution of a chain of balls with linear contacts, written for the
validation checks independently of cradle.

Between contact switches the equations of motion of a chain with linear
spring-dashpot contacts f = K d + C d' (d the overlap) are linear with constant
coefficients, so the state at time s after a switch is expm(A s) z0 with
z = (positions, velocities, 1). Switches are the roots of the contact functions
(closing: d crosses 0 upwards; opening under `gap` release: d crosses 0
downwards; release under `force`: K d + C d' crosses 0 downwards while d > 0;
re-engagement: it turns positive again), bracketed on a grid of 1/200 of the
fastest contact period and refined with Brent's method to 1e-15 relative.
Nothing here comes from cradle.
"""
import numpy as np
from scipy.linalg import expm
from scipy.optimize import brentq

OPEN, LOADED, RELEASED = 0, 1, 2


def linear_chain(m, r, x0, v0, K, C, release, t_max=1e3, max_switches=1000, segments=None):
    """@return (final velocities, time of the last switch, list of (t, contact, what)).
    @p segments: a list that receives (t0, A, z0) for every stretch between
    switches (the last one open-ended), for evaluate()."""
    m = np.asarray(m, float)
    n = len(m)
    nc = n - 1
    K = np.broadcast_to(np.asarray(K, float), (nc,))
    C = np.broadcast_to(np.asarray(C, float), (nc,))
    L = np.array([r[i] + r[i + 1] for i in range(nc)])   # centre distance at touching
    x = np.array(x0, float)
    v = np.array(v0, float)
    t = 0.0
    tiny = 1e-13

    def delta(x):
        return L - (x[1:] - x[:-1])

    def rate(v):
        return v[:-1] - v[1:]

    def matrix(loaded):
        # force of contact c: K (L + x_c - x_{c+1}) + C (v_c - v_{c+1}), pushing c back, c+1 on
        A = np.zeros((2 * n + 1, 2 * n + 1))
        A[:n, n:2 * n] = np.eye(n)
        for c in np.flatnonzero(loaded):
            row = np.zeros(2 * n + 1)
            row[c], row[c + 1], row[2 * n] = K[c], -K[c], K[c] * L[c]
            row[n + c], row[n + c + 1] = C[c], -C[c]
            A[n + c] -= row / m[c]
            A[n + c + 1] += row / m[c + 1]
        return A

    omega = max(np.sqrt(K[c] * (1 / m[c] + 1 / m[c + 1])) for c in range(nc))
    h = 2 * np.pi / omega / 200
    state = np.full(nc, OPEN)
    d, dd = delta(x), rate(v)
    for c in range(nc):
        if d[c] > tiny or (abs(d[c]) <= tiny and dd[c] > tiny):
            state[c] = LOADED
    events = []
    for _ in range(max_switches):
        z0 = np.concatenate([x, v, [1.0]])
        # contacts touching at rest are loaded when the motion presses them together
        d, dd = delta(x), rate(v)
        touching = [c for c in range(nc) if state[c] == OPEN and abs(d[c]) <= tiny and abs(dd[c]) <= tiny]
        if touching:
            trial = state.copy()
            trial[touching] = LOADED
            zs = expm(matrix(trial == LOADED) * (h * 1e-2)) @ z0
            for c in touching:
                if delta(zs[:n])[c] > 0:
                    state[c] = LOADED
        loaded = state == LOADED
        if segments is not None:
            segments.append((t, matrix(loaded), z0))
        if not loaded.any():
            if np.all(dd <= 0):
                return v, t, events
            dt, c = min((-d[c] / dd[c], c) for c in range(nc) if dd[c] > 0)
            x = x + v * dt
            t += dt
            state[c] = LOADED
            events.append((t, c, "close"))
            continue
        A = matrix(loaded)

        def at(s):
            return expm(A * s) @ z0

        def roots(s):
            z = at(s)
            d, dd = delta(z[:n]), rate(z[n:2 * n])
            g = np.empty(nc)
            for c in range(nc):
                law = K[c] * d[c] + C[c] * dd[c]
                if state[c] == LOADED:
                    g[c] = d[c] if release == "gap" else law
                elif state[c] == OPEN:
                    g[c] = -d[c]
                else:
                    g[c] = -law if d[c] > 0 else 1.0
            return g

        s0, g0 = 0.0, roots(0.0)
        g0 = np.where(g0 == 0, 1e-300, g0)   # a function starting at its root moves off it first
        found = None
        while found is None:
            s1 = s0 + h
            if s1 > t_max:
                raise RuntimeError("no contact switch within t_max")
            g1 = roots(s1)
            for c in range(nc):
                if g0[c] > 0 and g1[c] <= 0:
                    q = brentq(lambda s, c=c: roots(s)[c], s0, s1, xtol=1e-16, rtol=1e-15, maxiter=500)
                    if found is None or q < found[0]:
                        found = (q, c)
            s0, g0 = s1, g1
        s, c = found
        z = at(s)
        x, v = z[:n], z[n:2 * n]
        t += s
        if state[c] == LOADED:
            state[c] = OPEN if release == "gap" else RELEASED
            events.append((t, c, "open" if release == "gap" else "release"))
        elif state[c] == OPEN:
            state[c] = LOADED
            events.append((t, c, "close"))
        else:
            state[c] = LOADED
            events.append((t, c, "re-engage"))
        d = delta(x)
        state[(state == RELEASED) & (d < 0)] = OPEN
    raise RuntimeError("too many contact switches")


def evaluate(segments, times):
    """Positions and velocities (rows of 2n) of the exact solution at @p times,
    from the segments linear_chain() recorded: expm(A (t - t0)) z0 on the stretch
    that contains t."""
    starts = np.array([s[0] for s in segments])
    out = []
    for t in np.atleast_1d(times):
        k = max(int(np.searchsorted(starts, t, side="right")) - 1, 0)
        t0, A, z0 = segments[k]
        out.append((expm(A * (t - t0)) @ z0)[:-1])
    return np.array(out)
