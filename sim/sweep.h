/* sweep: a grid of pipeline configurations (the product of a few keys' values), each
 * point predicted by the simulator, ranked by predicted time. libc only (threads are
 * libc's): tmasim sweep, tmahw sweep and the benchmarks share it.
 *
 * A grid is written 'KEY=VALUES KEY=VALUES ...'. VALUES is a comma list whose items are
 * numbers, integer ranges A..B, box shapes WxH (innermost first, as in the YAML's box
 * list) or swizzle names. Keys: stages, iterations, ctas, ctas_per_sm, consumer_warps,
 * release_lag, cluster (description fields), box and swizzle (every tensor; box.NAME and
 * swizzle.NAME one tensor), or a timing parameter's name (params.h). Points are numbered
 * in the order of nested loops over the keys as written, the last key fastest.
 *
 * A point the description rules reject (pipe_desc_derive, the tensor-map rules, the
 * work limits of pipe_budget) is kept as an invalid row naming the rule; a point that
 * runs into a protocol bug (deadlock, mbarrier misuse) as a BUG row. */
#ifndef TMASCOPE_SWEEP_H
#define TMASCOPE_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "desc.h"
#include "err.h"
#include "params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SWEEP_MAX_AXES 8
#define SWEEP_MAX_VALUES 256            /* per key */
#define SWEEP_MAX_POINTS 1000000u       /* per grid */

typedef struct sweep_axis {
    char *key;
    uint32_t nvalues;
    char **values;                      /* canonical text of each value ("4", "64x128", "128B") */
} sweep_axis;

typedef struct sweep_grid {
    uint32_t naxes;
    sweep_axis axes[SWEEP_MAX_AXES];
    uint64_t npoints;
} sweep_grid;

/* Parses and checks a grid (keys known, values well formed, within the limits above).
 * ERR_BAD_INPUT naming the key and the allowed values. */
int sweep_grid_parse(const char *spec, sweep_grid *g, err_info *e);
void sweep_grid_free(sweep_grid *g);
/* The grid with every value listed ("stages=2,3,4 box=64x64"): equal grids, equal text.
 * malloc'd; NULL when out of memory. */
char *sweep_grid_text(const sweep_grid *g);
/* The value index of axis a at a point. */
uint32_t sweep_value_index(const sweep_grid *g, uint64_t point, uint32_t a);
/* "stages=4 box=64x128" of a point; malloc'd, NULL when out of memory. */
char *sweep_point_text(const sweep_grid *g, uint64_t point);
/* ERR_BAD_INPUT when a key names a tensor the description does not have. */
int sweep_grid_check(const sweep_grid *g, const pipe_desc *d, err_info *e);
/* 1 when the key is a timing parameter (the simulator's, not the kernel's). */
int sweep_key_is_param(const char *key);

/* ---- setting keys on a description -------------------------------------------------- */

/* Values that derive filled in for the loaded shape (barrier counts, expect_tx) are
 * cleared so that deriving again fits them to the new shape; values a description set to
 * seed a bug stay. */
void sweep_forget_derived(pipe_desc *d);
/* One key as a number (shape keys: whole numbers 0..65535) or as text (any key).
 * p may be NULL: a parameter key is then refused. Does not derive. */
int sweep_set_number(pipe_desc *d, pipe_params *p, const char *key, double v, err_info *e);
int sweep_set(pipe_desc *d, pipe_params *p, const char *key, const char *value, err_info *e);
/* 'KEY=VALUE KEY=VALUE' (a point's text) on d: forget derived values, set, derive. */
int sweep_apply_text(pipe_desc *d, pipe_params *p, const char *text, err_info *e);

/* ---- evaluating points --------------------------------------------------------------- */

typedef enum sweep_status { SWEEP_OK = 0, SWEEP_BUG, SWEEP_INVALID } sweep_status;
const char *sweep_status_name(sweep_status s);   /* "ok", "BUG", "invalid" */

typedef struct sweep_row {
    uint64_t index;                     /* the point */
    sweep_status status;
    int64_t kernel_ns;                  /* predicted (ok, BUG) */
    uint64_t sim_events;
    double hbm_util;
    char bottleneck[24];                /* verdict_name of the run */
    char rule[64];                      /* invalid: the rejecting rule; BUG: the finding */
    char *detail;                       /* its message (malloc'd, may be NULL) */
} sweep_row;

typedef struct sweep_run_opts {
    const pipe_params *params;          /* the base parameters (NULL: H100 defaults) */
    int force;                          /* run past pipe_budget's work limits */
    unsigned jobs;                      /* threads; 0: the CPUs this process may use */
    void (*progress)(void *user, uint64_t done);   /* from the calling thread, about 10 per s */
    void *progress_user;
} sweep_run_opts;

