/* ccpdem's own command-line options, in one table (app/option_table.c): what -help prints and what the
 * unknown-option check (app/option_check.c) accepts, so that the two cannot drift apart. The code that
 * reads an option (its PetscOptions call) stays next to the parameter it sets; tests/cli/test_help.sh
 * checks that every option the sources read is in this table. Plain C, no MPI. */
#ifndef CCPDEM_APP_OPTION_TABLE_H
#define CCPDEM_APP_OPTION_TABLE_H
#include <stdio.h>

/* The commands an option belongs to (a bit set). */
enum {
  OPT_RUN     = 1,
  OPT_RESTART = 2,
  OPT_CHECK   = 4,
  OPT_FCLIB   = 8,
  OPT_ANALYZE = 16,
  OPT_RUNS    = OPT_RUN | OPT_RESTART,
  OPT_ALL     = OPT_RUN | OPT_RESTART | OPT_CHECK | OPT_FCLIB /* the options every PETSc-reading command shares */
};

typedef struct {
  const char *topic;    /* the -help heading it is listed under */
  const char *name;     /* as written on the command line: "-ccp_tol", "--overwrite" */
  const char *arg;      /* its value ("V", "N", "jacobi|gauss-seidel|apgd"), "" for a flag */
  const char *deflt;    /* its default, as -help shows it */
  const char *help;     /* what it does, one short line */
  unsigned    commands; /* OPT_* bits */
} CcpdemOption;

/* The table, n_options entries. */
extern const CcpdemOption ccpdem_option_table[];
extern const size_t       ccpdem_option_count;

/* The table entry of an option named without its dashes ("ccp_tol", "overwrite"), or NULL. */
const CcpdemOption *OptionTableFind(const char *bare);
/* name without its leading dashes. */
const char *OptionBareName(const char *name);

/* Prints -help for command cmd ("" or an unknown name: every command and every option; "run",
 * "restart", "check", "info", "analyze", "fclib": that command's usage and options) to f. */
void OptionTablePrintHelp(FILE *f, const char *cmd);
#endif
