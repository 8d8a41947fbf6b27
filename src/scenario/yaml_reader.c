/* Reading one YAML document into typed values (contracts in yaml_reader.h). */
#include "scenario/yaml_reader.h"
#include "scenario/scenario.h"
#include "base/growth.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define READ_BLOCK ((size_t)1 << 16) /* bytes read from a scenario file at a time */

static const char  *text_of(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }
static yaml_node_t *node_at(YamlReader *r, int index) { return yaml_document_get_node(&r->doc, index); }

int reader_line(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }
int reader_count(const yaml_node_t *list)
{
  return (int)(list->data.sequence.items.top - list->data.sequence.items.start);
}
static yaml_node_t *list_item(YamlReader *r, const yaml_node_t *list, int i)
{
  return node_at(r, list->data.sequence.items.start[i]);
}

/* ---- the document ------------------------------------------------------------------------- */

int reader_read_file(const char *path, size_t max_bytes, char **text_out, char *err, size_t errlen)
{
  FILE       *fp   = fopen(path, "rb");
  char       *text = NULL;
  size_t      len = 0, cap = 0, got;
  struct stat st;

  *text_out = NULL;
  if (!fp) {
    snprintf(err, errlen, "%s: cannot open the scenario (%s); check the path", path, strerror(errno));
    return -1;
  }
  if (!fstat(fileno(fp), &st) && S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max_bytes) {
    snprintf(err, errlen, "%s: the scenario has %jd bytes, more than the %zu MB a scenario may have; check the path",
             path, (intmax_t)st.st_size, max_bytes >> 20);
    fclose(fp);
    return -1;
  }
  /* Read in blocks, checking each for a NUL byte and the total against max_bytes as it comes, so that
   * a device or pipe (/dev/zero) is refused after one block, not read whole. */
  do {
    if (len + READ_BLOCK + 1 > cap) {
      char *bigger = realloc(text, cap = GrowthCapacity(cap, len + READ_BLOCK + 1));
      if (!bigger) {
        free(text);
        fclose(fp);
        snprintf(err, errlen, "%s: out of memory while reading the scenario", path);
        return -1;
      }
      text = bigger;
    }
    got                = fread(text + len, 1, READ_BLOCK, fp);
    const char *nul    = memchr(text + len, 0, got);
    const int   toobig = len + got > max_bytes;
    if (nul || toobig) {
      if (nul)
        snprintf(err, errlen,
                 "%s: the scenario contains a NUL byte (at byte %zu), so it is not a text file; check the path", path,
                 (size_t)(nul - text));
      else
        snprintf(err, errlen, "%s: the scenario is longer than the %zu MB a scenario may have; check the path", path,
                 max_bytes >> 20);
      free(text);
      fclose(fp);
      return -1;
    }
    len += got;
  } while (got > 0);
  if (ferror(fp)) {
    snprintf(err, errlen, "%s: cannot read the scenario (%s); check the file", path, strerror(errno));
    free(text);
    fclose(fp);
    return -1;
  }
  fclose(fp);
  text[len] = 0;
  *text_out = text;
  return 0;
}

/* One-line message for a libyaml failure. Reader errors (bad UTF-8) carry only a byte offset. */
static void yaml_problem(const yaml_parser_t *p, const char *text, const char *name, char *err, size_t errlen)
{
  size_t line         = p->problem_mark.line + 1;
  char   context[160] = "";
  if (p->error == YAML_READER_ERROR) {
    line = 1;
    for (size_t i = 0; i < p->problem_offset && text[i]; i++) line += text[i] == '\n';
  }
  if (p->context)
    snprintf(context, sizeof context, " (%s, which starts at line %zu)", p->context, p->context_mark.line + 1);
  if (p->error == YAML_MEMORY_ERROR) snprintf(err, errlen, "%s: out of memory while reading the scenario", name);
  else
    snprintf(err, errlen, "%s:%zu: malformed YAML: %s%s; fix the syntax", name, line,
             p->problem ? p->problem : "unknown problem", context);
}

/* 0 if no list or mapping of text's YAML stream lies more than max_depth deep, else -1 with the
 * message. By events, stopping at the first level too deep: libyaml's scanner keeps a simple-key
 * entry per open flow level and checks them all at every token, so a loader given 10^6 nested '['
 * works for hours. A syntax error ends the count: the loader reports it. */
