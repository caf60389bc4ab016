/* import: turn a profiler's layer graph into a network chain.
 *
 * PipeDream's graph.txt is a DAG; the planners want a chain. The DAG is
 * linearised as doc/model.md section 8 says: nodes in topological order (Kahn's
 * algorithm, the smallest node number first among the ready ones, so the
 * order does not depend on line order), each cut carrying every output that
 * is still needed after it. Parsing works on text in memory, no I/O. */
#ifndef PIPEPLAN_IMPORT_H
#define PIPEPLAN_IMPORT_H

#include <stddef.h>
#include "spec.h"

/* Parse a PipeDream graph.txt held in `text`. `label` is the file name used
 * in messages and to derive the network's name and source (".../vgg16/
 * graph.txt" gives "vgg16"). `micro_batch` is the number of samples the
 * profile was taken at (>= 1). Layer k is the k-th node in topological order,
 * named "nodeN-Op". Returns a network to free with spec_network_free(), or
 * NULL with "LABEL:LINE: what is wrong (what was expected)" in err. When
 * the graph imports but looks cut short (a node that works has no input
 * edge), note (when not NULL) says so, in the same form; else it is "". */
struct spec_network *import_pipedream(const char *text, const char *label,
                                      long micro_batch, char *note, size_t notelen,
                                      char *err, size_t errlen);

/* `pipeplan import pipedream GRAPH.txt --micro-batch N [-o OUT] [--force]`,
 * argv[0] being "import". Returns 0, or 2 for usage and input errors, 1 when
 * the output cannot be written. */
int cmd_import(int argc, char **argv);

#endif
