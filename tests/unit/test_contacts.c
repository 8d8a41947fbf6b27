/* Unit test of the contact set (src/contact/contact_set.c) on hand-built sets:
 *   - append with growth keeps every contact, key and zeroed impulse;
 *   - sort by key: the hand-written expected order, with each contact's data and impulses moving
 *     with its key, equal keys keeping their append order, and an already sorted set unchanged;
 *   - warm start: matched keys get scale * previous impulses (trailing 3 zero for 3-dof
 *     contacts), the others zero; the matched count; unsorted input is refused;
 *   - with rolling springs, torque impulses kept as world vectors across a jump of the contact's frame;
 *   - copy and clear.
 * All values are exact binary fractions copied or scaled by 0.5, so comparisons are exact. */
// ctest: labels=unit timeout=30
#include "contact/contact_set.h"
#include <stdio.h>

#include "test_check.h"

/* Append a contact whose phi and impulses carry a marker m, so we can follow it; dof 6 by a
 * rolling friction (contact_dof). */
static PetscErrorCode append_marked(ContactSet *cs, int64_t ida, int64_t idb, int32_t sub, int dof, double m)
{
  Contact    c = {0};
  ContactKey k = {ida, idb, sub};
  PetscInt   idx;
  PetscFunctionBegin;
  c.rho = dof == 6 ? 0.01 : 0;
  c.phi = m;
  c.a   = (int32_t)(10 * m);
  PetscCall(ContactSetAppend(cs, &c, &k, &idx));
  CHECK(idx == cs->n - 1, "append returned index %d for contact %d", (int)idx, (int)(cs->n - 1));
  for (int d = 0; d < CONTACT_DOF_MAX; d++)
    CHECK(contact_gamma(cs, idx)[d] == 0, "appended contact %d has impulse %g", (int)idx, contact_gamma(cs, idx)[d]);
  for (int d = 0; d < CONTACT_DOF_MAX; d++) contact_gamma(cs, idx)[d] = m + d / 8.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Append as detection does with a warm start under way: the contact (zero impulses), then its
 * warm start (contact_set_warm_last). */
static PetscErrorCode append_warm(ContactSet *cs, int64_t ida, int64_t idb, int32_t sub, int dof, double m)
{
  Contact    c = {0};
  ContactKey k = {ida, idb, sub};
  PetscFunctionBegin;
  c.rho = dof == 6 ? 0.01 : 0;
  c.phi = m;
  PetscCall(ContactSetAppend(cs, &c, &k, NULL));
  contact_set_warm_last(cs);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The six contacts of the warm-start checks below: appended by `append`, in key order. */
static PetscErrorCode append_six(ContactSet *cs,
                                 PetscErrorCode (*append)(ContactSet *, int64_t, int64_t, int32_t, int, double))
{
  PetscFunctionBegin;
  PetscCall(append(cs, -2, 3, 1, 6, 20)); /* matches marker 8 */
  PetscCall(append(cs, -1, 3, 0, 3, 21)); /* matches marker 2, now 3-dof */
  PetscCall(append(cs, -1, 4, 0, 3, 22)); /* new */
  PetscCall(append(cs, 2, 7, 0, 3, 23));  /* matches marker 4 */
  PetscCall(append(cs, 5, 9, 1, 3, 24));  /* new (prev had sub 2) */
  PetscCall(append(cs, 5, 10, 1, 3, 25)); /* matches marker 1 */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int has_marker(const ContactSet *cs, PetscInt i, double m)
{
  int ok = cs->c[i].phi == m && cs->c[i].a == (int32_t)(10 * m);
  for (int d = 0; d < CONTACT_DOF_MAX; d++) ok = ok && contact_gamma(cs, i)[d] == m + d / 8.0;
  return ok;
}

int main(int argc, char **argv)
{
  ContactSet    a, b, c;
  ImpulseMemory mem;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(ContactSetCreate(&a));
  PetscCall(ContactSetCreate(&b));
  PetscCall(ContactSetCreate(&c));
  PetscCall(ImpulseMemoryCreate(&mem));

  /* growth: 1000 appends from an empty set */
  for (int i = 0; i < 1000; i++) PetscCall(append_marked(&a, i, i + 1, 0, 3, i));
  {
    int bad = 0;
    for (int i = 0; i < 1000; i++) bad += !has_marker(&a, i, i) || a.key[i].ida != i || a.key[i].idb != i + 1;
    CHECK(a.n == 1000 && a.capacity >= 1000 && bad == 0, "growth: n %d, capacity %d, %d contacts changed", (int)a.n,
          (int)a.capacity, bad);
  }
  PetscCall(ContactSetSortByKey(&a)); /* already sorted: unchanged */
  {
    int bad = 0;
    for (int i = 0; i < 1000; i++) bad += !has_marker(&a, i, i);
    CHECK(bad == 0, "sorting a sorted set moved %d contacts", bad);
  }
  ContactSetClear(&a);
  CHECK(a.n == 0 && a.capacity >= 1000, "clear: n %d, capacity %d", (int)a.n, (int)a.capacity);

  /* sort: walls (negative ids) first, then by idb, then sub; two equal keys (markers 6 and 7)
   * keep their append order */
  PetscCall(append_marked(&a, 5, 10, 1, 3, 1));
  PetscCall(append_marked(&a, -1, 3, 0, 6, 2));
  PetscCall(append_marked(&a, 5, 10, 0, 3, 3));
  PetscCall(append_marked(&a, 2, 7, 0, 3, 4));
  PetscCall(append_marked(&a, -2, 3, 3, 6, 5));
  PetscCall(append_marked(&a, 2, 8, 0, 3, 6));
  PetscCall(append_marked(&a, 2, 8, 0, 3, 7));
  PetscCall(append_marked(&a, -2, 3, 1, 6, 8));
  PetscCall(append_marked(&a, 5, 9, 2, 3, 9));
  PetscCall(ContactSetSortByKey(&a));
  {
    const double expected[] = {8, 5, 2, 4, 6, 7, 9, 3, 1}; /* markers in key order */
    CHECK(a.n == 9, "sorted set has %d contacts", (int)a.n);
    for (int i = 0; i < 9 && a.n == 9; i++)
      CHECK(has_marker(&a, i, expected[i]), "sorted position %d holds marker %g (key %lld %lld %d), expected %g", i,
            a.c[i].phi, (long long)a.key[i].ida, (long long)a.key[i].idb, (int)a.key[i].sub, expected[i]);
  }

  /* warm start: prev = a (sorted). cur has 4 keys of a, 2 new ones, and one 3-dof contact on a
   * key that was 6-dof before */
  PetscCall(append_six(&b, append_marked));
  {
    PetscInt     matched = -1;
    const double from[6] = {8, 2, -1, 4, -1, 1}; /* marker of the matching previous contact, -1: none */
    PetscCall(ImpulseMemoryStore(&mem, &a));
    PetscCall(ContactSetWarmStart(&b, &mem, 0.5, &matched));
    CHECK(matched == 4, "warm start matched %d, expected 4", (int)matched);
    for (int i = 0; i < 6; i++)
      for (int d = 0; d < CONTACT_DOF_MAX; d++) {
        const double want = (from[i] < 0 || d >= contact_dof(&b.c[i])) ? 0.0 : 0.5 * (from[i] + d / 8.0);
        CHECK(contact_gamma(&b, i)[d] == want, "warm start contact %d entry %d: %g, expected %g", i, d,
              contact_gamma(&b, i)[d], want);
      }
    CHECK(b.c[0].phi == 20 && b.c[5].phi == 25, "warm start changed the geometry");
  }
  /* the same warm start taken during the appends (as detection does): the same bits, the same
   * count; a memory whose keys are out of order is refused at the end */
  {
    ContactSet d;
    PetscInt   matched = -1, same = 0;
    PetscCall(ContactSetCreate(&d));
    PetscCall(ContactSetWarmBegin(&d, &mem, 0.5));
    PetscCall(append_six(&d, append_warm));
    PetscCall(ContactSetWarmEnd(&d, &matched));
    CHECK(matched == 4, "warm start during the appends matched %d, expected 4", (int)matched);
    for (int i = 0; i < 6; i++)
      same += !memcmp(contact_gamma(&d, i), contact_gamma(&b, i), sizeof(double) * CONTACT_DOF_MAX) &&
              d.c[i].plastic == b.c[i].plastic;
    CHECK(same == 6, "warm start during the appends: %d of 6 contacts as ContactSetWarmStart's", (int)same);
    {
      PetscErrorCode   ierr;
      const ContactKey k0 = mem.key[0];
      mem.key[0]          = mem.key[1]; /* out of order */
      mem.key[1]          = k0;
      ContactSetClear(&d);
      PetscCall(ContactSetWarmBegin(&d, &mem, 0.5));
      PetscCall(append_six(&d, append_warm));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = ContactSetWarmEnd(&d, NULL);
      PetscCall(PetscPopErrorHandler());
      CHECK(ierr != 0, "warm start during the appends accepted a memory out of key order");
      mem.key[1] = mem.key[0];
      mem.key[0] = k0;
    }
    PetscCall(ContactSetDestroy(&d));
  }
  /* unsorted input is refused */
  {
    PetscErrorCode ierr;
    PetscCall(append_marked(&c, 3, 4, 0, 3, 30));
    PetscCall(append_marked(&c, 1, 4, 0, 3, 31));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = ContactSetWarmStart(&c, &mem, 1.0, NULL);
    CHECK(ierr != 0, "warm start accepted an unsorted set");
    ierr = ImpulseMemoryStore(&mem, &c);
    CHECK(ierr != 0, "the impulse memory accepted an unsorted set");
    PetscCall(PetscPopErrorHandler());
  }

  /* rolling springs (torque_springs): the torque impulses are state, kept as a world vector. A 6-dof contact
   * whose normal turns by 0.01 rad across the edge where v3_tangents changes its axis (|n_x| = 0.57735: the
   * frame's tangents jump by about 90 deg) must come back with the same world torque to within that turn
   * (2 x 0.01 x |torque|), unscaled by the warm start's 0.5; the force impulses scaled as always. Stored in
   * the frame instead (the warm start without torque_springs), its torque would swing by about |torque|. */
  {
    ContactSet    s1, s2;
    ImpulseMemory m1;
    ContactKey    k = {-1, 7, 0};
    Contact       c = {0};
    double        u[3], w[3], before[3], after[3];
    const double  a1 = 0.57735 - 0.005, a2 = 0.57735 + 0.005; /* n_x on either side of the edge */
    PetscCall(ContactSetCreate(&s1));
    PetscCall(ContactSetCreate(&s2));
    PetscCall(ImpulseMemoryCreate(&m1));
    s1.torque_springs = s2.torque_springs = PETSC_TRUE;
    c.rho                                 = 0.01;
    c.n[0] = a1, c.n[1] = sqrt(1 - a1 * a1), c.n[2] = 0;
    PetscCall(ContactSetAppend(&s1, &c, &k, NULL));
    for (int d = 0; d < CONTACT_DOF_MAX; d++) contact_gamma(&s1, 0)[d] = 1 + d;
    contact_frame(&s1.c[0], u, w);
    for (int j = 0; j < 3; j++) before[j] = 4 * s1.c[0].n[j] + 5 * u[j] + 6 * w[j];
    PetscCall(ImpulseMemoryStore(&m1, &s1));
    c.n[0] = a2, c.n[1] = sqrt(1 - a2 * a2);
    CHECK(v3_tangent_axis(s1.c[0].n) != v3_tangent_axis(c.n), "the two normals should straddle the frame's edge");
    PetscCall(ContactSetAppend(&s2, &c, &k, NULL));
    PetscCall(ContactSetWarmStart(&s2, &m1, 0.5, NULL));
    const double *g2 = contact_gamma(&s2, 0);
    contact_frame(&s2.c[0], u, w);
    for (int j = 0; j < 3; j++) after[j] = g2[3] * s2.c[0].n[j] + g2[4] * u[j] + g2[5] * w[j];
    const double turn = sqrt((after[0] - before[0]) * (after[0] - before[0]) +
                             (after[1] - before[1]) * (after[1] - before[1]) +
                             (after[2] - before[2]) * (after[2] - before[2]));
    CHECK(turn <= 2 * (a2 - a1) * sqrt(77.0), "the springs' world torque moved by %g across the frame's edge", turn);
    CHECK(g2[0] == 0.5 && g2[1] == 1 && g2[2] == 1.5, "force impulses %g %g %g, not scaled by 0.5", g2[0], g2[1],
          g2[2]);
    PetscCall(ContactSetDestroy(&s1));
    PetscCall(ContactSetDestroy(&s2));
    PetscCall(ImpulseMemoryDestroy(&m1));
  }

  /* memory: keys and impulses of a, in a's (key) order, reusing its buffers */
  PetscCall(ImpulseMemoryStore(&mem, &a));
  CHECK(mem.n == a.n, "memory holds %d contacts, source %d", (int)mem.n, (int)a.n);
  for (PetscInt i = 0; i < mem.n && mem.n == a.n; i++)
    CHECK(mem.key[i].ida == a.key[i].ida && mem.key[i].idb == a.key[i].idb && mem.key[i].sub == a.key[i].sub &&
            mem.gamma[CCP_RECORD_WIDTH * i + 5] == contact_gamma(&a, i)[5] &&
            mem.gamma[CCP_RECORD_WIDTH * i + CCP_RECORD_PLASTIC] == a.c[i].plastic,
          "memory position %d differs", (int)i);
  printf("contacts: append/growth, sort (walls first, stable ties), warm start (4 of 6 matched, dof change; the same "
         "during the appends), refuses unsorted, impulse memory, clear\n");

  PetscCall(ContactSetDestroy(&a));
  PetscCall(ContactSetDestroy(&b));
  PetscCall(ContactSetDestroy(&c));
  PetscCall(ImpulseMemoryDestroy(&mem));
  CHECK(a.n == 0 && a.c == NULL, "destroy left n %d", (int)a.n);
  if (failures) printf("test_contacts: %d check(s) FAILED\n", failures);
  else printf("test_contacts: all checks passed\n");
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
