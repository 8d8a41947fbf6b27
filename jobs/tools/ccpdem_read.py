"""Read ccpdem's outputs into numpy arrays (numpy and h5py: Debian's python3-numpy, python3-h5py).

    import ccpdem_read as cr
    ts = cr.read_timeseries("out")              # {"step": array, "time": array, "kinetic_energy": ...}
    for step, path in cr.list_snapshots("out"):
        snap = cr.read_snapshot(path)            # snap["bodies"]["position"]: n x 3, rows sorted by id
    bodies = cr.read_checkpoint_bodies("out/checkpoints/ckpt-000400.h5")
    walls = cr.read_wall_series("out")          # {"step": ..., "force": steps x walls x 3, ...}

The layouts are those of README "Outputs" (io/snapshot.c, io/checkpoint.c, io/timeseries.c,
io/wall_series.h). Rows of a snapshot or checkpoint are in no particular order in the file (each
rank writes its own); every reader here sorts them by body id (contacts by the pair of ids), so
the arrays do not depend on the rank count of the run.
"""
import csv
import os
import re

import h5py
import numpy as np

_SNAPSHOT_NAME = re.compile(r"^snap-(\d{6,18})\.h5$")


def _sorted_group(group, order_keys):
    """The datasets of an HDF5 group with one row per item as numpy arrays, rows permuted by
    np.lexsort(order_keys(arrays)); datasets with another number of rows are left out."""
    arrays = {name: group[name][()] for name in group if isinstance(group[name], h5py.Dataset)}
    order = np.lexsort(order_keys(arrays))
    return {name: a[order] for name, a in arrays.items() if len(a) == len(order)}


def list_snapshots(outdir):
    """The snapshots of output directory outdir as a list of (step, path), sorted by step.

    Only files named snap-<step>.h5 in outdir/snapshots count (temporaries of a killed run do not).
    A directory without snapshots gives an empty list.
    """
    folder = os.path.join(outdir, "snapshots")
    if not os.path.isdir(folder):
        return []
    found = []
    for name in os.listdir(folder):
        m = _SNAPSHOT_NAME.match(name)
        if m:
            found.append((int(m.group(1)), os.path.join(folder, name)))
    return sorted(found)


def read_snapshot(path):
    """One snapshot file as a dict.

    Keys: "step" (int), "time" (float, s); "bodies": a dict of arrays with one row per body, sorted
    by id: id, position (n x 3, m), quaternion (n x 4, w first), velocity (n x 3, m/s),
    angular_velocity (n x 3, rad/s, world frame), radius (bounding radius, m), material, rank (the
    owner when written), shape (0 sphere, 1 box), half_extents (n x 3, m). When the snapshot has
    them: "contacts" (output.contacts: id_a, id_b, point, normal, normal_force in N,
    tangential_force in N, line_points (n x 2 x 3: A's centre, B's centre); rows sorted by
    (id_a, id_b)) and "walls" (type, force in N,
    torque in N m about torque_point, one row per wall in scenario order); else those keys are
    absent.
    """
    with h5py.File(path, "r") as f:
        snap = {"step": int(f.attrs["step"]), "time": float(f.attrs["time"])}
        snap["bodies"] = _sorted_group(f["bodies"], lambda a: (a["id"],))
        if "contacts" in f:
            contacts = f["contacts"]
            snap["contacts"] = _sorted_group(contacts, lambda a: (a["id_b"], a["id_a"]))
            # line_points has 2 rows per contact (A's centre, B's centre), which lines indexes: contact by contact
            lines = snap["contacts"].pop("lines")
            snap["contacts"]["line_points"] = contacts["line_points"][()][lines]
        if "walls" in f:
            walls = f["walls"]
            snap["walls"] = {name: walls[name][()] for name in ("type", "force", "torque", "torque_point")}
    return snap


def read_snapshots(outdir):
    """Every snapshot of outdir (read_snapshot's dicts), in step order: a generator, one file at a time."""
    for _, path in list_snapshots(outdir):
        yield read_snapshot(path)


def read_checkpoint_bodies(path):
    """The bodies of a checkpoint file as a dict of arrays, one row per body, sorted by id.

    Keys: "step", "time" (the checkpoint's), and id, position (m), quaternion (w first), velocity
    (m/s, world), angular_velocity_body (rad/s, body frame: as the integrator keeps it), mass (kg),
    inertia (n x 3, principal moments, kg m^2), shape (0 sphere, 1 box), size (sphere: radius in
    column 0; box: half extents), radius (bounding, m), material.
    """
    with h5py.File(path, "r") as f:
        raw = _sorted_group(f["bodies"], lambda a: (a["id"],))
        out = {"step": int(f.attrs["step"]), "time": float(f.attrs["time"])}
    renames = {"pos": "position", "quat": "quaternion"}
    for name, a in raw.items():
        if name == "vel":
            out["velocity"], out["angular_velocity_body"] = a[:, :3], a[:, 3:]
        else:
            out[renames.get(name, name)] = a
    return out


def _read_csv(path):
    """A CSV file with a header line as a dict: column name -> float64 array (integers are exact up to 2^53)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    data = np.array(body, dtype=np.float64).reshape(len(body), len(header))
    return {name: data[:, k] for k, name in enumerate(header)}


def read_timeseries(outdir):
    """outdir/timeseries.csv (one row per step) as a dict: column name -> array.

    Columns as README "Outputs" lists them: step, time, bodies, contacts, iterations, residual_max,
    residual_rms, converged, max_speed, kinetic_energy, potential_energy, wall_* (seconds per phase),
    ghosts, imbalance, bytes_sent. Doubles were written with 17 digits: they read back bitwise.
    """
    return _read_csv(os.path.join(outdir, "timeseries.csv"))


def read_wall_series(outdir):
    """outdir/walls.csv (one row per snapshot) as a dict of arrays.

    Keys: "step", "time" (s), and per row and wall "force" (rows x walls x 3, N, on the wall),
    "torque" (rows x walls x 3, N m, about "point") and "point" (rows x walls x 3, m), walls in
    scenario order. A run without walls has no walls.csv: FileNotFoundError.
    """
    raw = _read_csv(os.path.join(outdir, "walls.csv"))
    n_walls = sum(1 for name in raw if re.match(r"^wall\d+_fx_N$", name))
    out = {"step": raw["step"].astype(np.int64), "time": raw["time_s"]}
    for key, prefix, unit in (("force", "f", "N"), ("torque", "t", "Nm"), ("point", "p", "m")):
        out[key] = np.stack([np.stack([raw[f"wall{k}_{prefix}{c}_{unit}"] for c in "xyz"], axis=1)
                             for k in range(n_walls)], axis=1) if n_walls else np.zeros((len(out["step"]), 0, 3))
    return out
