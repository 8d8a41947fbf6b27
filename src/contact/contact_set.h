/* The active contact set of one step: geometry, pair parameters and impulses; and its exchanges with
 * the contact memory (contact/impulse_memory.h): the warm start taken from it, the records stored
 * into it, matched by key (id A, id B, point index).
 *
 * Contact i acts between solver bodies a and b (indices into bodies then walls: see ccp/problem.h);
 * A has the smaller global id (walls have negative ids, so a wall is always A). Normal n points
 * from A to B; (n, u, w) is right-handed. Impulses per contact: (gn, gu, gw, tn, tu, tw) =
 * normal, two tangential force impulses, spin and two rolling torque impulses, all in the frame. */
#ifndef CCPDEM_CONTACT_CONTACT_SET_H
#define CCPDEM_CONTACT_CONTACT_SET_H
#include <petscsys.h>
#include <stddef.h>
#include <stdint.h>
#include "base/vec3.h"
#include "contact/impulse_memory.h"

/* The rows of a joint block (src/joints/joints.h) in place of a friction cone: per row k of
 * (n, u, w force; n, u, w torque) the stabilization b[k] (b[0] is the terms' bn) and the box
 * lo[k] <= gamma_k <= hi[k]: -inf..inf a bilateral row, 0..0 a free direction, -S h..S h a
 * bounded friction element. The projection onto a box is the clamp, row by row. */
typedef struct {
  double b[6], lo[6], hi[6];
  double u[3], w[3]; /* the block's frame tangents (n is the Contact's): a joint sets its own frame */
} RowBox;

/* 128 bytes, and ContactSet's array 64-byte aligned (CONTACT_ALIGN): a record spans exactly 2 cache
 * lines. The first line holds all the penalty model reads and detection writes for it (a
 * no_impulses set): n and phi one aligned quad, rb then a, b (the block kernel loads rb as a quad
 * whose 4th lane, the bits of a and b, it does not use). The second holds the rest of the CCP's
 * geometry and what the warm start reads and writes (contact_dof's rho, sigma, box; plastic).
 * Not stored, since they follow from what is: the tangents (contact_frame), the dof
 * (contact_dof), the point index (the ContactKey's sub), and the per-step terms of the contact's
 * law (bn, c_lin, the cohesion and yield impulses: CCPContactTerms of ccp/problem.h, computed from
 * the pair's parameters when a solve packs the contact; a third cache line per contact before). */
typedef struct {
  double  n[3];  /* contact normal (world), A to B */
  double  phi;   /* signed gap (m), negative = overlap */
  double  rb[3]; /* contact point on B minus B's centre of mass, world */
  int32_t a, b;  /* solver-body indices of A and B */
  /* the second line: the CCP's */
  double        ra[3];          /* contact point on A minus A's centre of mass, world */
  double        mu, rho, sigma; /* pair friction parameters (rho, sigma in m) */
  const RowBox *box;            /* NULL: a contact (the cone above); else a joint block, dof 6 (owned by the joints) */
  double plastic; /* plastic displacement delta_p (m) along n, remembered by key; the spring acts on -phi - plastic */
} Contact;

#define CONTACT_ALIGN 64
_Static_assert(sizeof(Contact) == 2 * CONTACT_ALIGN, "a contact is 2 cache lines");
_Static_assert(offsetof(Contact, n) == 0 && offsetof(Contact, phi) == 24 && offsetof(Contact, rb) == 32 &&
                 offsetof(Contact, a) == 56 && offsetof(Contact, b) == 60,
               "the first cache line: what the penalty model reads, n and phi as one quad at 0, rb at 32");
_Static_assert(offsetof(Contact, rho) / CONTACT_ALIGN == 1 && offsetof(Contact, box) / CONTACT_ALIGN == 1 &&
                 offsetof(Contact, plastic) / CONTACT_ALIGN == 1,
               "the second cache line: what the warm start reads (contact_dof) and writes (plastic)");

/* 3 (rho = sigma = 0: no rolling or spinning friction, so no torque rows) or 6: a joint block
 * always, a contact with rolling or spinning friction (detection's rule). */
static inline int contact_dof(const Contact *c) { return (c->box || c->rho != 0 || c->sigma != 0) ? 6 : 3; }

/* The contact frame's tangents (n, u, w right-handed): a joint block's own, else v3_tangents(n)
 * (the only frame detection gives). Recomputed rather than stored, to save 48 bytes per contact:
 * the packed layout (ccp/pack.c), which the fast sweeps read, takes it once per solve. */
