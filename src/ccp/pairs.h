/* The pair parameters of a CCP contact, looked up from its bodies' materials when needed: the
 * solve's per-step terms (ccp/law.h) and the plastic return map (ccp/plasticity.h) read them
 * from here, so the contact record carries none of them (a cache line per contact less in memory,
 * in detection's writes and in the packing's reads). The friction parameters stay in the record:
 * the cone's projections and the warm start read them. */
#ifndef CCPDEM_CCP_PAIRS_H
#define CCPDEM_CCP_PAIRS_H
#include "ccp/law.h"
#include "bodies/walls.h"

/* table[a n + b]: material_pair of materials a and b (n of them). Free with PetscFree. *yields:
 * whether some pair has a yield force (else the plastic return map has nothing to do). */
PetscErrorCode ContactPairTableCreate(const Material *materials, int n, PairParams **table, PetscBool *yields);

/* One step's lookup: solver bodies [0, nb) are bodies (material from body_material), then walls. */
typedef struct {
  const PairParams *table;
  int               n_materials;
  const int32_t    *body_material;
  PetscInt          nb;
  const Wall       *walls;
  double            h, v_recover, overlap_tolerance; /* the step's, for contact_law_terms */
  PetscBool         split;                           /* contact.overlap_correction position (ccp/law.h) */
  PetscBool         yields;                          /* some pair of the table has a yield force */
} ContactPairs;

/* The pair of contact c (not a joint block: its bodies need not have materials). A has the smaller
 * id, as in detection's material_pair(A, B). */
static inline const PairParams *contact_pair(const ContactPairs *cp, const Contact *c)
{
  const int ma = c->a < cp->nb ? cp->body_material[c->a] : cp->walls[c->a - cp->nb].material;
  return &cp->table[ma * cp->n_materials + cp->body_material[c->b]];
}

/* A CCPTermsFn (ccp/problem.h) with ctx a ContactPairs: contact_law_terms of c's pair. */
void contact_pairs_terms(void *ctx, const Contact *c, CCPContactTerms *t);
#endif
