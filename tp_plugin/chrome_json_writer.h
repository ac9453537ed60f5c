/*
** chrome_json_writer.h: a pf_sink (pf_model.h) that streams a Chrome JSON
** trace: {"displayTimeUnit":"ns","traceEvents":[...]}.
**
**   pf_json *j = pf_json_new(f);
**   pf_sink sink; pf_json_sink(j, &sink);
**   ... pf_model_add(model, ...) ...
**   pf_json_finish(j, &err); pf_json_free(j);
**
** Processes and threads become `ph:"M"` process_name / thread_name events;
** a slice becomes `ph:"X"` and an instant `ph:"i"` (scope thread), with ts
** and dur in microseconds written as exact decimals of the picoseconds
** (readers parse them into doubles and lose precision on epoch-based
** times), cat = the XLine name and args = the event's effective stats. The
** JSON format has no child tracks: each overlap lane is a thread of its own
** (json_tid, named "<thread> (overlap k)"). The source record is a global
** instant (`ph:"i"`, `s:"g"`, pid and tid 0) whose args are its
** xplane.source.* annotations (as the stats are written: numbers as
** numbers, strings as strings); its track has no JSON form.
** Flows (the correlation_id flow ids of pf_model.h) are flow v2 attributes
** of the slice ("bind_id" in hex, "flow_out"; "flow_in" too unless the
** slice starts its flow), which trace processor binds to the slice itself
** and chains in its import order (time), like the protobuf trace's
** flow_ids. Which slice starts a flow is known from a planning pass over the
** same profiles before writing:
**   pf_sink plan; pf_json_plan_sink(j, &plan);  ... pf_model_add(...) ...
**   pf_json_plan_finish(j, &err);               then write as above.
** Without it no slice starts a flow. The planning orders a flow's slices
** by (start ns, position in the file), as trace processor orders the
** protobuf trace; it reads the JSON's microsecond decimals into doubles, so
** two slices of one flow less than a nanosecond apart may be taken in the
** other order. Instants carry no flow (trace
** processor reads flow attributes on B/X events). Memory: 24 bytes per
** slice with a flow during planning, 8 per flow afterwards.
*/
#ifndef TP_PLUGIN_CHROME_JSON_WRITER_H
#define TP_PLUGIN_CHROME_JSON_WRITER_H

#include <stdio.h>

#include "pf_model.h"

typedef struct pf_json pf_json;

pf_json *pf_json_new(FILE *f);
void pf_json_sink(pf_json *j, pf_sink *sink);
/* The planning pass (flows): its sink, then finish (0 with *errmsg on OOM). */
void pf_json_plan_sink(pf_json *j, pf_sink *sink);
int pf_json_plan_finish(pf_json *j, char **errmsg);
int64_t pf_json_events(const pf_json *j);
/* Close the document and flush; 0 with *errmsg on a write error. */
int pf_json_finish(pf_json *j, char **errmsg);
void pf_json_free(pf_json *j);

#endif
