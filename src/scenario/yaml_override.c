/* -set KEY=VALUE grafted into a parsed YAML document (scenario/yaml_override.h). libyaml's document keeps
 * its nodes in one array that grows as nodes are added, so the walk holds node ids, never node pointers,
 * across an addition. */
#include "scenario/yaml_override.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_SEGMENTS_MAX 32

typedef struct {
  char name[128]; /* a mapping key, or "" for a list index */
  long index;
} Segment;

/* One override being applied: r, its argument (for messages) and its number k (its nodes' line). */
typedef struct {
  YamlReader *r;
  const char *arg;
  int         k;
} Override;

static int fail(const Override *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const Override *o, const char *fmt, ...)
{
  YamlReader *r = o->r;
  va_list     ap;
  int         n;

  if (r->failed || !r->errlen) return -1;
  r->failed = 1;
  n         = snprintf(r->err, r->errlen, "command line: -set %s: ", o->arg);
  if (n < 0 || (size_t)n >= r->errlen) return -1;
  va_start(ap, fmt);
  vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

/* KEY ("a.b[2].c") into seg[0..*n); -1 if it is not such a path. */
static int parse_path(const char *key, size_t len, Segment *seg, int *n)
{
  size_t i = 0;

  *n = 0;
  while (i < len) {
    size_t start = i;
    if (*n == PATH_SEGMENTS_MAX) return -1;
    while (i < len && (key[i] == '_' || key[i] == '-' || (key[i] >= 'a' && key[i] <= 'z') ||
                       (key[i] >= 'A' && key[i] <= 'Z') || (key[i] >= '0' && key[i] <= '9')))
      i++;
    if (i == start || i - start >= sizeof(seg->name)) return -1;
    memcpy(seg[*n].name, key + start, i - start);
    seg[(*n)++].name[i - start] = 0;
    while (i < len && key[i] == '[') { /* list indices: [N] */
      char *end;
      if (*n == PATH_SEGMENTS_MAX || i + 1 >= len || key[i + 1] < '0' || key[i + 1] > '9') return -1;
      seg[*n].index = strtol(key + i + 1, &end, 10);
      if ((size_t)(end - key) >= len || *end != ']' || seg[*n].index > 1000000000L) return -1;
      seg[(*n)++].name[0] = 0;
      i                   = (size_t)(end - key) + 1;
    }
    if (i < len && key[i] != '.') return -1;
    if (i < len && ++i == len) return -1; /* a trailing '.' */
  }
  return *n ? 0 : -1;
}

/* The path of seg[0..n) as written in KEY, for messages. */
static void path_text(const Segment *seg, int n, char *buf, size_t len)
{
  size_t k = 0;
  buf[0]   = 0;
  for (int i = 0; i < n && k < len; i++) {
    int w = seg[i].name[0] ? snprintf(buf + k, len - k, "%s%s", i ? "." : "", seg[i].name)
                           : snprintf(buf + k, len - k, "[%ld]", seg[i].index);
    if (w < 0) return;
    k += (size_t)w;
  }
}

static void mark(const Override *o, int id)
{
  yaml_node_t *n     = yaml_document_get_node(&o->r->doc, id);
  n->start_mark.line = n->end_mark.line = (size_t)READER_OVERRIDE_LINE + (size_t)o->k;
}

/* Copies node id of src (the parsed VALUE) into the reader's document, every copied node marked as the
 * override's; returns the new node's id, or 0 after a problem. */
static int graft(const Override *o, yaml_document_t *src, int id, int depth)
{
  yaml_document_t *doc = &o->r->doc;
  yaml_node_t     *n   = yaml_document_get_node(src, id);
  int              copy;

  if (depth > OVERRIDE_VALUE_DEPTH) {
    fail(o, "the value nests lists and mappings deeper than %d levels; give a simpler value", OVERRIDE_VALUE_DEPTH);
    return 0;
  }
  switch (n->type) {
  case YAML_SCALAR_NODE:
    copy = yaml_document_add_scalar(doc, n->tag, n->data.scalar.value, (int)n->data.scalar.length,
                                    n->data.scalar.style);
    break;
  case YAML_SEQUENCE_NODE:
    copy = yaml_document_add_sequence(doc, n->tag, n->data.sequence.style);
    for (int i = 0; copy && i < (int)(n->data.sequence.items.top - n->data.sequence.items.start); i++) {
      const int item = graft(o, src, yaml_document_get_node(src, id)->data.sequence.items.start[i], depth + 1);
      if (!item || !yaml_document_append_sequence_item(doc, copy, item)) return 0;
    }
    break;
  case YAML_MAPPING_NODE:
    copy = yaml_document_add_mapping(doc, n->tag, n->data.mapping.style);
    for (int i = 0; copy && i < (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start); i++) {
      const yaml_node_pair_t p     = yaml_document_get_node(src, id)->data.mapping.pairs.start[i];
      const int              key   = graft(o, src, p.key, depth + 1);
      const int              value = key ? graft(o, src, p.value, depth + 1) : 0;
      if (!value || !yaml_document_append_mapping_pair(doc, copy, key, value)) return 0;
    }
    break;
  default:
    copy = 0;
  }
  if (!copy) {
    fail(o, "out of memory while setting the value");
    return 0;
  }
  mark(o, copy);
  return copy;
}

/* The index of the pair of mapping id whose key is the plain name, or -1. */
static int find_pair(yaml_document_t *doc, int id, const char *name)
{
  yaml_node_t *m = yaml_document_get_node(doc, id);
  for (int i = 0; i < (int)(m->data.mapping.pairs.top - m->data.mapping.pairs.start); i++) {
    yaml_node_t *key = yaml_document_get_node(doc, m->data.mapping.pairs.start[i].key);
    if (key->type == YAML_SCALAR_NODE && !strcmp((const char *)key->data.scalar.value, name)) return i;
  }
  return -1;
}

/* A new plain scalar holding name, marked as the override's; 0 after a problem. */
static int add_key(const Override *o, const char *name)
{
  const int id = yaml_document_add_scalar(&o->r->doc, NULL, (yaml_char_t *)name, -1, YAML_PLAIN_SCALAR_STYLE);
  if (!id) fail(o, "out of memory while setting the value");
  else mark(o, id);
  return id;
}

/* Where the value goes: node `parent` (a mapping or a list) at `slot` (its pair or entry index; -1: a new pair
 * with key seg.name). Walks seg[0..n) from the root, adding the mappings missing on the way. */
static int walk(const Override *o, const Segment *seg, int n, int *parent, int *slot)
{
  yaml_document_t *doc = &o->r->doc;
  int              cur = 1; /* the root: the first node of the document */
  char             where[256], got[96];

  for (int s = 0; s < n; s++) {
    yaml_node_t *node = yaml_document_get_node(doc, cur);
    path_text(seg, s, where, sizeof(where));
    reader_describe(node, got, sizeof(got));
    if (!seg[s].name[0]) { /* [index] */
      int count;
      if (node->type != YAML_SEQUENCE_NODE)
        return fail(o, "'%s' is %s, not a list, so it has no entry [%ld]; check the key path", where, got,
                    seg[s].index);
      count = reader_count(node);
      if (seg[s].index >= count)
        return fail(o,
                    "'%s' has %d entries ([0] to [%d]), so [%ld] names none; -set changes entries, it cannot add "
                    "them (add it to the file)",
                    where, count, count - 1, seg[s].index);
      *parent = cur;
      *slot   = (int)seg[s].index;
      cur     = node->data.sequence.items.start[seg[s].index];
      continue;
    }
    if (node->type != YAML_MAPPING_NODE)
      return fail(o, "'%s' is %s, not a mapping, so it has no key '%s'; check the key path", s ? where : "the scenario",
                  got, seg[s].name);
    *parent = cur;
    *slot   = find_pair(doc, cur, seg[s].name);
    if (*slot >= 0) {
      cur = yaml_document_get_node(doc, cur)->data.mapping.pairs.start[*slot].value;
      continue;
    }
    if (s + 1 == n) return 0; /* a new last key: added with the value */
    path_text(seg, s + 1, where, sizeof(where));
    if (!seg[s + 1].name[0])
      return fail(o, "the scenario has no list '%s', so it has no entry [%ld]; check the key path", where,
                  seg[s + 1].index);
    { /* a mapping missing on the way: added, so that its checks name what it lacks */
      const int key = add_key(o, seg[s].name),
                map = key ? yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE) : 0;
      if (!map || !yaml_document_append_mapping_pair(doc, cur, key, map)) return key ? fail(o, "out of memory") : -1;
      mark(o, map);
      cur = map;
    }
  }
  return 0;
}

