/*
** perfetto_writer.h: a pf_sink (pf_model.h) that streams a Perfetto
** protobuf trace (schema/perfetto_trace.proto) to a FILE.
**
**   pf_writer *w = pf_writer_new(f);
**   pf_sink sink; pf_writer_sink(w, &sink);
**   ... pf_model_add(model, ...) ...
**   pf_writer_finish(w, &err); pf_writer_free(w);
**
** Tracks are TrackDescriptors: a thread's own track with a
** ThreadDescriptor, its lanes as named child tracks (sibling merging off),
** the source record's track as a named global track. Every packet is
** written as it comes (`0x0A <len> <TracePacket>`), on one
** trusted_packet_sequence_id; the first packet carries sequence_flags
** INCREMENTAL_STATE_CLEARED|NEEDS_INCREMENTAL_STATE, later ones
** NEEDS_INCREMENTAL_STATE. Event names, categories and annotation names are
** interned (InternedData in the packet that first uses them); only the
** interning tables stay in memory.
*/
#ifndef TP_PLUGIN_PERFETTO_WRITER_H
#define TP_PLUGIN_PERFETTO_WRITER_H

#include <stdio.h>

#include "pf_model.h"

/* The trusted_packet_sequence_id of every packet. */
#define PF_SEQUENCE_ID 1

typedef struct pf_writer pf_writer;

pf_writer *pf_writer_new(FILE *f);
void pf_writer_sink(pf_writer *w, pf_sink *sink);
int64_t pf_writer_packets(const pf_writer *w);
/* Flush; 0 with *errmsg on a write error. */
int pf_writer_finish(pf_writer *w, char **errmsg);
void pf_writer_free(pf_writer *w);

#endif
