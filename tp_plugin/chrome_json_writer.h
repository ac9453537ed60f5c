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
** (json_tid, named "<thread> (overlap k)"). No flows are written.
*/
#ifndef TP_PLUGIN_CHROME_JSON_WRITER_H
#define TP_PLUGIN_CHROME_JSON_WRITER_H

#include <stdio.h>

#include "pf_model.h"

typedef struct pf_json pf_json;

pf_json *pf_json_new(FILE *f);
void pf_json_sink(pf_json *j, pf_sink *sink);
int64_t pf_json_events(const pf_json *j);
/* Close the document and flush; 0 with *errmsg on a write error. */
int pf_json_finish(pf_json *j, char **errmsg);
void pf_json_free(pf_json *j);

#endif
