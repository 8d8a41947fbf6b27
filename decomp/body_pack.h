/* A body's BodyStore fields as the bytes of a message record, for the messages that carry bodies
 * (decomp/migration.h, decomp/ghosts.h). A record holds the selected fields in X-macro order, without
 * padding. The fields are those of the BODY_FIELDS X-macro (src/bodies/body_store.h), so a field added
 * there migrates and is ghosted without touching this code.
 *
 * Not collective: nothing here communicates. Inline, since the ghost update packs every shared body
 * every step. */
#ifndef CCPDEM_DECOMP_BODY_PACK_H
#define CCPDEM_DECOMP_BODY_PACK_H
#include "bodies/body_store.h"
#include <string.h>

/* A set of BodyStore fields, one bit per field of the X-macro: EXCHANGE_FIELD(pos) | ... */
enum {
#define EXCHANGE_FIELD_BIT_DECL(type, name, width) EXCHANGE_FIELD_BIT_##name,
  BODY_FIELDS(EXCHANGE_FIELD_BIT_DECL)
#undef EXCHANGE_FIELD_BIT_DECL
    EXCHANGE_NUM_FIELDS
};
typedef unsigned ExchangeFields;
#define EXCHANGE_FIELD(name)   ((ExchangeFields)1u << EXCHANGE_FIELD_BIT_##name)
#define EXCHANGE_FIELDS_ALL    (((ExchangeFields)1u << EXCHANGE_NUM_FIELDS) - 1u)
#define EXCHANGE_FIELDS_MOTION (EXCHANGE_FIELD(pos) | EXCHANGE_FIELD(quat) | EXCHANGE_FIELD(vel))

/* Bytes one body's selected fields take in a message. */
static inline size_t ExchangeFieldsBytes(ExchangeFields fields)
{
  size_t n = 0;
#define FIELD_SIZE(type, name, width) \
  if (fields & EXCHANGE_FIELD(name)) n += sizeof(type) * (width);
  BODY_FIELDS(FIELD_SIZE)
#undef FIELD_SIZE
  return n;
}

/* Byte offset of the field with bit `bit` (EXCHANGE_FIELD_BIT_id, ...) in a record of all fields. */
static inline size_t ExchangeFieldOffset(int bit)
{
  const ExchangeFields before = ((ExchangeFields)1u << bit) - 1u;
  return ExchangeFieldsBytes(before);
}

/* Write the selected fields of body i of s as a record at p (ExchangeFieldsBytes(fields) bytes);
 * returns the end of the record. */
static inline char *ExchangePackBody(const BodyStore *s, PetscInt i, ExchangeFields fields, char *p)
{
#define FIELD_PACK(type, name, width) \
  if (fields & EXCHANGE_FIELD(name)) { \
    memcpy(p, s->name + (size_t)i * (width), sizeof(type) * (width)); \
    p += sizeof(type) * (width); \
  }
  BODY_FIELDS(FIELD_PACK)
#undef FIELD_PACK
  return p;
}

/* Read a record of the selected fields at p into body i of s (storage index i: the store has room
 * for it, BodyStoreReserve; its counts are the caller's); returns the end of the record. */
static inline const char *ExchangeUnpackBody(BodyStore *s, PetscInt i, ExchangeFields fields, const char *p)
{
#define FIELD_UNPACK(type, name, width) \
  if (fields & EXCHANGE_FIELD(name)) { \
    memcpy(s->name + (size_t)i * (width), p, sizeof(type) * (width)); \
    p += sizeof(type) * (width); \
  }
  BODY_FIELDS(FIELD_UNPACK)
#undef FIELD_UNPACK
  return p;
}
#endif