static int check_depth(const char *text, const char *name, int max_depth, char *err, size_t errlen)
{
  yaml_parser_t p;
  yaml_event_t  ev;
  int           depth = 0, status = 0, done = 0;

  if (!yaml_parser_initialize(&p)) {
    snprintf(err, errlen, "%s: out of memory while reading the scenario", name);
    return -1;
  }
  yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
  while (!done && yaml_parser_parse(&p, &ev)) {
    if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
      if (++depth > max_depth) {
        snprintf(err, errlen,
                 "%s:%zu: lists and mappings nested more than %d deep; a scenario nests at most 5 (fills[0].region.min)"
                 ", so check the brackets and the indentation",
                 name, ev.start_mark.line + 1, max_depth);
        status = -1;
        done   = 1;
      }
    } else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) depth--;
    else if (ev.type == YAML_STREAM_END_EVENT) done = 1;
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&p);
  return status;
}

int reader_open(YamlReader *r, const char *text, const char *name, int max_depth, char *err, size_t errlen)
{
  memset(r, 0, sizeof *r);
  r->file   = name;
  r->text   = text;
  r->err    = err;
  r->errlen = errlen;
  if (check_depth(text, name, max_depth, err, errlen)) return -1;
  if (!yaml_parser_initialize(&r->parser)) {
    snprintf(err, errlen, "%s: out of memory while reading the scenario", name);
    return -1;
  }
  yaml_parser_set_input_string(&r->parser, (const unsigned char *)text, strlen(text));
  if (!yaml_parser_load(&r->parser, &r->doc)) {
    yaml_problem(&r->parser, text, name, err, errlen);
    yaml_parser_delete(&r->parser);
    return -1;
  }
  return 0;
}

yaml_node_t *reader_root(YamlReader *r) { return yaml_document_get_root_node(&r->doc); }

int reader_check_one_document(YamlReader *r)
{
  yaml_document_t extra;
  yaml_node_t    *second;
  int             status = 0;
  if (!yaml_parser_load(&r->parser, &extra)) {
    yaml_problem(&r->parser, r->text, r->file, r->err, r->errlen);
    return -1;
  }
  second = yaml_document_get_root_node(&extra);
  if (second)
    status = reader_fail(r, second, NULL,
                         "a second YAML document starts here; a scenario is one document, so remove the '---' and "
                         "what follows");
  yaml_document_delete(&extra);
  return status;
}

void reader_close(YamlReader *r)
{
  yaml_document_delete(&r->doc);
  yaml_parser_delete(&r->parser);
}

/* ---- messages ----------------------------------------------------------------------------- */

static void vmessage(char *err, size_t errlen, const char *file, int line, const char *path, const char *fmt,
                     va_list ap)
{
  int k;
  if (!errlen) return;
  if (line <= 0 && path) k = snprintf(err, errlen, "%s: key '%s': ", file, path); /* no line: a -set argument */
  else if (line <= 0) k = snprintf(err, errlen, "%s: ", file);
  else if (path) k = snprintf(err, errlen, "%s:%d: key '%s': ", file, line, path);
  else k = snprintf(err, errlen, "%s:%d: ", file, line);
  if (k >= 0 && (size_t)k < errlen) vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
}

/* The k-th line of the override lines (without its newline) in buf; "" when there is none. */
static void override_line(const char *overrides, int k, char *buf, size_t len)
{
  const char *s = overrides ? overrides : "";
  for (; k > 0 && *s; k--) s += strcspn(s, "\n") + (s[strcspn(s, "\n")] == '\n');
  snprintf(buf, len, "%.*s", (int)strcspn(s, "\n"), s);
}

int reader_fail(YamlReader *r, const yaml_node_t *at, const char *path, const char *fmt, ...)
{
  if (!r->failed) {
    va_list ap;
    int     line = at ? reader_line(at) : 1;
    va_start(ap, fmt);
    if (line > READER_OVERRIDE_LINE) { /* a node an override grafted: name the -set argument, not a line */
      char where[600], arg[512];
      override_line(r->overrides, line - READER_OVERRIDE_LINE - 1, arg, sizeof(arg));
      snprintf(where, sizeof(where), "command line: -set %s", arg);
      vmessage(r->err, r->errlen, where, 0, path, fmt, ap);
    } else vmessage(r->err, r->errlen, r->file, line, path, fmt, ap);
    va_end(ap);
    r->failed = 1;
  }
  return -1;
}

