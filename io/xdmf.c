/* The XDMF index of the snapshots: rebuilt from the directory each time, so it stays right across
 * restarts, deleted files and runs killed between a snapshot and its index update. */
#include "io/xdmf.h"
#include "io/snapshot_scan.h"
#include "io/wall_output.h"
#include "io/h5.h"
#include "io/output_file.h"
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The per-body datasets shown as point attributes (the writer is io/snapshot.c). */
typedef struct {
  const char *name, *attribute_type, *number_type;
  int         width, precision;
} PointAttribute;

static const PointAttribute point_attributes[] = {
  {"radius", "Scalar", "Float", 1, 8},
  {"velocity", "Vector", "Float", 3, 8},
  {"angular_velocity", "Vector", "Float", 3, 8},
  {"id", "Scalar", "Int", 1, 8},
  {"rank", "Scalar", "Int", 1, 4},
  {"material", "Scalar", "Int", 1, 4},
  {"shape", "Scalar", "Int", 1, 4},
  {"half_extents", "Vector", "Float", 3, 8},
  {"quaternion", "Matrix", "Float", 4, 8},
};

/* The box bodies again, in their own grid (/boxes: the writer's BOX_DATASETS). */
static const PointAttribute box_attributes[] = {
  {"half_extents", "Vector", "Float", 3, 8},
  {"quaternion", "Matrix", "Float", 4, 8},
  {"velocity", "Vector", "Float", 3, 8},
  {"angular_velocity", "Vector", "Float", 3, 8},
  {"id", "Scalar", "Int", 1, 8},
  {"rank", "Scalar", "Int", 1, 4},
  {"material", "Scalar", "Int", 1, 4},
};

/* The clumps' member spheres (/clump_members), a point each: glyph them as spheres by radius. */
static const PointAttribute member_attributes[] = {
  {"radius", "Scalar", "Float", 1, 8},
  {"id", "Scalar", "Int", 1, 8},
  {"member", "Scalar", "Int", 1, 4},
};

/* The contact network (/contacts) as lines between the two bodies' centres, attributes per line. */
static const PointAttribute contact_attributes[] = {
  {"id_a", "Scalar", "Int", 1, 8},           {"id_b", "Scalar", "Int", 1, 8},
  {"point", "Vector", "Float", 3, 8},        {"normal", "Vector", "Float", 3, 8},
  {"normal_force", "Scalar", "Float", 1, 8}, {"tangential_force", "Vector", "Float", 3, 8},
};

/* A wall kind's cells (/walls/<kind>), attributes per cell: its wall's index and loads. */
static const PointAttribute wall_attributes[] = {
  {"wall", "Scalar", "Int", 1, 4},
  {"force", "Vector", "Float", 3, 8},
  {"torque", "Vector", "Float", 3, 8},
};

