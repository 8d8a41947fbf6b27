/* Snapshot files (GUIDE "Files"): one collective MPI-IO HDF5 file per output step, each rank
 * writing its owned rows as one hyperslab; the file appears under its final name only once
 * complete (IoH5Output: a unique temporary, close, fsync, rename), and the XDMF index is then
 * rebuilt by rank 0.
 *
 * Besides the GUIDE's datasets, /bodies/shape (int32, ShapeKind) and /bodies/half_extents (n x 3;
 * box half extents, (r, r, r) for a sphere: the half extents of its bounding cube) let ParaView
 * draw boxes, and /boxes/ holds the box bodies alone (id, position, quaternion, half_extents,
 * velocity, angular_velocity (world), rank, material; b rows, possibly 0) for their own grid in the
 * XDMF index.
 *
 * With walls: /walls/type (int32, WallType), /walls/force, /walls/torque, /walls/torque_point (one
 * row of 3 per wall: the last step's force on the wall in N, its torque in N m about the torque
 * point), and per wall kind with cells to draw (io/wall_output.h) /walls/<kind>/vertices (rows of 3),
 * /walls/<kind>/cells (int64 connectivity, a row of nodes_per_cell per cell), /walls/<kind>/wall
 * (int32, the wall of each cell), /walls/<kind>/force and /walls/<kind>/torque (each cell's wall's);
 * rank 0 writes them. With output.contacts: /contacts/id_a, /contacts/id_b (int64),
 * /contacts/point, /contacts/normal, /contacts/normal_force (n), /contacts/tangential_force (one row
 * per contact, each rank its own), and the lines ParaView draws: /contacts/line_points (2 rows per
 * contact: A's centre, B's centre) and /contacts/lines (int64, a row of 2 point indices each).
 * With clumps: /clump_members/id (int64, the body's), /clump_members/member (int32, index in its
 * template), /clump_members/position (world centre), /clump_members/radius: a row per member. */
#include "io/snapshot.h"
#include "io/h5.h"
#include "base/vec3.h"
#include "io/output_file.h"
#include "io/xdmf.h"
#include "io/wall_output.h"
#include "io/wall_series.h"
#include <inttypes.h>
#include <string.h>

