"""An undamped Hertz chain integrated independently of cradle (scipy's DOP853,
an explicit Runge-Kutta method of order 8, at rtol 1e-13), for the validation
checks. State: overlaps d (not positions: d ~ 1e-2 of the positions would lose
digits to cancellation), velocities, and the impulses P = int f dt as extra
states. The contact set switches at d = 0, located by solve_ivp's event
location; a loaded contact's force is K |d|^n sign(d), smooth across d = 0, so
the switch point itself carries no integration error."""
import numpy as np
from scipy.integrate import solve_ivp


def hertz_chain(m, d0, v0, K, n=1.5, rtol=1e-13, atol=1e-16, t_max=100.0, segments=None):
    """@return (final velocities, impulses per contact, time of the last switch).
    @p segments: a list that receives (t0, t1, dense solution) for every stretch
    between switches, for evaluate() (the figure of docs/validation.md)."""
    m = np.asarray(m, float)
    N = len(m)
    nc = N - 1
    d = np.array(d0, float)
    v = np.array(v0, float)
    P = np.zeros(nc)
    t = 0.0
    loaded = d >= 0          # touching at rest counts as loaded (its force is 0 until compressed)

    def rhs(t, z, act):
        d, v = z[:nc], z[nc:nc + N]
        f = np.where(act, K * np.abs(d) ** n * np.sign(d), 0.0)
        a = np.zeros(N)
        a[:-1] -= f / m[:-1]
        a[1:] += f / m[1:]
        return np.concatenate([v[:-1] - v[1:], a, f])

    for _ in range(1000):
        if not loaded.any() and np.all(v[:-1] - v[1:] <= 0):
            return v, P, t
        events = []
        for c in range(nc):
            s = -1.0 if loaded[c] else 1.0
            ev = lambda t, z, act, c=c, s=s: z[c] - s * 1e-300   # never exactly 0 at the start
            ev.direction = s
            ev.terminal = True
            events.append(ev)
        sol = solve_ivp(rhs, (t, t + t_max), np.concatenate([d, v, P]), method="DOP853",
                        rtol=rtol, atol=atol, events=events, args=(loaded.copy(),),
                        dense_output=segments is not None)
        if segments is not None:
            segments.append((sol.t[0], sol.t[-1], sol.sol))
        z = sol.y[:, -1]
        d, v, P, t = z[:nc], z[nc:nc + N], z[nc + N:], sol.t[-1]
        hit = [c for c in range(nc) if len(sol.t_events[c])]
        if not hit:
            raise RuntimeError("no contact switch within t_max")
        for c in hit:
            loaded[c] = not loaded[c]
    raise RuntimeError("too many contact switches")


def evaluate(segments, times):
    """Overlaps, velocities and impulses (rows) at @p times within the recorded
    stretches (the state is constant after the last switch but for the overlaps,
    which are not needed there)."""
    out = []
    for t in np.atleast_1d(times):
        k = next((i for i, s in enumerate(segments) if t <= s[1]), len(segments) - 1)
        t0, t1, sol = segments[k]
        out.append(sol(min(max(t, t0), t1)))
    return np.array(out)