static inline void contact_frame(const Contact *c, double u[3], double w[3])
{
  if (c->box) {
    v3_copy(u, c->box->u);
    v3_copy(w, c->box->w);
  } else v3_tangents(c->n, u, w);
}

/* A warm start taken while detection appends the contacts in key order (ContactSetWarmBegin,
 * contact_set_warm_last, ContactSetWarmEnd), instead of ContactSetWarmStart's pass after it: the
 * record just written is in cache, and the merge needs no pass of its own over the keys. */
typedef struct {
  const ImpulseMemory *prev; /* NULL: none under way */
  double               scale;
  PetscInt             j; /* the merge's place in prev */
  PetscInt             matched;
  PetscBool            disorder; /* prev's keys were found out of order on the way */
} ContactWarmCursor;

typedef struct {
  PetscInt    n, capacity;
  Contact    *c;
  ContactKey *key;
  double     *gamma;      /* CONTACT_DOF_MAX per contact; NULL with no_impulses */
  PetscBool   unsorted;   /* some key is below its predecessor: kept by the appends (each compares
                             with the last key, which is in cache), so the key-order checks of
                             ContactSetSortByKey, the warm start and the memory cost no pass */
  PetscBool no_impulses;  /* no gamma (the penalty model's set): none allocated, none zeroed per contact;
                           its contacts hold only n, phi, rb, a, b, the first cache line
                           (CollisionDetectListedGeometry): the rest is unwritten, sub is the key's */
  ContactWarmCursor warm; /* a warm start under way during the appends (ContactSetWarmBegin) */
  /* The torque impulses are state, the rolling springs' (ccp/law.h): the warm start takes a 6-dof contact's
   * unscaled (the time step keeps them, then scales its guess), and the memory keeps them as a world vector,
   * turned into the contact's frame by the warm start, so that they follow the contact when its frame
   * (v3_tangents of n) turns or jumps. */
  PetscBool torque_springs;
} ContactSet;

static inline double *contact_gamma(const ContactSet *cs, PetscInt i)
{
  return cs->gamma + (size_t)CONTACT_DOF_MAX * i;
}
/* doubles of gamma per contact */
static inline size_t contact_gamma_width(const ContactSet *cs) { return cs->no_impulses ? 0 : CONTACT_DOF_MAX; }

PetscErrorCode ContactSetCreate(ContactSet *cs);
PetscErrorCode ContactSetDestroy(ContactSet *cs);
PetscErrorCode ContactSetReserve(ContactSet *cs, PetscInt n);
/* Append a contact with zero impulse; returns its index. */
PetscErrorCode ContactSetAppend(ContactSet *cs, const Contact *c, const ContactKey *k, PetscInt *index);
/* The next contact's slot (key k, zero impulse) for the caller to fill in place: no copy of a
 * built contact. Needs the room reserved (ContactSetReserve). */
PetscErrorCode ContactSetAppendSlot(ContactSet *cs, const ContactKey *k, Contact **slot);
/* Request for writing the lines of the slot CONTACT_APPEND_AHEAD appends on (its record, key and
 * impulses). Out of cache each append's first store to a fresh line waited for that line to be
 * read (a write miss): at 10^6 spheres half of the appends' samples (perf) sat on the store that
 * opens a record's second line. */
#define CONTACT_APPEND_AHEAD 16
static inline void contact_set_prefetch_appends(const ContactSet *cs)
{
  const PetscInt i = cs->n + CONTACT_APPEND_AHEAD;
  if (i >= cs->capacity) return;
  __builtin_prefetch(&cs->c[i], 1);
  __builtin_prefetch((const char *)&cs->c[i] + CONTACT_ALIGN, 1);
  __builtin_prefetch(&cs->key[i], 1);
  if (!cs->no_impulses) __builtin_prefetch(contact_gamma(cs, i), 1);
}

/* The next contact's slot (zero impulse), whose key the caller has written at cs->key[cs->n] in
 * place: a key built elsewhere and copied in is read back from stores of other widths (its
 * padding's memset, its fields), which stalls the store forwarding. Needs the room reserved. */
