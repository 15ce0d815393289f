/* PLACEHOLDER: replaced by the module's owner. */
#include <stdio.h>
#include "cmds.h"
int cmd_sim(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "tmasim sim: not built yet\n");
    return 2;
}