/* Applies one "KEY=VALUE" (len bytes of line). */
static int apply_one(const Override *o, const char *line, size_t len)
{
  const char     *eq = memchr(line, '=', len);
  Segment         seg[PATH_SEGMENTS_MAX];
  int             n, parent = 0, slot = -1, value = 0, status = 0;
  yaml_parser_t   parser;
  yaml_document_t vdoc;
  char           *text;

  if (!eq || eq == line)
    return fail(o, "give KEY=VALUE, a key path and its value, e.g. -set time.end=2 or -set materials[0].friction=0.4");
  if (parse_path(line, (size_t)(eq - line), seg, &n))
    return fail(o,
                "'%.*s' is not a key path; write keys separated by '.' and list entries as [N], e.g. "
                "materials[0].rolling_friction",
                (int)(eq - line), line);
  if (eq + 1 == line + len) return fail(o, "no value after '='; give one, e.g. -set time.end=2");
  text = strndup(eq + 1, len - (size_t)(eq + 1 - line));
  if (!text || !yaml_parser_initialize(&parser)) {
    free(text);
    return fail(o, "out of memory");
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
  if (!yaml_parser_load(&parser, &vdoc)) {
    status = fail(o, "the value is not valid YAML (%s); quote it for the shell, e.g. -set 'gravity=[0, 0, -9.81]'",
                  parser.problem ? parser.problem : "a syntax error");
    yaml_parser_delete(&parser);
    free(text);
    return status;
  }
  if (!yaml_document_get_root_node(&vdoc)) status = fail(o, "no value after '='; give one, e.g. -set time.end=2");
  if (!status) status = walk(o, seg, n, &parent, &slot);
  if (!status) value = graft(o, &vdoc, 1, 1);
  if (!status && !value) status = -1;
  if (!status) {
    yaml_node_t *p = yaml_document_get_node(&o->r->doc, parent);
    if (p->type == YAML_SEQUENCE_NODE) p->data.sequence.items.start[slot] = value;
    else if (slot >= 0) p->data.mapping.pairs.start[slot].value = value;
    else {
      const int key = add_key(o, seg[n - 1].name);
      if (!key) status = -1;
      else if (!yaml_document_append_mapping_pair(&o->r->doc, parent, key, value)) status = fail(o, "out of memory");
    }
  }
  yaml_document_delete(&vdoc);
  yaml_parser_delete(&parser);
  free(text);
  return status;
}

int reader_apply_overrides(YamlReader *r, const char *overrides)
{
  const char *s = overrides;
  char        arg[512];

  r->overrides = overrides;
  for (int k = 0; s && *s; k++) {
    const size_t len = strcspn(s, "\n");
    Override     o   = {r, arg, k};
    snprintf(arg, sizeof(arg), "%.*s", (int)len, s);
    if (k == 0 && yaml_document_get_root_node(&r->doc)->type != YAML_MAPPING_NODE)
      return fail(&o, "the scenario is not a mapping of keys; fix the file first");
    if (apply_one(&o, s, len)) return -1;
    s += len + (s[len] == '\n');
  }
  return 0;
}
