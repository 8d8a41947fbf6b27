/* A scenario: the YAML file turned into validated structs (GUIDE "Scenario files").
 *
 * Loading never aborts: bad input yields a non-zero return and one message of the form
 *   FILE:LINE: key 'a.b[2].c': what is wrong; what to change
 * which the caller reports as bad input (app/commands.h). */
#ifndef CCPDEM_SCENARIO_SCENARIO_H
#define CCPDEM_SCENARIO_SCENARIO_H
#include <stddef.h>
#include <stdint.h>
#include "scenario/materials.h"
#include "bodies/walls.h"
#include "bodies/shapes.h"
#include "bodies/clump.h"
#include "scenario/joint_spec.h"

#define SCENARIO_ERR_MAX  1024
#define SCENARIO_PATH_MAX 4096
/* Limits of what a scenario may ask for, each refused with one message (the checks name them):
 * the file's size (a scenario is a few KB: a device such as /dev/zero is refused after its first
 * block), the nesting of its lists and mappings (a scenario nests 5 deep), the steps of a run
 * (more, or a step below SCENARIO_MIN_STEP_FRACTION of the end time, is a typo, not a run: 2^40
 * steps take years), and the materials (contacts look their parameters up in a table of every
 * pair of materials, n^2 entries). */
#define SCENARIO_TEXT_MAX          ((size_t)64 << 20)
#define SCENARIO_DEPTH_MAX         64
#define SCENARIO_MAX_STEPS         ((int64_t)1 << 40)
#define SCENARIO_MIN_STEP_FRACTION 1e-12
#define SCENARIO_MATERIALS_MAX     1024
/* The largest magnitude of a number in a scenario, and the inverse of the smallest but 0; also of
 * the quantities a body's state derives from them (mass, moments of inertia, momenta, energies):
 * then products of a few of them, as the step forms, stay finite and normal in double precision. */
#define SCENARIO_VALUE_MAX 1e100
/* The smallest body (sphere radius, box half extent, in m): and no smaller than this fraction of
 * the domain's largest coordinate, where a double's rounding of a position (2^-52 of it) would be
 * a sizeable part of the body. */
#define SCENARIO_MIN_SIZE 1e-12

typedef enum {
  CONTACT_MODEL_CCP     = 0,
  CONTACT_MODEL_PENALTY = 1
} ContactModel;
/* contact.overlap_correction (ccp/law.h, ccp/overlap_correction.h): how rigid overlaps are removed, by the
 * velocity problem's push-apart term (velocity) or by a separate pseudo-velocity pass that moves positions only
 * (position: the velocity problem then never asks an overlap to separate). */
typedef enum {
  OVERLAP_CORRECTION_VELOCITY = 0,
  OVERLAP_CORRECTION_POSITION = 1
} OverlapCorrectionMode;
/* contact.model penalty (src/penalty/loads.h): normal force law, rolling model and the damping of
 * the friction micro-deflections as fractions of critical damping (paper eqs. 1c, 3d and D_R). */
typedef enum {
  PENALTY_NORMAL_HERTZ = 0,
  PENALTY_NORMAL_HOOKE = 1
} PenaltyNormal;
typedef enum {
  PENALTY_ROLLING_TRACKING = 0,
  PENALTY_ROLLING_LEGACY   = 1
} PenaltyRolling;
/* The spin law's curvature K in K_psi = eta_psi K_E / K^2 and its thresholds K mu N / K_E (eq. 3c):
 * the surfaces' (kappa_a + kappa_b), or 1 / a with a = (3 N R_eff / (4 E_eff))^(1/3) the Hertz contact
 * radius (App. C; eta_psi = 0.5 is then its K_psi = a^2 K_E / 2). */
typedef enum {
  PENALTY_SPINNING_CURVATURE = 0,
  PENALTY_SPINNING_HERTZ     = 1
} PenaltySpinning;
typedef struct {
  PenaltyNormal   normal;
  double          normal_stiffness; /* Hooke spring constant (N/m) */
  PenaltyRolling  rolling;
  PenaltySpinning spinning;
  double          slide_damping, roll_damping, spin_damping; /* fractions of critical (1 = paper) */
} PenaltySettings;

typedef enum {
  SOLVER_JACOBI       = 0,
  SOLVER_GAUSS_SEIDEL = 1,
  SOLVER_APGD         = 2,
  SOLVER_IPM          = 3 /* the interior-point method (ccp/ipm.h), solved on rank 0 */
} SolverType;
typedef enum {
  FILL_LATTICE = 0,
  FILL_RANDOM  = 1
} FillType;
typedef enum {
  SIZE_FIXED   = 0,
  SIZE_UNIFORM = 1,
  SIZE_NORMAL  = 2
} SizeDistribution;

typedef struct {
  ShapeKind shape;
  double    size[3]; /* sphere radius in size[0]; box half extents; clump: bodies/clump.h */
  double    position[3], velocity[3];
  double    angular_velocity[3]; /* world frame, as written in the file */
  double    orientation[4];      /* (w, x, y, z), normalized on load */
  int       material;
  double    mass;       /* > 0: override; 0: from density and shape */
  double    inertia[3]; /* all > 0: override; else from mass and shape */
  int       line;       /* line in the scenario file, for messages */
  char      label[64];  /* `id`: the name joints refer to it by ("" if none) */
} BodySpec;

