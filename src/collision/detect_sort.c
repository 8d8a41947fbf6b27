/* Key sorts of collision detection (collision/detect_impl.h): staged records into contact-key order. */
#include "collision/detect_impl.h"
#include <string.h>

static inline int bit_length(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

/* Both record types the radix sort moves: 16 bytes, the 64-bit key first. Moved with memcpy, so
 * one sort serves both without breaking C's aliasing rules. */
#define RECORD_BYTES 16
_Static_assert(sizeof(SortRecord) == RECORD_BYTES && sizeof(PairRecord) == RECORD_BYTES,
               "the radix sort moves 16-byte records");
static inline uint64_t record_key(const char *r, PetscInt k)
{
  uint64_t key;
  memcpy(&key, r + (size_t)RECORD_BYTES * k, sizeof(key));
  return key;
}

/* LSD radix sort of n 16-byte records by the low `bits` bits of their key, ping-ponging between r
 * and tmp; digits of at most 11 bits keep the histograms in L1. Stable. Returns the buffer
 * holding the result. */
static void *radix_sort(void *rv, void *tmpv, PetscInt n, int bits)
{
  char *r = (char *)rv, *tmp = (char *)tmpv;
  enum {
    MAX_PASSES = 6,
    MAX_DIGIT  = 11
  };
  const int      passes = (bits + MAX_DIGIT - 1) / MAX_DIGIT, width = passes ? (bits + passes - 1) / passes : 0;
  const uint64_t mask = ((uint64_t)1 << width) - 1;
  PetscInt       hist[MAX_PASSES][1 << MAX_DIGIT];

  if (n < 2) return r;
  memset(hist, 0, sizeof(hist));
  for (PetscInt k = 0; k < n; k++)
    for (int p = 0; p < passes; p++) hist[p][(record_key(r, k) >> (p * width)) & mask]++;
  for (int p = 0; p < passes; p++) {
    PetscInt sum = 0;
    char    *swap;
    if (hist[p][(record_key(r, 0) >> (p * width)) & mask] == n) continue; /* all share this digit */
    for (uint64_t d = 0; d <= mask; d++) {
      const PetscInt c = hist[p][d];
      hist[p][d]       = sum;
      sum += c;
    }
    for (PetscInt k = 0; k < n; k++)
      memcpy(tmp + (size_t)RECORD_BYTES * hist[p][(record_key(r, k) >> (p * width)) & mask]++,
             r + (size_t)RECORD_BYTES * k, RECORD_BYTES);
    swap = r;
    r    = tmp;
    tmp  = swap;
  }
  return r;
}

/* Records that start with a key, `stride` bytes apart. */
typedef struct {
  const char *base;
  size_t      stride;
} KeyedRecords;

static inline const ContactKey *keyed_key(const KeyedRecords *r, PetscInt k)
{
  return (const ContactKey *)(r->base + r->stride * (size_t)k);
}

/* Fallback order when the id ranges do not fit one 64-bit key: by key, then staging order. */
static int staged_compare(const void *pa, const void *pb, void *ctx)
{
  const KeyedRecords *st = (const KeyedRecords *)ctx;
  const SortRecord   *x = (const SortRecord *)pa, *y = (const SortRecord *)pb;
  const ContactKey   *kx = keyed_key(st, x->idx), *ky = keyed_key(st, y->idx);
  if (kx->ida != ky->ida) return kx->ida < ky->ida ? -1 : 1;
  if (kx->idb != ky->idb) return kx->idb < ky->idb ? -1 : 1;
  if (kx->sub != ky->sub) return kx->sub < ky->sub ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

PetscErrorCode collision_sort_by_key(const void *records, size_t stride, PetscInt nst, SortRecord *rec, SortRecord *tmp,
                                     SortRecord **sorted)
{
  KeyedRecords st  = {(const char *)records, stride};
  int64_t      alo = INT64_MAX, ahi = INT64_MIN, blo = INT64_MAX, bhi = INT64_MIN;
  int          bits_a, bits_b;
  PetscInt     k;

  PetscFunctionBegin;
  for (k = 0; k < nst; k++) {
    const ContactKey *key = keyed_key(&st, k);
    alo                   = PetscMin(alo, key->ida);
    ahi                   = PetscMax(ahi, key->ida);
    blo                   = PetscMin(blo, key->idb);
    bhi                   = PetscMax(bhi, key->idb);
  }
  /* id ranges in unsigned arithmetic, exact for any int64 ids; sub < 4 takes 2 bits */
  bits_a = nst ? bit_length((uint64_t)ahi - (uint64_t)alo) : 0;
  bits_b = nst ? bit_length((uint64_t)bhi - (uint64_t)blo) : 0;
  if (bits_a + bits_b + 2 <= 64) {
    for (k = 0; k < nst; k++) {
      const ContactKey *key = keyed_key(&st, k);
      rec[k].key = ((((uint64_t)key->ida - (uint64_t)alo) << bits_b | ((uint64_t)key->idb - (uint64_t)blo)) << 2) |
                   (uint64_t)key->sub;
      rec[k].idx = k;
    }
    *sorted = (SortRecord *)radix_sort(rec, tmp, nst, bits_a + bits_b + 2);
  } else {
    for (k = 0; k < nst; k++) rec[k].idx = k;
    PetscCall(PetscTimSort(nst, rec, sizeof(SortRecord), staged_compare, &st));
    *sorted = rec;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PairKeyRange collision_pair_key_range(const BodyStore *s, PetscInt nb, int nwalls)
{
  int64_t lo = nwalls ? (int64_t)wall_global_id(nwalls - 1) : INT64_MAX,
          hi = nwalls ? (int64_t)wall_global_id(0) : INT64_MIN;
  PairKeyRange r;

  for (PetscInt i = 0; i < nb; i++) {
    lo = PetscMin(lo, s->id[i]);
    hi = PetscMax(hi, s->id[i]);
  }
  r.lo   = lo;
  r.bits = lo <= hi ? bit_length((uint64_t)hi - (uint64_t)lo) : 0; /* unsigned: exact for any int64 ids */
  r.fits = (PetscBool)(2 * r.bits <= 64);
  return r;
}

/* Ids of the pairs' bodies, for the comparison sort */
typedef struct {
  const BodyStore *s;
  PetscInt         nb;
} PairIds;

static inline int64_t pair_id(const PairIds *p, int32_t i)
{
  return i >= p->nb ? (int64_t)wall_global_id((int)(i - p->nb)) : p->s->id[i];
}

static int pair_compare(const void *pa, const void *pb, void *ctx)
{
  const PairIds    *p = (const PairIds *)ctx;
  const PairRecord *x = (const PairRecord *)pa, *y = (const PairRecord *)pb;
  const int64_t     xa = pair_id(p, x->a), ya = pair_id(p, y->a), xb = pair_id(p, x->b), yb = pair_id(p, y->b);
  if (xa != ya) return xa < ya ? -1 : 1;
  return (xb > yb) - (xb < yb);
}

PetscErrorCode collision_sort_pairs(const BodyStore *s, PetscInt nb, const PairKeyRange *r, PetscInt n, PairRecord *rec,
                                    PairRecord *tmp, PairRecord **sorted)
{
  PairIds ids = {s, nb};

  PetscFunctionBegin;
  if (r->fits) *sorted = (PairRecord *)radix_sort(rec, tmp, n, 2 * r->bits);
  else {
    if (n > 1)
      PetscCall(PetscTimSort(n, rec, sizeof(PairRecord), pair_compare, &ids)); /* keys are unique: the order is total */
    *sorted = rec;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
