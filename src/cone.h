/* Exact Euclidean projections onto the friction reaction sets of one contact (GUIDE "Contacts").
 * Layout of a 6-vector: (gn, gu, gw, tn, tu, tw).
 *   3-dof:  mu gn >= |(gu, gw)|
 *   6-dof:  mu gn >= |(gu, gw)|,  rho gn >= |(tu, tw)|,  sigma gn >= |tn|
 * Zero coefficients are allowed: the corresponding components are then forced to zero. */
#ifndef CCPDEM_CONE_H
#define CCPDEM_CONE_H

/* Project g[0..2] onto the 3-dof Coulomb cone (closed form). */
void cone_project3(double mu, double g[3]);
/* Project g[0..5] onto the intersection of the sliding, rolling and spinning cones that share gn
 * (paper Appendix C: a 1-D convex piecewise-quadratic minimization over gn). */
void cone_project6(double mu, double rho, double sigma, double g[6]);
#endif