int reader_missing(YamlReader *r, const yaml_node_t *m, const char *kpath, const char *hint)
{
  return reader_fail(r, m, kpath, "missing; %s", hint);
}

/* Key paths are only for messages: an overlong one (a huge key in the file) ends in "...". */
static void mark_truncated(char out[KEY_PATH_MAX], int k)
{
  if (k >= KEY_PATH_MAX) strcpy(out + KEY_PATH_MAX - 4, "...");
}
void reader_join_path(char out[KEY_PATH_MAX], const char *path, const char *key)
{
  mark_truncated(out,
                 path[0] ? snprintf(out, KEY_PATH_MAX, "%s.%s", path, key) : snprintf(out, KEY_PATH_MAX, "%s", key));
}
static void index_path(char out[KEY_PATH_MAX], const char *path, int i)
{
  mark_truncated(out, snprintf(out, KEY_PATH_MAX, "%s[%d]", path, i));
}

void reader_join_names(const char *const *names, char *buf, size_t n)
{
  size_t k = 0;
  buf[0]   = 0;
  for (int i = 0; names[i] && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", names[i]);
}

void reader_describe(const yaml_node_t *n, char *buf, size_t len)
{
  switch (n->type) {
  case YAML_SCALAR_NODE:
    snprintf(buf, len, text_of(n)[0] ? "'%.40s'" : "nothing%s", text_of(n));
    break;
  case YAML_SEQUENCE_NODE:
    snprintf(buf, len, "a list of %d entries", reader_count(n));
    break;
  case YAML_MAPPING_NODE:
    snprintf(buf, len, "a mapping");
    break;
  default:
    snprintf(buf, len, "nothing");
    break;
  }
}

/* ---- structure ---------------------------------------------------------------------------- */

int reader_expect_mapping(YamlReader *r, const yaml_node_t *n, const char *path, const char *hint)
{
  char got[96];
  if (n->type == YAML_MAPPING_NODE) return 0;
  reader_describe(n, got, sizeof got);
  return reader_fail(r, n, path, "expected a mapping {key: value, ...}, got %s; %s", got, hint);
}

int reader_expect_list(YamlReader *r, const yaml_node_t *n, const char *path, const char *hint)
{
  char got[96];
  if (n->type == YAML_SEQUENCE_NODE) return 0;
  reader_describe(n, got, sizeof got);
  return reader_fail(r, n, path, "expected a list (entries starting with '- ' or [a, b]), got %s; %s", got, hint);
}

int reader_check_keys(YamlReader *r, const yaml_node_t *m, const char *path, const char *const *allowed)
{
  char kpath[KEY_PATH_MAX], names[512];
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    const yaml_node_t *key   = node_at(r, p->key);
    int                known = 0;
    if (key->type != YAML_SCALAR_NODE)
      return reader_fail(r, key, NULL, "a key%s%s must be a plain name, not a list or mapping; write name: value",
                         path[0] ? " in " : "", path);
    reader_join_path(kpath, path, text_of(key));
    for (int i = 0; allowed[i]; i++) known |= !strcmp(allowed[i], text_of(key));
    if (!known) {
      reader_join_names(allowed, names, sizeof names);
      return reader_fail(r, key, kpath, "unknown key; the allowed keys %s%s%s are: %s",
                         path[0] ? "of '" : "at the top level", path, path[0] ? "'" : "", names);
    }
    for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < p; q++) {
      const yaml_node_t *prev = node_at(r, q->key);
      if (prev->type == YAML_SCALAR_NODE && !strcmp(text_of(prev), text_of(key)))
        return reader_fail(r, key, kpath, "duplicate key (first given at line %d); keep only one", reader_line(prev));
    }
  }
  return 0;
}

yaml_node_t *reader_field(YamlReader *r, const yaml_node_t *m, const char *path, const char *key,
                          char kpath[KEY_PATH_MAX])
{
  reader_join_path(kpath, path, key);
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    const yaml_node_t *k = node_at(r, p->key);
    if (k->type == YAML_SCALAR_NODE && !strcmp(text_of(k), key)) return node_at(r, p->value);
  }
  return NULL;
}

