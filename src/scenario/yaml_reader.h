/* Reading one YAML document (libyaml document API) into typed values, for the section readers of
 * src/scenario/. It knows no key of ccpdem: callers name each key, its bound and a hint.
 *
 * Every check reports the first problem only, as one message in the caller's buffer
 *   FILE:LINE: key 'a.b[2].c': what is wrong; hint
 * where FILE is the reader's name, LINE that of the offending key or value, and the key path is
 * dotted with list indices. Functions returning int return 0 if the value was read, -1 after a
 * problem (the message is then set); TRY returns -1 from the calling function on a problem.
 * Numbers must be plain (unquoted) decimal numbers, so "abc", true, null and "5" are rejected
 * rather than read as 0 or 5, and 0 or of a magnitude within [1 / SCENARIO_VALUE_MAX,
 * SCENARIO_VALUE_MAX] (scenario/scenario.h). Not collective (no MPI). */
#ifndef CCPDEM_SCENARIO_YAML_READER_H
#define CCPDEM_SCENARIO_YAML_READER_H
#include <stddef.h>
#include <yaml.h>

#define KEY_PATH_MAX 256 /* longer key paths (only in messages) end in "..." */
#define TRY(call) \
  do { \
    if ((call) != 0) return -1; \
  } while (0)

typedef enum {
  OPTIONAL = 0,
  REQUIRED = 1
} Need;
typedef enum {
  ANY_NUMBER,
  POSITIVE,
  NON_NEGATIVE
} Bound;

typedef struct {
  const char     *file;   /* name used in messages */
  const char     *text;   /* the document's text, for the line of a byte offset */
  yaml_parser_t   parser; /* kept open after the document, to check that no second one follows */
  yaml_document_t doc;
  char           *err; /* the caller's message buffer, errlen bytes */
  size_t          errlen;
  int             failed;    /* only the first problem is reported */
  const char     *overrides; /* the -set KEY=VALUE lines grafted into doc (scenario/yaml_override.h), or NULL */
} YamlReader;

/* Nodes that an override grafted into the document carry the line READER_OVERRIDE_LINE + k (k = 0 for the first
 * override line), beyond any file's: a problem at one of them is reported as "command line: -set KEY=VALUE: ...". */
#define READER_OVERRIDE_LINE (1 << 30)

/* Reads the file at path whole into *text (NUL-terminated, the caller frees it). Returns 0, or -1
 * with one message in err (cannot open or read it, out of memory, a NUL byte in it, more than
 * max_bytes: refused without reading further) and *text NULL. */
int reader_read_file(const char *path, size_t max_bytes, char **text, char *err, size_t errlen);
/* Parses the first document of text (NUL-terminated; messages call it `name`) into r. Returns 0
 * with r open, or -1 with one message in err (malformed YAML, lists and mappings nested deeper
 * than max_depth anywhere in text, out of memory) and r closed. text, name and err must outlive r. */
int reader_open(YamlReader *r, const char *text, const char *name, int max_depth, char *err, size_t errlen);
/* The root node of the document, NULL if the text holds none. */
yaml_node_t *reader_root(YamlReader *r);
/* Returns 0 if no second document follows the first, else -1 with its message. */
int reader_check_one_document(YamlReader *r);
/* Frees what reader_open made; r's nodes are gone afterwards. */
void reader_close(YamlReader *r);

/* Records the first problem (at node `at`, line 1 if NULL; key `path`, NULL for none); returns -1. */
int reader_fail(YamlReader *r, const yaml_node_t *at, const char *path, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));
/* "missing; hint" at mapping m, the one that lacks key path kpath; returns -1. */
int reader_missing(YamlReader *r, const yaml_node_t *m, const char *kpath, const char *hint);

/* Node facts: line (1-based), number of entries of a list, and what a node is for "expected X, got Y"
 * messages ('text', nothing, a list of N entries, a mapping). */
int  reader_line(const yaml_node_t *n);
int  reader_count(const yaml_node_t *list);
void reader_describe(const yaml_node_t *n, char *buf, size_t len);
/* names (NULL-terminated) as "a, b, c" in buf of n bytes, cut short if it does not fit. */
void reader_join_names(const char *const *names, char *buf, size_t n);
/* Key path for messages: out = path.key (key alone at the top level, path ""). */
void reader_join_path(char out[KEY_PATH_MAX], const char *path, const char *key);

/* Structure. The expect_ functions check what node n (at key path) is; hint ends the message. */
int reader_expect_mapping(YamlReader *r, const yaml_node_t *n, const char *path, const char *hint);
int reader_expect_list(YamlReader *r, const yaml_node_t *n, const char *path, const char *hint);
/* Every key of mapping m is a plain name from `allowed` (NULL-terminated) and appears once. */
int reader_check_keys(YamlReader *r, const yaml_node_t *m, const char *path, const char *const *allowed);
/* The value of key in mapping m (at path), or NULL; kpath receives the key's path. */
yaml_node_t *reader_field(YamlReader *r, const yaml_node_t *m, const char *path, const char *key,
                          char kpath[KEY_PATH_MAX]);
/* Mapping under key (checked: a mapping, keys from `allowed` only). *out = NULL if absent and optional. */
int reader_get_mapping(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need,
                       const char *const *allowed, const char *hint, yaml_node_t **out, char kpath[KEY_PATH_MAX]);

/* List under key (checked: a list). *out = NULL if absent and optional. */
int reader_get_list(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need, const char *hint,
                    yaml_node_t **out, char kpath[KEY_PATH_MAX]);
/* Entry i of list (at path), checked to be a mapping, in *out; ipath receives its path path[i]. */
int reader_get_entry(YamlReader *r, const yaml_node_t *list, const char *path, int i, const char *hint,
                     yaml_node_t **out, char ipath[KEY_PATH_MAX]);
/* calloc(n, size) for what list (at path) describes; NULL after the problem "out of memory" there. */
void *reader_calloc(YamlReader *r, const yaml_node_t *list, const char *path, size_t n, size_t size);

/* Values under key in mapping m (at path). An absent optional key leaves *out alone (the default);
 * an absent required one is a problem. hint ends every message. */
/* A number within bound. */
int reader_get_number(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need, Bound b,
                      const char *hint, double *out);
/* A list of exactly n numbers (n <= 4), each within bound; out is written only if all are good. */
int reader_get_vector(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need, int n, Bound b,
                      const char *hint, double *out);
/* An integer >= min. */
int reader_get_integer(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need, long long min,
                       const char *hint, long long *out);
/* A non-empty string shorter than cap. */
int reader_get_string(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need,
                      const char *hint, char *out, size_t cap);
/* One of `choices` (NULL-terminated); *out = its index. */
int reader_get_choice(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, Need need,
                      const char *const *choices, const char *hint, int *out);
#endif
