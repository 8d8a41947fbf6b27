/* Exact Euclidean projections onto the friction reaction sets of one contact (GUIDE "Contacts").
 * Layout of a 6-vector: (gn, gu, gw, tn, tu, tw).
 *   3-dof:  mu gn >= |(gu, gw)|
 *   6-dof:  mu gn >= |(gu, gw)|,  rho gn >= |(tu, tw)|,  sigma gn >= |tn|
 * Zero coefficients are allowed: the corresponding components are then forced to zero. */
#ifndef CCPDEM_CCP_CONE_H
#define CCPDEM_CCP_CONE_H

/* Project g[0..2] onto the 3-dof Coulomb cone (closed form). */
void cone_project3(double mu, double g[3]);
/* Project g[0..5] onto the intersection of the sliding, rolling and spinning cones that share gn
 * (paper Appendix C: a 1-D convex piecewise-quadratic minimization over gn). */
void cone_project6(double mu, double rho, double sigma, double g[6]);
/* Cap the normal entry of g (already in the reaction set of the cone above, dof 3 or 6) at
 * gn <= cap: if g[0] > cap, g[0] = cap and each block is clamped radially into its disk of radius
 * (coefficient * cap). This is the exact projection onto cone and {gn <= cap} of the point the cone
 * projection came from: when the cone's projection violates the cap, the projection onto the
 * intersection lies on the plane gn = cap (if it were inside, it would be a local, hence global,
 * minimizer of the distance over the cone), where the set is the product of those disks. */
void cone_cap(int dof, double mu, double rho, double sigma, double cap, double g[6]);
#endif