static inline Contact *contact_set_append_keyed(ContactSet *cs)
{
  if (cs->n && contact_key_compare(&cs->key[cs->n - 1], &cs->key[cs->n]) > 0) cs->unsorted = PETSC_TRUE;
  if (!cs->no_impulses) {
    double *g = contact_gamma(cs, cs->n);
    for (int d = 0; d < CONTACT_DOF_MAX; d++) g[d] = 0;
  }
  return &cs->c[cs->n++];
}
/* Whether contact c's torque impulses are the rolling springs' state in cs (torque_springs). */
static inline PetscBool contact_set_torque_state(const ContactSet *cs, const Contact *c)
{
  return (PetscBool)(cs->torque_springs && !c->box && contact_dof(c) == 6);
}

/* Contact i's warm start: its impulses from record gp (width CCP_RECORD_WIDTH) times scale, the
 * torque entries of a 3-dof contact 0, and its plastic displacement (unscaled: it is state); with
 * rolling springs its torque impulses, also state, unscaled, from the record's world vector. */
static inline void contact_set_warm_copy(ContactSet *cs, PetscInt i, const double *gp, double scale)
{
  double        *g   = contact_gamma(cs, i);
  const Contact *c   = &cs->c[i];
  const int      dof = contact_dof(c);
  for (int d = 0; d < CONTACT_DOF_MAX; d++) g[d] = d < dof ? scale * gp[d] : 0.0;
  cs->c[i].plastic = gp[CCP_RECORD_PLASTIC];
  if (contact_set_torque_state(cs, c)) {
    double u[3], w[3];
    contact_frame(c, u, w);
    g[3] = v3_dot(c->n, gp + 3);
    g[4] = v3_dot(u, gp + 3);
    g[5] = v3_dot(w, gp + 3);
  }
}

/* The last appended contact, now complete (its dof known), takes its warm start from the one under
 * way, if any (ContactSetWarmBegin); else the append's zeros stay. As ContactSetWarmStart, bit for bit. */
static inline void contact_set_warm_last(ContactSet *cs)
{
  ContactWarmCursor *w = &cs->warm;
  PetscBool          hit;

  if (!w->prev) return;
  w->j = impulse_memory_seek(w->prev, w->j, &cs->key[cs->n - 1], &hit, &w->disorder);
  if (hit) {
    contact_set_warm_copy(cs, cs->n - 1, w->prev->gamma + (size_t)CCP_RECORD_WIDTH * w->j, w->scale);
    w->matched++;
  }
}

/* ContactSetAppendSlot without the room check, inline: for a detection loop that reserved room for
 * every contact it can give (one call per contact costs as much as the contact's geometry). */
static inline Contact *contact_set_append_reserved(ContactSet *cs, const ContactKey *k)
{
  cs->key[cs->n] = *k;
  return contact_set_append_keyed(cs);
}
void ContactSetClear(ContactSet *cs);
/* Sort contacts by key (ida, idb, sub): the solver's order then never depends on detection order. */
PetscErrorCode ContactSetSortByKey(ContactSet *cs);

/* m <- keys, impulses and plastic displacements of cs (which must be sorted by key); reuses m's
 * memory. Width CCP_RECORD_WIDTH. */
PetscErrorCode ImpulseMemoryStore(ImpulseMemory *m, const ContactSet *cs);
/* m <- the keys of cs (sorted), whose records were written over m's own, record i in slot i
 * (ImpulseMemoryWritableInPlace). */
PetscErrorCode ImpulseMemoryRekey(ImpulseMemory *m, const ContactSet *cs);

/* match[i] = the index in prev of contact i's key, or -1 (one merge of the two sorted key lists).
 * Both must be sorted by key. Returns how many matched. */
PetscErrorCode ImpulseMemoryMatch(const ContactSet *cur, const ImpulseMemory *prev, PetscInt match[],
                                  PetscInt *matched);

/* Warm start: copy into cur the impulses remembered for the same key (others zero), scaled by
 * `scale` in [0, 1], and the plastic displacement (unscaled: it is state, not a guess). cur must
 * be sorted by key. Returns how many matched. */
PetscErrorCode ContactSetWarmStart(ContactSet *cur, const ImpulseMemory *prev, double scale, PetscInt *matched);
/* The same warm start taken during the appends of a detection that appends in key order (each
 * complete contact calls contact_set_warm_last): Begin before it (prev and scale as above; prev
 * must stay as it is until End), End after it, which checks both key orders and returns how many
 * matched. Contacts appended otherwise (joints, then a sort) need ContactSetWarmStart instead. */
PetscErrorCode ContactSetWarmBegin(ContactSet *cur, const ImpulseMemory *prev, double scale);
PetscErrorCode ContactSetWarmEnd(ContactSet *cur, PetscInt *matched);
#endif
