/* A joint as the scenario gives it (key `joints:`; src/joints/joints.h makes its rows each step).
 * Geometry is in world coordinates at time 0, the bodies' poses of the scenario file; the joint
 * keeps it in the bodies' frames, so a restart needs nothing stored. */
#ifndef CCPDEM_SCENARIO_JOINT_SPEC_H
#define CCPDEM_SCENARIO_JOINT_SPEC_H

typedef enum {
  JOINT_FIXED,
  JOINT_SPHERICAL,
  JOINT_REVOLUTE,
  JOINT_PRISMATIC,
  JOINT_DISTANCE,
  JOINT_MOTION
} JointType;

#define JOINT_GROUND (-1) /* body index of the fixed ground */

typedef struct {
  JointType type;
  int       body_a, body_b; /* indices into the scenario's bodies (= global ids); body_a may be JOINT_GROUND */
  double    point[3];       /* anchor (on A; for distance, point_a) */
  double    point_b[3];     /* distance: the anchor on B */
  double    axis[3];        /* revolute: rotation axis; prismatic: sliding axis (unit, fixed in A) */
  double    friction;       /* prismatic: friction force S (N) on the sliding direction, 0 = none */
  double    velocity[3];    /* motion: v(t) = velocity + amplitude sin(2 pi frequency t) */
  double    amplitude[3];
  double    frequency;           /* Hz; 0: constant velocity */
  double    angular_velocity[3]; /* motion: prescribed angular velocity (world), if angular */
  int       angular;             /* motion: 1 if angular_velocity was given (else rotation is free) */
  double    until;               /* motion: release time (s): no rows from then on; 0 = never */
  int       line;                /* line in the scenario file, for messages */
} JointSpec;
#endif