int reader_get_mapping(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need,
                       const char *const *allowed, const char *hint, yaml_node_t **out, char kpath[KEY_PATH_MAX])
{
  *out = reader_field(r, m, path, key, kpath);
  if (!*out) return need == REQUIRED ? reader_missing(r, m, kpath, hint) : 0;
  TRY(reader_expect_mapping(r, *out, kpath, hint));
  return reader_check_keys(r, *out, kpath, allowed);
}

int reader_get_list(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need, const char *hint,
                    yaml_node_t **out, char kpath[KEY_PATH_MAX])
{
  *out = reader_field(r, m, path, key, kpath);
  if (!*out) return need == REQUIRED ? reader_missing(r, m, kpath, hint) : 0;
  return reader_expect_list(r, *out, kpath, hint);
}

int reader_get_entry(YamlReader *r, const yaml_node_t *list, const char *path, int i, const char *hint,
                     yaml_node_t **out, char ipath[KEY_PATH_MAX])
{
  *out = list_item(r, list, i);
  index_path(ipath, path, i);
  return reader_expect_mapping(r, *out, ipath, hint);
}

void *reader_calloc(YamlReader *r, const yaml_node_t *list, const char *path, size_t n, size_t size)
{
  void *p = calloc(n, size);
  if (!p) reader_fail(r, list, path, "out of memory");
  return p;
}

/* ---- values ------------------------------------------------------------------------------- */

/* A YAML number as people write them: [+-]digits[.digits][e[+-]digits], or .5, 5. */
static int is_decimal_number(const char *s)
{
  int digits = 0;
  if (*s == '+' || *s == '-') s++;
  while (isdigit((unsigned char)*s)) {
    s++;
    digits++;
  }
  if (*s == '.') {
    s++;
    while (isdigit((unsigned char)*s)) {
      s++;
      digits++;
    }
  }
  if (!digits) return 0;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!isdigit((unsigned char)*s)) return 0;
    while (isdigit((unsigned char)*s)) s++;
  }
  return *s == '\0';
}

static int is_integer_text(const char *s)
{
  if (*s == '+' || *s == '-') s++;
  if (!isdigit((unsigned char)*s)) return 0;
  while (isdigit((unsigned char)*s)) s++;
  return *s == '\0';
}

