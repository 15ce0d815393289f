/* The tmasim subcommands. Each lives in its own cmd_<name>.c and returns an exit
 * status (0 ok, 1 finding, 2 bad input). argv[0] is the subcommand name. */
#ifndef TMASCOPE_CMDS_H
#define TMASCOPE_CMDS_H

int cmd_layout(int argc, char **argv);   /* tensor-map placement */
int cmd_bank(int argc, char **argv);     /* bank conflicts of instructions or of a tile */
int cmd_replay(int argc, char **argv);   /* replay recorded H100 results against the model */
int cmd_check(int argc, char **argv);    /* pipeline protocol check */
int cmd_sim(int argc, char **argv);      /* pipeline simulation -> trace */
int cmd_export(int argc, char **argv);   /* trace -> Chrome Trace Event JSON, and back */
int cmd_diff(int argc, char **argv);     /* simulated vs measured trace */
int cmd_demo(int argc, char **argv);     /* the bundled example */
int cmd_corpus(int argc, char **argv);   /* a seeded random corpus of descriptions */
int cmd_accuracy(int argc, char **argv); /* the simulator against a recorded corpus */
int cmd_wgmma(int argc, char **argv);    /* wgmma descriptor reads vs the TMA tile */
int cmd_sweep(int argc, char **argv);    /* a grid of configurations, ranked; Slurm shards */
/* tmasim replay of a wgmma recording (a folder holding wgmma.txt, or the file). */
#include <stdint.h>
#include "cli.h"
int cmd_wgmma_replay(const char *path, cli_format fmt, uint64_t ndetails);

#endif