/* The CPUs this process may run on (its affinity mask; what Slurm gives a task). */
unsigned sweep_cpus(void);
/* One point. ERR_OK with *row filled (ok, BUG or invalid); ERR_IO only when out of memory. */
int sweep_eval(const pipe_desc *base, const sweep_grid *g, uint64_t point, const sweep_run_opts *o, sweep_row *row,
               err_info *e);
/* The n points listed (rows[i] for points[i]) on o->jobs threads. */
int sweep_run(const pipe_desc *base, const sweep_grid *g, const uint64_t *points, uint64_t n, const sweep_run_opts *o,
              sweep_row *rows, err_info *e);
void sweep_rows_free(sweep_row *rows, uint64_t n);   /* the details, then the array */

/* Ranks: ok rows by predicted time (then point), then BUG rows, then invalid rows (by point). */
void sweep_rank(sweep_row *rows, uint64_t n);

/* Points of shard k of n: every n-th point from k (neighbouring points differ in cost). */
uint64_t sweep_shard_points(const sweep_grid *g, uint32_t k, uint32_t n, uint64_t *points);

/* ---- reading the result -------------------------------------------------------------- */

/* The influence of each key: the spread (max - min) over its values of the mean log2
 * predicted time of the ok points with that value; 0 for a key of one value. */
void sweep_influence(const sweep_grid *g, const sweep_row *rows, uint64_t n, double *out);
/* The two most influential keys with two or more values (*ay = *ax when only one has). 0, or
 * -1 when no key has two values. */
int sweep_top_axes(const sweep_grid *g, const double *influence, uint32_t *ax, uint32_t *ay);
/* cells[vy * nx + vx]: the least predicted time (ns) of the ok points with those values of
 * axes ax and ay, -1 where there is none. */
void sweep_best_map(const sweep_grid *g, const sweep_row *rows, uint64_t n, uint32_t ax, uint32_t ay, double *cells);
/* Spearman's rank correlation of a and b (ties get their average rank); 0 when n < 2 or
 * either has no spread. */
double sweep_spearman(const double *a, const double *b, size_t n);

/* ---- result files -------------------------------------------------------------------- */

/* What a sweep is; every result file begins with it, so that shards can be checked to
 * belong together and a sweep can be computed again from its file. */
typedef struct sweep_spec {
    char *desc;                         /* the description's path as given */
    char *gpu;                          /* parameter set name or calibration file */
    char *params;                       /* --params file, NULL when none */
    int force;
    sweep_grid grid;
} sweep_spec;
void sweep_spec_free(sweep_spec *s);
/* ERR_BAD_INPUT when a path cannot be written in a file header (a line break). */
int sweep_spec_check(const sweep_spec *s, err_info *e);
/* 1 when a and b are the same sweep. */
int sweep_spec_same(const sweep_spec *a, const sweep_spec *b);

/* CSV: '# ' header lines (the spec; 'shard: K of N' in a shard file), a column line
 * (rank,index,KEYS...,status,kernel_ns,time_us,bottleneck,hbm_util,sim_events,rule,detail),
 * a row per point. shard_n 0: a whole (ranked) result. ERR_IO when a write fails. */
int sweep_write_csv(FILE *f, const sweep_spec *s, const sweep_row *rows, uint64_t n, uint32_t shard_k,
                    uint32_t shard_n);
int sweep_write_json(FILE *f, const sweep_spec *s, const sweep_row *rows, uint64_t n);
/* Reads a file sweep_write_csv wrote (rows may be NULL to read only the header), of at most
 * SWEEP_MAX_FILE_BYTES, with a row per point at most. ERR_BAD_INPUT naming the line that is
 * not what the writer writes. */
#define SWEEP_MAX_FILE_BYTES (1ull << 30)
int sweep_read_csv(const char *path, sweep_spec *s, sweep_row **rows, uint64_t *n, uint32_t *shard_k,
                   uint32_t *shard_n, err_info *e);
/* The same on len bytes in memory, named name in messages. */
int sweep_read_csv_mem(const char *data, size_t len, const char *name, sweep_spec *s, sweep_row **rows, uint64_t *n,
                       uint32_t *shard_k, uint32_t *shard_n, err_info *e);

/* ---- Slurm --------------------------------------------------------------------------- */

/* Writes DIR/NAME.sh (a job array script: SBATCH lines, cd to the current directory, then
 * `task_cmd`, in which $SLURM_ARRAY_TASK_ID picks the task) and submits it with
 * `sbatch --parsable --array=0-(ntasks-1) [extra words] [--wait]`. jobid receives the id
 * sbatch printed. ERR_IO naming sbatch's failure. */
int sweep_slurm_submit(const char *dir, const char *name, uint32_t ntasks, const char *task_cmd, const char *extra,
                       int wait, char *jobid, size_t jobid_size, err_info *e);
/* The absolute path of the running program (for a job script); malloc'd or NULL. */
char *sweep_self_path(void);

#ifdef __cplusplus
}
#endif

#endif