/* v is an unquoted scalar; `expected` names what it should be ("a number"). */
static int plain_scalar(YamlReader *r, const yaml_node_t *v, const char *kpath, const char *expected, const char *hint)
{
  char got[96];
  if (v->type != YAML_SCALAR_NODE) {
    reader_describe(v, got, sizeof got);
    return reader_fail(r, v, kpath, "expected %s, got %s; %s", expected, got, hint);
  }
  if (v->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
      v->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
    return reader_fail(r, v, kpath, "expected %s, got the quoted string '%.40s'; remove the quotes (%s)", expected,
                       text_of(v), hint);
  return 0;
}

static int number_value(YamlReader *r, const yaml_node_t *v, const char *kpath, const char *hint, double *x)
{
  TRY(plain_scalar(r, v, kpath, "a number", hint));
  if (!text_of(v)[0]) return reader_fail(r, v, kpath, "expected a number, got nothing; %s", hint);
  if (!is_decimal_number(text_of(v)))
    return reader_fail(r, v, kpath, "expected a number (got '%.40s'); %s", text_of(v), hint);
  *x = strtod(text_of(v), NULL);
  if (!(fabs(*x) <= SCENARIO_VALUE_MAX) || (*x != 0 && fabs(*x) < 1 / SCENARIO_VALUE_MAX))
    return reader_fail(r, v, kpath, "number out of range (got '%.40s'; give 0 or a magnitude between %g and %g); %s",
                       text_of(v), 1 / SCENARIO_VALUE_MAX, SCENARIO_VALUE_MAX, hint);
  return 0;
}

static int check_bound(YamlReader *r, const yaml_node_t *v, const char *kpath, Bound b, double x, const char *hint)
{
  if (b == POSITIVE && !(x > 0)) return reader_fail(r, v, kpath, "must be > 0 (got %s); %s", text_of(v), hint);
  if (b == NON_NEGATIVE && !(x >= 0)) return reader_fail(r, v, kpath, "must be >= 0 (got %s); %s", text_of(v), hint);
  return 0;
}

int reader_get_number(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need, Bound b,
                      const char *hint, double *out)
{
  char               kpath[KEY_PATH_MAX];
  const yaml_node_t *v = reader_field(r, m, path, key, kpath);
  double             x;
  if (!v) return need == REQUIRED ? reader_missing(r, m, kpath, hint) : 0;
  TRY(number_value(r, v, kpath, hint, &x));
  TRY(check_bound(r, v, kpath, b, x, hint));
  *out = x;
  return 0;
}

int reader_get_vector(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need, int n, Bound b,
                      const char *hint, double *out)
{
  char               kpath[KEY_PATH_MAX], epath[KEY_PATH_MAX], got[96];
  const yaml_node_t *v = reader_field(r, m, path, key, kpath);
  double             x[4];
  if (!v) return need == REQUIRED ? reader_missing(r, m, kpath, hint) : 0;
  if (v->type != YAML_SEQUENCE_NODE || reader_count(v) != n) {
    reader_describe(v, got, sizeof got);
    return reader_fail(r, v, kpath, "expected a list of %d numbers %s, got %s; %s", n,
                       n == 4 ? "[w, x, y, z]" : "[x, y, z]", got, hint);
  }
  for (int i = 0; i < n; i++) {
    const yaml_node_t *e = list_item(r, v, i);
    index_path(epath, kpath, i);
    TRY(number_value(r, e, epath, hint, &x[i]));
    TRY(check_bound(r, e, epath, b, x[i], hint));
  }
  for (int i = 0; i < n; i++) out[i] = x[i];
  return 0;
}

int reader_get_integer(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need, long long min,
                       const char *hint, long long *out)
{
  char               kpath[KEY_PATH_MAX];
  const yaml_node_t *v = reader_field(r, m, path, key, kpath);
  long long          x;
  if (!v) return need == REQUIRED ? reader_missing(r, m, kpath, hint) : 0;
  TRY(plain_scalar(r, v, kpath, "an integer", hint));
  if (!is_integer_text(text_of(v)))
    return reader_fail(r, v, kpath, "expected an integer (got '%.40s'); %s", text_of(v), hint);
  errno = 0;
  x     = strtoll(text_of(v), NULL, 10);
  if (errno == ERANGE) return reader_fail(r, v, kpath, "integer out of range (got %.40s); %s", text_of(v), hint);
  if (x < min) {
    if (min == 1) return reader_fail(r, v, kpath, "must be > 0 (got %s); %s", text_of(v), hint);
    return reader_fail(r, v, kpath, "must be >= %lld (got %s); %s", min, text_of(v), hint);
  }
  *out = x;
  return 0;
}

int reader_get_string(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need,
                      const char *hint, char *out, size_t cap)
{
  char               kpath[KEY_PATH_MAX], got[96];
  const yaml_node_t *v = reader_field(r, m, path, key, kpath);
  if (!v) return need == REQUIRED ? reader_missing(r, m, kpath, hint) : 0;
  if (v->type != YAML_SCALAR_NODE) {
    reader_describe(v, got, sizeof got);
    return reader_fail(r, v, kpath, "expected a name, got %s; %s", got, hint);
  }
  if (!text_of(v)[0]) return reader_fail(r, v, kpath, "must not be empty; %s", hint);
  if (strlen(text_of(v)) >= cap)
    return reader_fail(r, v, kpath, "too long (at most %zu characters); %s", cap - 1, hint);
  strcpy(out, text_of(v));
  return 0;
}

int reader_get_choice(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need,
                      const char *const *choices, const char *hint, int *out)
{
  char               kpath[KEY_PATH_MAX], names[256], word[128];
  const yaml_node_t *v;
  word[0] = 0;
  TRY(reader_get_string(r, m, path, key, need, hint, word, sizeof word));
  if (!word[0]) return 0;
  for (int i = 0; choices[i]; i++)
    if (!strcmp(choices[i], word)) {
      *out = i;
      return 0;
    }
  v = reader_field(r, m, path, key, kpath);
  reader_join_names(choices, names, sizeof names);
  return reader_fail(r, v, kpath, "unknown value '%s'; use one of: %s", word, names);
}
