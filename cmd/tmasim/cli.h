/* cli: what every tmasim subcommand shares: output formats, number lists, atomic
 * output files and the stderr progress bar. Exit codes follow the project rule:
 * 0 ok, 1 finding (conflict, rejection, hang, mismatch), 2 bad input. */
#ifndef TMASCOPE_CLI_H
#define TMASCOPE_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "afile.h"
#include "err.h"

enum { EXIT_OK = 0, EXIT_FINDING = 1, EXIT_BAD_INPUT = 2 };

/* The toolkit's version, printed by --version of every command (tmasim, each tmasim
 * subcommand, tmaview) with the trace format it reads and writes. */
#define TMASCOPE_VERSION "0.1.0"

typedef enum cli_format { CLI_FORMAT_TABLE = 0, CLI_FORMAT_CSV, CLI_FORMAT_JSON } cli_format;

/* "table" (or "human"), "csv", "json". */
int cli_format_parse(const char *s, cli_format *out, err_info *e);

/* Decimal or 0x hex, whole string, within [min, max]; field names the flag. */
int cli_parse_u64(const char *s, const char *field, uint64_t min, uint64_t max, uint64_t *out, err_info *e);
int cli_parse_i64(const char *s, const char *field, int64_t min, int64_t max, int64_t *out, err_info *e);
/* Comma-separated list of at most max_count numbers; *count receives how many. */
int cli_parse_u64_list(const char *s, const char *field, uint64_t min, uint64_t max,
                       uint64_t *out, unsigned max_count, unsigned *count, err_info *e);
int cli_parse_i64_list(const char *s, const char *field, int64_t min, int64_t max,
                       int64_t *out, unsigned max_count, unsigned *count, err_info *e);

/* Prints "tmasim <cmd>: <rule>: <detail>" on one line to stderr and returns e->code
 * mapped to an exit status (ERR_BAD_INPUT and ERR_IO -> 2, ERR_FINDING -> 1). */
int cli_report(const char *cmd, const err_info *e);

/* An output path given by flag: its directory must exist and be writable. Checked when
 * the flag is read, so that nothing is printed or computed for a file that cannot be
 * written. */
int cli_check_outpath(const char *flag, const char *path, err_info *e);

/* Output files through afile (sim/afile.h): a regular file is written to PATH.tmp.PID
 * and renamed over PATH on commit; a device or FIFO is written in place; every write and
 * the close are checked; temporary files go away on SIGINT/SIGTERM. */
typedef struct cli_outfile {
    FILE *fp;
    afile f;
} cli_outfile;
int cli_outfile_open(cli_outfile *o, const char *path, err_info *e);
int cli_outfile_commit(cli_outfile *o, err_info *e);   /* closes, then renames */
void cli_outfile_abort(cli_outfile *o);                 /* closes and removes the temp file */

/* Progress bar on stderr, drawn only when stderr is a terminal. */
typedef struct cli_progress {
    const char *label;
    uint64_t total;
    uint64_t last_drawn;
    int enabled;
} cli_progress;
void cli_progress_begin(cli_progress *p, const char *label, uint64_t total);
void cli_progress_update(cli_progress *p, uint64_t done);
void cli_progress_end(cli_progress *p);

/* Writes s as a JSON string (quoted; quotes, backslashes and control characters escaped). */
void cli_json_string(FILE *f, const char *s);

/* The work check before a simulation (sim/pipe_budget.h): ERR_OK, or ERR_BAD_INPUT past a
 * limit (unless force) or past the clock's range. On a terminal, a run estimated at more
 * than a second says so on stderr before it starts. */
struct pipe_desc;
struct pipe_params;
/* simulated events per second of one core (the release build on the examples) */
#define CLI_SIM_EVENTS_PER_S 3e7

int cli_sim_budget(const char *cmd, const struct pipe_desc *d, const struct pipe_params *p, int traced, int force,
                   err_info *e);

/* Reads a whole file into a NUL-terminated buffer (caller frees); a directory or a file
 * past CLI_MAX_FILE_BYTES is refused. */
#define CLI_MAX_FILE_BYTES (64u << 20)
int cli_read_file(const char *path, char **text, size_t *len, err_info *e);

#endif
