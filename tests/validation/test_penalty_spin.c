/* Penalty model, spinning sphere (paper sec. 4.4): the sphere of sec. 4.3 (R = 0.2 m, m = 5 kg)
 * spun at 1 rad/s about the plane normal, eta_psi = 0.006, curvature K = 1/R = 5 (the default
 * K = kappa_sphere + kappa_plane). In the kinetic spin mode the spin torque is constant,
 *   T = K_psi * (K mu_k N / K_E) = eta_psi mu_k N / K = mu_k N eta_psi R = 0.0118 N m,
 * so the spin rate falls linearly at T / J (J = 0.4 m R^2 = 0.08 kg m^2). The torque is measured
 * from the spin rates at 1 s and 4 s (both in the kinetic phase, which lasts about 6.8 s).
 * The kinetic torque is exact in the model; the measured one differs only by the normal force's
 * damped oscillation about m g (it starts at the static overlap, and has died out by 1 s), the
 * frame continuation and rounding: measured 2.9e-12 relative, tolerance 3e-11. The sphere then
 * stops: |w| < 1e-9 rad/s at 9 s. */
#include "test_penalty.h"

int main(int argc, char **argv)
{
  Simulation   sim;
  const double m = 5, R = 0.2, J = 0.4 * m * R * R, N = m * PEN_G, T_exact = PEN_MU_K * N * 0.006 * R;
  PenSphere    p = {.alpha = 0, .radius = R, .mass = m, .w0 = {0, 0, 1}, .eta_psi = 0.006, .h = 1e-4};
  double       w[3], w1, w4, T;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PenSphereCreate(&p, &sim));
  PetscCall(TestRunUntil(sim, 1.0));
  PenOmegaWorld(sim, w);
  w1 = w[2];
  PetscCall(TestRunUntil(sim, 4.0));
  PenOmegaWorld(sim, w);
  w4 = w[2];
  T  = -J * (w4 - w1) / 3.0;
  printf("spinning sphere: spin rate %.9f rad/s at 1 s, %.9f at 4 s: torque %.9f N m, analytic mu_k N eta_psi R = %.9f "
         "N m (rel. error %.2e)\n",
         w1, w4, T, T_exact, T / T_exact - 1);
  TEST_CHECK(fabs(T / T_exact - 1) < 3e-11, "kinetic spin torque %.12f N m vs %.12f", T, T_exact);
  PetscCall(TestRunUntil(sim, 9.0));
  PenOmegaWorld(sim, w);
  printf("spinning sphere: |w| at 9 s = %.3e rad/s, speed %.3e m/s\n", v3_norm(w), v3_norm(SimulationBodies(sim)->vel));
  TEST_CHECK(v3_norm(w) < 1e-9, "the sphere should have stopped spinning: |w| = %.3e rad/s", v3_norm(w));
  PetscCall(SimulationDestroy(&sim));
  int rc = TestFinish("penalty spinning sphere");
  PetscCall(PetscFinalize());
  return rc;
}