typedef struct {
  FillType      type;
  double        region_min[3], region_max[3];
  double        radius;
  double        spacing;     /* lattice: centre distance */
  long          count;       /* random: number of spheres */
  unsigned long seed;        /* random */
  double        velocity[3]; /* optional initial velocity of every filled sphere */
  int           material;
  int           clump; /* 0: spheres; k > 0: clumps of template k - 1, radius their bounding radius */
  int           line;
} FillSpec;

/* A source of spheres or clumps (src/step/emitter.h): `rate` per second from `start` on, until `count`
 * were made or the time reaches `end` (0: no limit of that kind); each at a random place in the
 * region, with a radius from the distribution (a clump: its template's bounding radius, fixed) and
 * the velocity plus a uniform random part of +-spread; clumps and ellipsoids (a fixed radius: the
 * template's bounding one, the largest semi-axis) turned at random. */
typedef struct {
  double           region_min[3], region_max[3];
  double           rate, start, end;
  long             count;
  SizeDistribution size;
  double           radius;                  /* fixed */
  double           radius_min, radius_max;  /* uniform, and the bounds of the truncated normal */
  double           radius_mean, radius_std; /* normal */
  double           velocity[3], velocity_spread[3];
  unsigned long    seed;
  int              material;
  int              clump;        /* 0: spheres; k > 0: clumps of template k - 1 */
  double           semi_axes[3]; /* ellipsoids of these semi-axes (m), turned at random; zeros: not ellipsoids */
  int              line;
} EmitterSpec;

/* A pile whose angle of repose the run's summary reports: the bodies with x in [x_min, x_max]. */
typedef struct {
  char   name[64];
  double x_min, x_max;
} ReposeSpec;

typedef struct {
  char         path[SCENARIO_PATH_MAX]; /* file it was read from */
  char        *text;                    /* the whole file, for checkpoints */
  char        *overrides; /* the -set KEY=VALUE lines applied to text ('\n'-separated), for checkpoints; NULL: none */
  double       domain_min[3], domain_max[3];
  double       gravity[3];
  double       time_step, time_end;
  ContactModel contact_model;
  double       envelope;           /* m: pairs closer than this are in the active set */
  double       max_recovery_speed; /* m/s: clamp of -phi/h for overlaps */
  double       overlap_tolerance;  /* m: rigid overlaps this shallow are held, not pushed apart */
  PenaltySettings penalty;         /* contact.model penalty only */
  SolverType      solver_type;
  int             max_iterations;
  double          tolerance; /* m/s, GUIDE residual */
  double warm_start_decay; /* factor on the warm start after a step that did not converge and changed its warm start */
  int    n_materials;
  Material    *materials;
  int          n_walls;
  Wall        *walls;
  int         *wall_lines;
  int          n_clumps;
  Clump       *clumps; /* clump templates (bodies/clump.h), set up: offsets in their body frames */
  int          n_bodies;
  BodySpec    *bodies;
  int          n_fills;
  FillSpec    *fills;
  int          n_emitters;
  EmitterSpec *emitters;
  int          n_repose;
  ReposeSpec  *repose; /* analysis.repose: piles to measure at the end */
  int          n_joints;
  JointSpec   *joints; /* bilateral constraints and prescribed motions */
  char         output_dir[SCENARIO_PATH_MAX];
  double       snapshot_interval;   /* simulated s; 0 = only first and last */
  double       checkpoint_interval; /* simulated s; 0 = none */
  int          output_contacts;     /* 1 = output.contacts: each snapshot holds the contact network (/contacts) */

  OverlapCorrectionMode overlap_correction; /* contact.overlap_correction */
} Scenario;

/* The steps from time 0 to t_end in steps of h: llround(t_end / h). 0 if that is not within [1,
 * SCENARIO_MAX_STEPS] or h is below SCENARIO_MIN_STEP_FRACTION of t_end, with why set to the reason
 * ("...; what to change", no key: the caller names it; why may be NULL with whylen 0); else the
 * count, why untouched. */
int64_t scenario_step_count(double t_end, double h, char *why, size_t whylen);
/* Steps of h in an output interval (simulated s): 0 for none (interval 0), else at least 1, and
 * SCENARIO_MAX_STEPS + 1 (never reached) for intervals longer than any run. */
int64_t scenario_interval_steps(double interval, double h);
/* Parse and check key by key. Returns 0 on success; else fills err (FILE:LINE: key '...': ...). */
int scenario_load_file(const char *path, Scenario *sc, char *err, size_t errlen);
int scenario_load_string(const char *text, const char *name, Scenario *sc, char *err, size_t errlen);
/* The same with the -set overrides (scenario/yaml_override.h: "KEY=VALUE" lines separated by '\n'; NULL or "" for
 * none) applied to the parsed document before any key is checked; a problem in an overridden value is reported as
 * "command line: -set KEY=VALUE: key '...': ...". sc->overrides keeps a copy of them. */
int  scenario_load_file_set(const char *path, const char *overrides, Scenario *sc, char *err, size_t errlen);
int  scenario_load_string_set(const char *text, const char *name, const char *overrides, Scenario *sc, char *err,
                              size_t errlen);
void scenario_free(Scenario *sc);
/* Index of a material by name, -1 if absent. */
int scenario_material_index(const Scenario *sc, const char *name);
#endif
