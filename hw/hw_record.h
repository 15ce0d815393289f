/* hw_record: `tmahw record -- APP ARGS`, traces of an application's kernels built with
 * hw/record.cuh, collected by the recorder injected into it (hw/record_cmd.c). */
#ifndef TMASCOPE_HW_RECORD_H
#define TMASCOPE_HW_RECORD_H

#ifdef __cplusplus
extern "C" {
#endif

/* argv[0] = "record". Exit 0 ok, 1 finding (the application failed, a warp overflowed
 * its buffer), 2 bad input. */
int hw_cmd_record(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