/* /bodies/<datasets> of the owned bodies [0, s->n_owned). Collective. */
static PetscErrorCode WriteBodies(MPI_Comm comm, IoH5Output *out, const BodyStore *s)
{
  const PetscInt n = s->n_owned;
  IoH5Rows       rows;
  double        *vec3s; /* n x 3 scratch for the fields not stored contiguously */
  int32_t       *ranks;
  PetscMPIInt    rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc2(3 * n + 1, &vec3s, n + 1, &ranks));
  PetscCall(IoH5RowsCreate(comm, n, &rows));
  PetscCall(IoH5CreateGroup(out, "bodies"));

  PetscCall(IoH5WriteRows(out, "/bodies/id", H5T_NATIVE_INT64, 1, &rows, s->id));
  PetscCall(IoH5WriteRows(out, "/bodies/position", H5T_NATIVE_DOUBLE, 3, &rows, s->pos));
  PetscCall(IoH5WriteRows(out, "/bodies/quaternion", H5T_NATIVE_DOUBLE, 4, &rows, s->quat));
  for (PetscInt i = 0; i < n; i++) v3_copy(&vec3s[3 * i], &s->vel[6 * i]);
  PetscCall(IoH5WriteRows(out, "/bodies/velocity", H5T_NATIVE_DOUBLE, 3, &rows, vec3s));
  for (PetscInt i = 0; i < n; i++)
    quat_rotate(&vec3s[3 * i], &s->quat[4 * i], &s->vel[6 * i + 3]); /* body -> world frame */
  PetscCall(IoH5WriteRows(out, "/bodies/angular_velocity", H5T_NATIVE_DOUBLE, 3, &rows, vec3s));
  PetscCall(IoH5WriteRows(out, "/bodies/radius", H5T_NATIVE_DOUBLE, 1, &rows, s->radius));
  PetscCall(IoH5WriteRows(out, "/bodies/material", H5T_NATIVE_INT32, 1, &rows, s->material));
  for (PetscInt i = 0; i < n; i++) ranks[i] = rank;
  PetscCall(IoH5WriteRows(out, "/bodies/rank", H5T_NATIVE_INT32, 1, &rows, ranks));
  PetscCall(IoH5WriteRows(out, "/bodies/shape", H5T_NATIVE_INT32, 1, &rows, s->shape));
  for (PetscInt i = 0; i < n; i++) {
    const double *size = &s->size[3 * i];
    if (s->shape[i] == SHAPE_SPHERE) v3_set(&vec3s[3 * i], size[0], size[0], size[0]);
    else v3_copy(&vec3s[3 * i], size);
  }
  PetscCall(IoH5WriteRows(out, "/bodies/half_extents", H5T_NATIVE_DOUBLE, 3, &rows, vec3s));

  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(PetscFree2(vec3s, ranks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /clump_members/<datasets>: one row per member of every owned clump body: its body's id, its
 * index in the template (member), its world centre (position) and radius, for ParaView to draw
 * as spheres. Collective (every rank joins, clumps or not). */
static PetscErrorCode WriteClumpMembers(MPI_Comm comm, IoH5Output *out, const BodyStore *s, const Clump *clumps)
{
  PetscInt n = 0, r = 0;
  IoH5Rows rows;
  double  *x, *radius;
  int64_t *ids;
  int32_t *member;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < s->n_owned; i++)
    if (s->shape[i] == SHAPE_CLUMP) n += clumps[(int)s->size[3 * i]].n;
  PetscCall(PetscMalloc4(3 * n + 1, &x, n + 1, &radius, n + 1, &ids, n + 1, &member));
  for (PetscInt i = 0; i < s->n_owned; i++) {
    const Clump *t = s->shape[i] == SHAPE_CLUMP ? &clumps[(int)s->size[3 * i]] : NULL;
    for (int k = 0; t && k < t->n; k++, r++) {
      clump_member_centre(t, &s->pos[3 * i], &s->quat[4 * i], k, &x[3 * r]);
      radius[r] = t->radius[k];
      ids[r]    = s->id[i];
      member[r] = k;
    }
  }
  PetscCall(IoH5RowsCreate(comm, n, &rows));
  PetscCall(IoH5CreateGroup(out, "clump_members"));
  PetscCall(IoH5WriteRows(out, "/clump_members/id", H5T_NATIVE_INT64, 1, &rows, ids));
  PetscCall(IoH5WriteRows(out, "/clump_members/member", H5T_NATIVE_INT32, 1, &rows, member));
  PetscCall(IoH5WriteRows(out, "/clump_members/position", H5T_NATIVE_DOUBLE, 3, &rows, x));
  PetscCall(IoH5WriteRows(out, "/clump_members/radius", H5T_NATIVE_DOUBLE, 1, &rows, radius));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(PetscFree4(x, radius, ids, member));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /boxes/<datasets>: the owned box bodies again. Collective (every rank joins, boxes or not). */
static PetscErrorCode WriteBoxes(MPI_Comm comm, IoH5Output *out, const BodyStore *s)
{
  PetscInt    nbox = 0;
  PetscInt   *pick;
  IoH5Rows    rows;
  double     *d;
  int64_t    *ids;
  int32_t    *ints;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(s->n_owned + 1, &pick));
  for (PetscInt i = 0; i < s->n_owned; i++)
    if (s->shape[i] == SHAPE_BOX) pick[nbox++] = i;
  PetscCall(PetscMalloc3(4 * nbox + 1, &d, nbox + 1, &ids, nbox + 1, &ints));
  PetscCall(IoH5RowsCreate(comm, nbox, &rows));
  PetscCall(IoH5CreateGroup(out, "boxes"));
  for (PetscInt k = 0; k < nbox; k++) ids[k] = s->id[pick[k]];
  PetscCall(IoH5WriteRows(out, "/boxes/id", H5T_NATIVE_INT64, 1, &rows, ids));
  for (PetscInt k = 0; k < nbox; k++) v3_copy(&d[3 * k], &s->pos[3 * pick[k]]);
  PetscCall(IoH5WriteRows(out, "/boxes/position", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt k = 0; k < nbox; k++) v3_copy(&d[3 * k], &s->size[3 * pick[k]]);
  PetscCall(IoH5WriteRows(out, "/boxes/half_extents", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt k = 0; k < nbox; k++) v3_copy(&d[3 * k], &s->vel[6 * pick[k]]);
  PetscCall(IoH5WriteRows(out, "/boxes/velocity", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt k = 0; k < nbox; k++)
    quat_rotate(&d[3 * k], &s->quat[4 * pick[k]], &s->vel[6 * pick[k] + 3]); /* body -> world frame */
  PetscCall(IoH5WriteRows(out, "/boxes/angular_velocity", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt k = 0; k < nbox; k++)
    for (int c = 0; c < 4; c++) d[4 * k + c] = s->quat[4 * pick[k] + c];
  PetscCall(IoH5WriteRows(out, "/boxes/quaternion", H5T_NATIVE_DOUBLE, 4, &rows, d));
  for (PetscInt k = 0; k < nbox; k++) ints[k] = rank;
  PetscCall(IoH5WriteRows(out, "/boxes/rank", H5T_NATIVE_INT32, 1, &rows, ints));
  for (PetscInt k = 0; k < nbox; k++) ints[k] = s->material[pick[k]];
  PetscCall(IoH5WriteRows(out, "/boxes/material", H5T_NATIVE_INT32, 1, &rows, ints));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(PetscFree3(d, ids, ints));
  PetscCall(PetscFree(pick));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /walls/<datasets> (io/wall_output.h). Collective: every rank makes the same calls (the walls are
 * replicated), rank 0 writes the rows. */
static PetscErrorCode WriteWalls(MPI_Comm comm, IoH5Output *out, const SnapshotExtras *x)
{
  const PetscInt        nw = x->n_walls;
  const WallOutputKind *kinds;
  PetscMPIInt           rank;
  IoH5Rows              rows;
  int32_t              *types;
  double               *d;
  int                   nkinds;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(IoH5CreateGroup(out, "walls"));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? nw : 0, &rows));
  PetscCall(PetscMalloc2(nw, &types, 3 * nw, &d));
  for (PetscInt k = 0; k < nw; k++) types[k] = (int32_t)x->walls[k].type;
  PetscCall(IoH5WriteRows(out, "/walls/type", H5T_NATIVE_INT32, 1, &rows, types));
  for (int part = 0; part < 3; part++) {
    static const char *const names[3] = {"/walls/force", "/walls/torque", "/walls/torque_point"};
    for (PetscInt k = 0; k < nw; k++) v3_copy(d + 3 * k, x->wall_loads + 9 * k + 3 * part);
    PetscCall(IoH5WriteRows(out, names[part], H5T_NATIVE_DOUBLE, 3, &rows, d));
  }
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(PetscFree2(types, d));

  kinds = WallOutputKinds(&nkinds);
  for (int j = 0; j < nkinds; j++) {
    const WallOutputKind *kind   = &kinds[j];
    const int             npc    = kind->nodes_per_cell;
    PetscInt              ncells = 0, at = 0;
    double               *xyz, *load;
    int64_t              *conn;
    int32_t              *owner;
    char                  name[64];

    for (PetscInt k = 0; k < nw; k++)
      if (x->walls[k].type == kind->type) ncells += kind->cells(&x->walls[k], x->domain_min, x->domain_max, NULL);
    if (!ncells) continue; /* no group: readers reject zero-size items */
    PetscCall(PetscMalloc4(3 * npc * ncells, &xyz, npc * ncells, &conn, ncells, &owner, 6 * ncells, &load));
    for (PetscInt k = 0; k < nw; k++) {
      PetscInt n;
      if (x->walls[k].type != kind->type) continue;
      n = kind->cells(&x->walls[k], x->domain_min, x->domain_max, xyz + 3 * npc * at);
      for (PetscInt c = at; c < at + n; c++) {
        owner[c] = (int32_t)k;
        for (int v = 0; v < 6; v++) load[6 * c + v] = x->wall_loads[9 * k + v];
      }
      at += n;
    }
    for (PetscInt v = 0; v < npc * ncells; v++) conn[v] = v;
    PetscCall(PetscSNPrintf(name, sizeof(name), "walls/%s", kind->name));
    PetscCall(IoH5CreateGroup(out, name));
    PetscCall(IoH5RowsCreate(comm, rank == 0 ? npc * ncells : 0, &rows));
    PetscCall(PetscSNPrintf(name, sizeof(name), "/walls/%s/vertices", kind->name));
    PetscCall(IoH5WriteRows(out, name, H5T_NATIVE_DOUBLE, 3, &rows, xyz));
    PetscCall(IoH5RowsDestroy(&rows));
    PetscCall(IoH5RowsCreate(comm, rank == 0 ? ncells : 0, &rows));
    PetscCall(PetscSNPrintf(name, sizeof(name), "/walls/%s/cells", kind->name));
    PetscCall(IoH5WriteRows(out, name, H5T_NATIVE_INT64, npc, &rows, conn));
    PetscCall(PetscSNPrintf(name, sizeof(name), "/walls/%s/wall", kind->name));
    PetscCall(IoH5WriteRows(out, name, H5T_NATIVE_INT32, 1, &rows, owner));
    for (int part = 0; part < 2; part++) {
      for (PetscInt c = 0; c < ncells; c++) v3_copy(xyz + 3 * c, load + 6 * c + 3 * part); /* xyz is written */
      PetscCall(PetscSNPrintf(name, sizeof(name), "/walls/%s/%s", kind->name, part ? "torque" : "force"));
      PetscCall(IoH5WriteRows(out, name, H5T_NATIVE_DOUBLE, 3, &rows, xyz));
    }
    PetscCall(IoH5RowsDestroy(&rows));
    PetscCall(PetscFree4(xyz, conn, owner, load));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /contacts/<datasets>: this rank's contacts. Collective. */
static PetscErrorCode WriteContacts(MPI_Comm comm, IoH5Output *out, const SnapshotExtras *x)
{
  const PetscInt         n = x->n_contacts;
  const SnapshotContact *c = x->contact;
  IoH5Rows               rows, points;
  double                *d;
  int64_t               *ids;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(6 * n + 1, &d, 2 * n + 1, &ids));
  PetscCall(IoH5CreateGroup(out, "contacts"));
  PetscCall(IoH5RowsCreate(comm, n, &rows));
  for (PetscInt i = 0; i < n; i++) ids[i] = c[i].id_a;
  PetscCall(IoH5WriteRows(out, "/contacts/id_a", H5T_NATIVE_INT64, 1, &rows, ids));
  for (PetscInt i = 0; i < n; i++) ids[i] = c[i].id_b;
  PetscCall(IoH5WriteRows(out, "/contacts/id_b", H5T_NATIVE_INT64, 1, &rows, ids));
  for (PetscInt i = 0; i < n; i++) v3_copy(d + 3 * i, c[i].point);
  PetscCall(IoH5WriteRows(out, "/contacts/point", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt i = 0; i < n; i++) v3_copy(d + 3 * i, c[i].normal);
  PetscCall(IoH5WriteRows(out, "/contacts/normal", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt i = 0; i < n; i++) d[i] = c[i].normal_force;
  PetscCall(IoH5WriteRows(out, "/contacts/normal_force", H5T_NATIVE_DOUBLE, 1, &rows, d));
  for (PetscInt i = 0; i < n; i++) v3_copy(d + 3 * i, c[i].tangential_force);
  PetscCall(IoH5WriteRows(out, "/contacts/tangential_force", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt i = 0; i < n; i++) /* this rank's line points start at 2 rows.offset */
    for (int e = 0; e < 2; e++) ids[2 * i + e] = (int64_t)(2 * (rows.offset + i) + e);
  PetscCall(IoH5WriteRows(out, "/contacts/lines", H5T_NATIVE_INT64, 2, &rows, ids));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(IoH5RowsCreate(comm, 2 * n, &points));
  for (PetscInt i = 0; i < n; i++)
    for (int v = 0; v < 6; v++) d[6 * i + v] = c[i].ends[v];
  PetscCall(IoH5WriteRows(out, "/contacts/line_points", H5T_NATIVE_DOUBLE, 3, &points, d));
  PetscCall(IoH5RowsDestroy(&points));
  PetscCall(PetscFree2(d, ids));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* HDF5 needs identical attribute values on every rank of a parallel file; a mismatch would be
 * silently resolved by one rank's value, so it is an error here. */
static PetscErrorCode CheckSameOnAllRanks(MPI_Comm comm, int64_t step, double time)
{
  int64_t root_step = step;
  double  root_time = time;
  int     same, all_same;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Bcast(&root_step, 1, MPI_INT64_T, 0, comm));
  PetscCallMPI(MPI_Bcast(&root_time, 1, MPI_DOUBLE, 0, comm));
  same = root_step == step && !memcmp(&root_time, &time, sizeof(time)); /* bitwise, so NaN counts as equal */
  PetscCallMPI(MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, comm));
  PetscCheck(all_same, comm, PETSC_ERR_ARG_WRONG,
             "SnapshotWrite: step or time differ between ranks (rank 0 has step %" PRId64
             ", time %.17g): pass the same values on every rank",
             root_step, root_time);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective. Rank 0 rewrites index, an index over the snapshots up to step (the XDMF file; with
 * n_walls, the wall series) after the snapshot path was written; a failure to write is agreed:
 * err <- "writing INDEX: reason" on every rank. */
static PetscErrorCode RebuildIndex(MPI_Comm comm, const char *outdir, PetscInt64 step, int n_walls, const char *path,
                                   const char *index, char *err, size_t errlen)
{
  PetscMPIInt    rank;
  PetscErrorCode index_err    = PETSC_SUCCESS;
  int            index_errnum = 0, agreed;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0)
    index_err = n_walls ? WallSeriesWrite(outdir, step, n_walls, &index_errnum)
                        : XdmfWriteSnapshotIndex(outdir, step, &index_errnum);
  PetscCallMPI(MPI_Bcast(&index_err, 1, MPI_INT, 0, comm));
  PetscCheck(index_err == PETSC_SUCCESS, comm, PETSC_ERR_PLIB, "Wrote %s but could not update %s (see the error above)",
             path, index);
  PetscCall(IoAgree(comm, index_errnum, &agreed));
  IoFailureMessage(err, errlen, index, agreed);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SnapshotWrite(MPI_Comm comm, const char *outdir, PetscInt64 step, double time, const BodyStore *s,
                             const SnapshotExtras *extra, char *err, size_t errlen)
{
  char          dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], index[PETSC_MAX_PATH_LEN];
  const int64_t step64 = step;
  IoH5Output    out;

  PetscFunctionBegin;
  PetscCheck(step >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "SnapshotWrite: negative step %" PetscInt64_FMT, step);
  PetscCall(CheckSameOnAllRanks(comm, step64, time));
  PetscCall(IoPathPrintf(dir, sizeof(dir), "%s/snapshots", outdir));
  PetscCall(IoMakeDirs(comm, dir, err, errlen));
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoPathPrintf(path, sizeof(path), "%s/snap-%06" PRId64 ".h5", dir, step64));

  PetscCall(IoH5OutputBegin(comm, path, &out));
  for (int pass = 0; pass < 2; pass++) { /* measure, then write (io/h5.h IoH5Output) */
    if (pass) PetscCall(IoH5OutputCreate(&out));
    PetscCall(IoH5WriteAttribute(&out, "step", H5T_NATIVE_INT64, &step64));
    PetscCall(IoH5WriteAttribute(&out, "time", H5T_NATIVE_DOUBLE, &time));
    PetscCall(WriteBodies(comm, &out, s));
    PetscCall(WriteBoxes(comm, &out, s));
    if (extra && extra->n_walls) PetscCall(WriteWalls(comm, &out, extra));
    if (extra && extra->contacts) PetscCall(WriteContacts(comm, &out, extra));
    if (extra && extra->clumps) PetscCall(WriteClumpMembers(comm, &out, s, extra->clumps));
  }
  PetscCall(IoH5OutputFinish(&out, err, errlen));
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);

  /* Rank 0 rebuilds the indexes over the snapshots; the outcome is shared so that no rank carries on alone. */
  PetscCall(IoPathPrintf(index, sizeof(index), "%s/snapshots.xmf", outdir));
  PetscCall(RebuildIndex(comm, outdir, step, 0, path, index, err, errlen));
  if (err[0] || !extra || !extra->n_walls) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoPathPrintf(index, sizeof(index), "%s/walls.csv", outdir));
  PetscCall(RebuildIndex(comm, outdir, step, extra->n_walls, path, index, err, errlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}
