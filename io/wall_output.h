/* The walls as the outputs show them: per wall kind (keyed on WallType) the cells ParaView draws and
 * the point its torque is taken about. A new wall kind adds one entry to the table in
 * io/wall_output.c (its XDMF cell type and its two functions); the snapshot writer, the XDMF index
 * and the wall-load CSV need nothing else. */
#ifndef CCPDEM_IO_WALL_OUTPUT_H
#define CCPDEM_IO_WALL_OUTPUT_H
#include <petscsys.h>
#include "bodies/walls.h"

typedef struct {
  WallType    type;
  const char *name;           /* the group /walls/<name> of a snapshot and the XDMF grid "<name> walls" */
  const char *topology;       /* XDMF TopologyType of its cells */
  int         nodes_per_cell; /* vertices per cell */
  /* The cells of wall w (world frame, at its current pose) inside the domain box [lo, hi]: returns
   * how many; with xyz not NULL writes their vertices, nodes_per_cell * 3 doubles per cell, in the
   * XDMF order of the topology. Not collective, no allocation. */
  PetscInt (*cells)(const Wall *w, const double lo[3], const double hi[3], double *xyz);
  /* The point wall w's torque is taken about (world): its centre, or a rotating wall's axis point. */
  void (*torque_point)(const Wall *w, double p[3]);
} WallOutputKind;

/* The entry of wall type t, or NULL for a type without one (an error for the callers). */
const WallOutputKind *WallOutputKindOf(WallType t);
/* All entries (*n of them), in a fixed order: the order of the kinds' groups in a snapshot. */
const WallOutputKind *WallOutputKinds(int *n);
#endif