/* Text to the index; a failure is kept in t (io/output_file.h) and ends the writing there. */
static PetscErrorCode Emit(IoText *t, const char *fmt, ...) PETSC_ATTRIBUTE_FORMAT(2, 3);
static PetscErrorCode Emit(IoText *t, const char *fmt, ...)
{
  char    line[512];
  va_list ap;
  int     len;

  PetscFunctionBegin;
  va_start(ap, fmt);
  len = vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  PetscCheck(len >= 0 && (size_t)len < sizeof(line), PETSC_COMM_SELF, PETSC_ERR_PLIB, "XDMF line too long: %.60s",
             line);
  (void)IoTextPrintf(t, "%s", line);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* <DataItem> for dataset /<group>/<name> of e's file, rows x width. */
static PetscErrorCode EmitDataItem(IoText *t, const SnapshotEntry *e, hsize_t rows, const char *group, const char *name,
                                   int width, const char *number_type, int precision)
{
  PetscFunctionBegin;
  PetscCall(Emit(t, "          <DataItem Dimensions=\"%llu", (unsigned long long)rows));
  if (width > 1) PetscCall(Emit(t, " %d", width));
  PetscCall(Emit(t, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">snapshots/%s:/%s/%s</DataItem>\n",
                 number_type, precision, e->file, group, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The attributes attrs of rows rows each, from /<group>/<name> of e's file, centred on center. */
static PetscErrorCode EmitAttributes(IoText *t, const SnapshotEntry *e, hsize_t rows, const char *group,
                                     const PointAttribute *attrs, size_t nattrs, const char *center)
{
  PetscFunctionBegin;
  for (size_t k = 0; k < nattrs; k++) {
    PetscCall(Emit(t, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"%s\">\n", attrs[k].name,
                   attrs[k].attribute_type, center));
    PetscCall(EmitDataItem(t, e, rows, group, attrs[k].name, attrs[k].width, attrs[k].number_type, attrs[k].precision));
    PetscCall(Emit(t, "        </Attribute>\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One grid of cells of one topology over /<group> of e's file: ncells cells of npc nodes, their
 * connectivity /<group>/<connectivity> (int64), their points /<group>/<points> (npoints rows),
 * and attributes per cell. */
static PetscErrorCode EmitCells(IoText *t, const SnapshotEntry *e, const char *name, const char *group,
                                const char *topology, hsize_t ncells, int npc, const char *connectivity,
                                hsize_t npoints, const char *points, const PointAttribute *attrs, size_t nattrs)
{
  PetscFunctionBegin;
  PetscCall(Emit(t, "      <Grid Name=\"%s\" GridType=\"Uniform\">\n", name));
  PetscCall(Emit(t, "        <Topology TopologyType=\"%s\" NumberOfElements=\"%llu\" NodesPerElement=\"%d\">\n",
                 topology, (unsigned long long)ncells, npc));
  PetscCall(EmitDataItem(t, e, ncells, group, connectivity, npc, "Int", 8));
  PetscCall(Emit(t, "        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n"));
  PetscCall(EmitDataItem(t, e, npoints, group, points, 3, "Float", 8));
  PetscCall(Emit(t, "        </Geometry>\n"));
  PetscCall(EmitAttributes(t, e, ncells, group, attrs, nattrs, "Cell"));
  PetscCall(Emit(t, "      </Grid>\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One Polyvertex grid over /<group> of e's file: a point per row with the given attributes. */
static PetscErrorCode EmitPoints(IoText *t, const SnapshotEntry *e, const char *name, const char *group, hsize_t rows,
                                 const PointAttribute *attrs, size_t nattrs, PetscBool with_time)
{
  PetscFunctionBegin;
  PetscCall(Emit(t, "      <Grid Name=\"%s\" GridType=\"Uniform\">\n", name));
  if (with_time) PetscCall(Emit(t, "        <Time Value=\"%.17g\"/>\n", e->time));
  PetscCall(Emit(t, "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%llu\" NodesPerElement=\"1\"/>\n",
                 (unsigned long long)rows));
  PetscCall(Emit(t, "        <Geometry GeometryType=\"XYZ\">\n"));
  PetscCall(EmitDataItem(t, e, rows, group, "position", 3, "Float", 8));
  PetscCall(Emit(t, "        </Geometry>\n"));
  PetscCall(EmitAttributes(t, e, rows, group, attrs, nattrs, "Node"));
  PetscCall(Emit(t, "      </Grid>\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One time step: all bodies as points; with boxes, walls or contacts, a spatial collection of that
 * grid and theirs (the boxes' points, each wall kind's cells, the contacts' lines). */
static PetscErrorCode EmitGrid(IoText *t, const SnapshotEntry *e)
{
  const size_t nb = sizeof(point_attributes) / sizeof(point_attributes[0]),
               nx = sizeof(box_attributes) / sizeof(box_attributes[0]),
               nc = sizeof(contact_attributes) / sizeof(contact_attributes[0]),
               nw = sizeof(wall_attributes) / sizeof(wall_attributes[0]);
  int                   nkinds;
  const WallOutputKind *kinds = WallOutputKinds(&nkinds);
  PetscBool             parts = (PetscBool)(e->box_rows || e->contact_rows || e->member_rows);
  char                  name[64];

  PetscFunctionBegin;
  for (int k = 0; k < nkinds; k++) parts = (PetscBool)(parts || e->wall_cells[k]);
  snprintf(name, sizeof(name), "step %" PRId64, e->step);
  if (!parts) {
    PetscCall(EmitPoints(t, e, name, "bodies", e->rows, point_attributes, nb, PETSC_TRUE));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(Emit(t, "      <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Spatial\">\n", name));
  PetscCall(Emit(t, "        <Time Value=\"%.17g\"/>\n", e->time));
  PetscCall(EmitPoints(t, e, "bodies", "bodies", e->rows, point_attributes, nb, PETSC_FALSE));
  if (e->box_rows) PetscCall(EmitPoints(t, e, "boxes", "boxes", e->box_rows, box_attributes, nx, PETSC_FALSE));
  if (e->member_rows)
    PetscCall(EmitPoints(t, e, "clump members", "clump_members", e->member_rows, member_attributes,
                         sizeof(member_attributes) / sizeof(member_attributes[0]), PETSC_FALSE));
  for (int k = 0; k < nkinds; k++) {
    char grid[64], group[64];
    if (!e->wall_cells[k]) continue;
    snprintf(grid, sizeof(grid), "%s walls", kinds[k].name);
    snprintf(group, sizeof(group), "walls/%s", kinds[k].name);
    PetscCall(EmitCells(t, e, grid, group, kinds[k].topology, e->wall_cells[k], kinds[k].nodes_per_cell, "cells",
                        e->wall_cells[k] * kinds[k].nodes_per_cell, "vertices", wall_attributes, nw));
  }
  if (e->contact_rows)
    PetscCall(EmitCells(t, e, "contacts", "contacts", "Polyline", e->contact_rows, 2, "lines", 2 * e->contact_rows,
                        "line_points", contact_attributes, nc));
  PetscCall(Emit(t, "      </Grid>\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode XdmfWriteSnapshotIndex(const char *outdir, PetscInt64 last_step, int *errnum)
{
  char           path[PETSC_MAX_PATH_LEN];
  SnapshotEntry *entries;
  size_t         count;
  IoText         t;

  PetscFunctionBegin;
  PetscCall(SnapshotScan(outdir, last_step, PETSC_TRUE, &entries, &count));
  PetscCall(IoPathPrintf(path, sizeof(path), "%s/snapshots.xmf", outdir));
  (void)IoTextCreate(&t, path);
  PetscCall(Emit(&t, "<?xml version=\"1.0\" ?>\n"));
  PetscCall(Emit(&t, "<!-- ccpdem snapshots: one point per body (spheres and boxes), the boxes again in a grid of "
                     "their own, the walls and the contact network; see io/xdmf.h -->\n"));
  PetscCall(Emit(&t, "<Xdmf Version=\"3.0\">\n  <Domain>\n"));
  PetscCall(Emit(&t, "    <Grid Name=\"bodies\" GridType=\"Collection\" CollectionType=\"Temporal\">\n"));
  for (size_t k = 0; k < count && !t.errnum; k++) PetscCall(EmitGrid(&t, &entries[k]));
  PetscCall(Emit(&t, "    </Grid>\n  </Domain>\n</Xdmf>\n"));
  (void)IoTextCommit(&t, PETSC_FALSE);
  *errnum = IoTextClose(&t);
  PetscCall(PetscFree(entries));
  PetscFunctionReturn(PETSC_SUCCESS);
}
