#!/usr/bin/python3
"""The relaxed CCP of an FCLIB global problem solved exactly by an independent method, and compared
with a solution: cone_qp.py PROBLEM.hdf5 SOLUTION.hdf5 TOL

Reads PROBLEM's /fclib_global (h5py, any of FCLIB's three sparse forms) and solves, with cvxopt's
interior-point cone QP, the second-order-cone program of the relaxed problem
    minimize 1/2 v^T M v - f^T v   subject to  u = H^T v + w in the dual friction cones,
per contact mu ||u_t|| <= u_n, i.e. s = (u_n, mu u_t) in the standard second-order cone. Its KKT
conditions are the relaxed CCP: M v = f + H r with r = (z_0, mu z_1, mu z_2), z the cone multiplier,
in the friction cone ||r_t|| <= mu r_n, and r orthogonal to u. u is unique (M is positive definite,
so v is), r need not be, so u is compared: prints the largest |u - u_exact| and exits 1 if it is
above TOL (or the SOCP did not reach its optimum). No ccpdem code is used."""
import sys
import h5py
import numpy as np
from cvxopt import matrix, spmatrix, solvers


def sparse(g):
    """FCLIB matrix group g as (rows, cols, values, m, n)."""
    m, n, nz = int(g["m"][0]), int(g["n"][0]), int(g["nz"][0])
    p, i, x = np.array(g["p"]), np.array(g["i"]), np.array(g["x"])
    if nz >= 0:  # triplet
        return p[:nz], i[:nz], x[:nz], m, n
    ptr_dim = n if nz == -1 else m
    major = np.repeat(np.arange(ptr_dim), np.diff(p))
    minor, x = i[: p[-1]], x[: p[-1]]
    return (minor, major, x, m, n) if nz == -1 else (major, minor, x, m, n)


def main():
    problem, solution, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with h5py.File(problem, "r") as fp:
        g = fp["fclib_global"]
        Mr, Mc, Mx, n, _ = sparse(g["M"])
        Hr, Hc, Hx, _, m = sparse(g["H"])
        f = np.array(g["vectors/f"])
        w = np.array(g["vectors/w"])
        mu = np.array(g["vectors/mu"])
    with h5py.File(solution, "r") as fs:
        u_ccpdem = np.array(fs["solution/u"])
    nc = m // 3
    t = np.ones(m)  # s = T (H^T v + w), T = diag(1, mu, mu) per contact
    t[1::3] = mu
    t[2::3] = mu
    # the objective times k = 1 / (M's largest diagonal entry, a mass): the cone multipliers z are
    # then impulses over a mass, velocity changes of the size of the velocities, so that cvxopt's
    # absolute tolerances act on the problem's scale (unscaled, its multipliers of 1e-6 N s left
    # sliding directions 1e-3 off and u 4e-7 m/s from ccpdem's; scaled, 1e-8)
    k = 1.0 / np.max(Mx[Mr == Mc]) if n else 1.0
    P = spmatrix((k * Mx).tolist(), Mr.tolist(), Mc.tolist(), (n, n))
    q = matrix((-k * f).tolist())
    # G v + s = h with s = T (H^T v + w): G = -T H^T, h = T w
    G = spmatrix((-t[Hc] * Hx).tolist(), Hc.tolist(), Hr.tolist(), (m, n))
    h = matrix((t * w).tolist())
    solvers.options.update({"show_progress": False, "abstol": 1e-13, "reltol": 1e-13, "feastol": 1e-13,
                            "maxiters": 200})
    sol = solvers.coneqp(P, q, G, h, dims={"l": 0, "q": [3] * nc, "s": []})
    v = np.array(sol["x"]).ravel()
    u = np.zeros(m)
    np.add.at(u, Hc, Hx * v[Hr])
    u += w
    err = np.max(np.abs(u - u_ccpdem)) if m else 0.0
    # "unknown": cvxopt stopped short of its 1e-13 tolerances (it cannot make progress); accepted
    # when its residuals are still far below what the comparison resolves
    pinf, dinf = sol["primal infeasibility"], sol["dual infeasibility"]
    ok = sol["status"] == "optimal" or (pinf is not None and dinf is not None and max(pinf, dinf) < 1e-9)
    print(f"{problem}: {nc} contacts, cvxopt {sol['status']} in {sol['iterations']} iterations (gap {sol['gap']:.1e}, "
          f"infeasibilities {pinf:.1e} {dinf:.1e}), "
          f"max |u - u_exact| = {err:.3e} m/s (tolerance {tol:g}), max |u| = {np.max(np.abs(u)) if m else 0:.3e} m/s")
    sys.exit(0 if ok and err <= tol else 1)


if __name__ == "__main__":
    main()
