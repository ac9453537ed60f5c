/*
** perfetto_writer.c: Perfetto protobuf trace writer (see perfetto_writer.h).
** Packets are built as protobuf-c structs (perfetto_trace.pb-c.h) over
** scratch arrays reused from one packet to the next.
**
** Every text written is a protobuf `string`, which must be UTF-8; a
** profile's names and values are bytes. Text that is not UTF-8 is written
** with each ill-formed sequence replaced by U+FFFD (util.h:
** xp_utf8_repair, the JSON outputs' rule); valid text is written as it is.
** Interned names are checked once, when first seen.
*/
#include "perfetto_writer.h"

#include <errno.h>
#include <string.h>

#include "perfetto_trace.pb-c.h"

#include "util.h"

/* String -> interning id (ids from 1, per table): the owned copies in id
** order (id = index + 1), indexed by util.h's xp_hmap. */
typedef struct intern_key {
  char *p;    /* the bytes as given */
  size_t n;
  char *text; /* what was written when p is not UTF-8 (else NULL: p) */
} intern_key;

typedef struct intern_map {
  intern_key *v;
  int64_t n, cap;
  xp_hmap index; /* into v */
} intern_map;

typedef struct scratch {
  Perfetto__Protos__DebugAnnotation *da;
  Perfetto__Protos__DebugAnnotation **dap;
  Perfetto__Protos__DebugAnnotationName *dn;
  Perfetto__Protos__DebugAnnotationName **dnp;
  int cap;
  char *strings;
  size_t cap_strings;
} scratch;

struct pf_writer {
  FILE *f;
  int64_t packets;
  int failed;
  intern_map names, cats, anames;
  uint8_t *buf;
  size_t cap_buf;
  scratch sc;
  char *fix; /* the last text repaired by utf8_text */
  size_t cap_fix;
};

/* p[0..n) as valid UTF-8: *out = p itself when it is, else its repair in
** w->fix (NUL-terminated, valid until the next call), *n its length. 0 when
** out of memory. */
static int utf8_text(pf_writer *w, const char *p, size_t *n, const char **out) {
  *out = p;
  if (xp_utf8_valid_prefix(p, *n) == *n) return 1;
  if (3 * *n + 1 > w->cap_fix) {
    char *z = xp_realloc(w->fix, 3 * *n + 1);
    if (!z) return 0;
    w->fix = z;
    w->cap_fix = 3 * *n + 1;
  }
  *n = xp_utf8_repair(w->fix, p, *n);
  w->fix[*n] = 0;
  *out = w->fix;
  return 1;
}

/* A NUL-terminated text as valid UTF-8 (utf8_text); NULL stays NULL. */
static int utf8_cstr(pf_writer *w, const char *z, char **out) {
  size_t n = z ? strlen(z) : 0;
  const char *t;
  if (!utf8_text(w, z, &n, &t)) return 0;
  *out = (char *)t;
  return 1;
}

static uint64_t intern_hash_of(const void *ctx, int64_t i) {
  const intern_key *k = &((const intern_map *)ctx)->v[i];
  return xp_hash_bytes(0, k->p, k->n);
}

typedef struct intern_probe {
  const intern_map *m;
  const char *p;
  size_t n;
} intern_probe;

static int intern_eq(const void *ctx, int64_t i) {
  const intern_probe *q = ctx;
  const intern_key *k = &q->m->v[i];
  return k->n == q->n && (q->n == 0 || memcmp(k->p, q->p, q->n) == 0);
}

/* The id of p[0..n), added when absent (*added = the text to write: its
** NUL-terminated copy, made valid UTF-8 by utf8_text; else NULL). Keys are
** the bytes as given (two names that differ only in ill-formed bytes get two
** ids of the same text). 0 on out-of-memory. */
static uint64_t intern(pf_writer *w, intern_map *m, const char *p, size_t n, const char **added) {
  *added = NULL;
  if (!xp_hmap_reserve(&m->index, intern_hash_of, m)) return 0;
  intern_probe q = {m, p, n};
  uint64_t pos = xp_hmap_find(&m->index, xp_hash_bytes(0, p, n), intern_eq, &q);
  if (m->index.slot[pos] >= 0) return (uint64_t)m->index.slot[pos] + 1;
  if (!xp_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(intern_key))) return 0;
  char *k = xp_malloc(n + 1);
  if (!k) return 0;
  if (n) memcpy(k, p, n); /* p may be NULL for an empty name */
  k[n] = 0;
  const char *text;
  size_t tn = n;
  if (!utf8_text(w, k, &tn, &text)) {
    xp_free(k);
    return 0;
  }
  if (text != k) { /* the written text: the key's repair (utf8_text's buffer is reused) */
    char *t = xp_malloc(tn + 1);
    if (!t) {
      xp_free(k);
      return 0;
    }
    memcpy(t, text, tn + 1);
    m->v[m->n].text = t;
  } else {
    m->v[m->n].text = NULL;
  }
  m->v[m->n].p = k;
  m->v[m->n].n = n;
  xp_hmap_put(&m->index, pos, m->n);
  *added = m->v[m->n].text ? m->v[m->n].text : k;
  return (uint64_t)++m->n;
}

static void intern_free(intern_map *m) {
  for (int64_t i = 0; i < m->n; i++) {
    xp_free(m->v[i].p);
    xp_free(m->v[i].text);
  }
  xp_free(m->v);
  xp_hmap_free(&m->index);
  memset(m, 0, sizeof(*m));
}

static int fail(pf_writer *w, char **errmsg, const char *what) {
  w->failed = 1;
  if (!*errmsg) *errmsg = xp_mprintf("%s", what);
  return 0;
}

/* Write one packet: 0x0A <varint len> <bytes>. */
static int write_packet(pf_writer *w, Perfetto__Protos__TracePacket *pkt, char **errmsg) {
  pkt->has_trusted_packet_sequence_id = 1;
  pkt->trusted_packet_sequence_id = PF_SEQUENCE_ID;
  pkt->has_sequence_flags = 1;
  pkt->sequence_flags = w->packets == 0 ? PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED |
                                              PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE
                                        : PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
  size_t n = protobuf_c_message_get_packed_size(&pkt->base);
  if (n + 11 > w->cap_buf) {
    size_t cap = w->cap_buf ? w->cap_buf : 4096;
    while (cap < n + 11) cap *= 2;
    uint8_t *b = xp_realloc(w->buf, cap);
    if (!b) return fail(w, errmsg, "out of memory");
    w->buf = b;
    w->cap_buf = cap;
  }
  size_t h = 0;
  w->buf[h++] = 0x0A;
  for (uint64_t v = n; ; v >>= 7) {
    w->buf[h++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    if (v < 0x80) break;
  }
  protobuf_c_message_pack(&pkt->base, w->buf + h);
  if (fwrite(w->buf, 1, h + n, w->f) != h + n) return fail(w, errmsg, strerror(errno));
  w->packets++;
  return 1;
}

static int on_process(void *ctx, const pf_process *p, char **errmsg) {
  pf_writer *w = ctx;
  Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
  Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
  td.has_uuid = 1;
  td.uuid = p->uuid;
  pd.has_pid = 1;
  pd.pid = p->pid;
  if (!utf8_cstr(w, p->name, &pd.process_name)) return fail(w, errmsg, "out of memory");
  td.process = &pd;
  pkt.track_descriptor = &td;
  return write_packet(w, &pkt, errmsg);
}

static int on_track(void *ctx, const pf_track *t, char **errmsg) {
  pf_writer *w = ctx;
  Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
  Perfetto__Protos__ThreadDescriptor thd = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
  td.has_uuid = 1;
  td.uuid = t->uuid;
  /* (one text per packet: utf8_cstr's buffer holds one) */
  if (t->global) {
    if (!utf8_cstr(w, t->name, &td.name)) return fail(w, errmsg, "out of memory");
  } else if (t->parent_uuid) {
    td.has_parent_uuid = 1;
    td.parent_uuid = t->parent_uuid;
    if (!utf8_cstr(w, t->name, &td.name)) return fail(w, errmsg, "out of memory");
    td.has_sibling_merge_behavior = 1;
    td.sibling_merge_behavior = PERFETTO__PROTOS__TRACK_DESCRIPTOR__SIBLING_MERGE_BEHAVIOR__SIBLING_MERGE_BEHAVIOR_NONE;
  } else {
    thd.has_pid = thd.has_tid = 1;
    thd.pid = t->pid;
    thd.tid = t->tid;
    if (!utf8_cstr(w, t->thread_name, &thd.thread_name)) return fail(w, errmsg, "out of memory");
    td.thread = &thd;
  }
  pkt.track_descriptor = &td;
  return write_packet(w, &pkt, errmsg);
}

static int scratch_reserve(pf_writer *w, int n, size_t strings) {
  scratch *s = &w->sc;
  if (n > s->cap) {
    int cap = s->cap ? s->cap : 16;
    while (cap < n) cap *= 2;
    void *a = xp_realloc(s->da, sizeof(*s->da) * (uint64_t)cap);
    if (a) s->da = a;
    void *b = xp_realloc(s->dap, sizeof(*s->dap) * (uint64_t)cap);
    if (b) s->dap = b;
    void *c = xp_realloc(s->dn, sizeof(*s->dn) * (uint64_t)cap);
    if (c) s->dn = c;
    void *d = xp_realloc(s->dnp, sizeof(*s->dnp) * (uint64_t)cap);
    if (d) s->dnp = d;
    if (!a || !b || !c || !d) return 0;
    s->cap = cap;
  }
  if (strings > s->cap_strings) {
    char *z = xp_realloc(s->strings, strings);
    if (!z) return 0;
    s->strings = z;
    s->cap_strings = strings;
  }
  return 1;
}

static int on_event(void *ctx, const pf_event *e, char **errmsg) {
  pf_writer *w = ctx;
  Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  Perfetto__Protos__TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
  Perfetto__Protos__InternedData idata = PERFETTO__PROTOS__INTERNED_DATA__INIT;
  Perfetto__Protos__EventName en = PERFETTO__PROTOS__EVENT_NAME__INIT;
  Perfetto__Protos__EventCategory ec = PERFETTO__PROTOS__EVENT_CATEGORY__INIT;
  Perfetto__Protos__EventName *enp = &en;
  Perfetto__Protos__EventCategory *ecp = &ec;
  uint64_t cat_iid, flow = e->flow_id;
  const char *added;
  pkt.has_timestamp = 1;
  pkt.timestamp = (uint64_t)e->ts_ns;
  pkt.track_event = &te;
  te.has_track_uuid = 1;
  te.track_uuid = e->track->uuid;
  te.has_type = 1;
  if (e->type == PF_END) {
    te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
    return write_packet(w, &pkt, errmsg);
  }
  te.type = e->type == PF_BEGIN ? PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
                                : PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT;
  if (e->has_name) {
    te.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
    if (!(te.name_iid = intern(w, &w->names, e->name.p, e->name.n, &added))) return fail(w, errmsg, "out of memory");
    if (added) {
      en.has_iid = 1;
      en.iid = te.name_iid;
      en.name = (char *)added;
      idata.n_event_names = 1;
      idata.event_names = &enp;
    }
  }
  if (!(cat_iid = intern(w, &w->cats, e->category.p, e->category.n, &added))) return fail(w, errmsg, "out of memory");
  te.n_category_iids = 1;
  te.category_iids = &cat_iid;
  if (added) {
    ec.has_iid = 1;
    ec.iid = cat_iid;
    ec.name = (char *)added;
    idata.n_event_categories = 1;
    idata.event_categories = &ecp;
  }
  if (e->has_flow) {
    te.n_flow_ids = 1;
    te.flow_ids = &flow;
  }
  size_t strings = 0; /* room for the values, repaired (3 bytes per byte at most) when not UTF-8 */
  for (int i = 0; i < e->n_args; i++)
    if (e->args[i].type == PF_A_STRING)
      strings += (xp_utf8_valid_prefix(e->args[i].s.p, e->args[i].s.n) == e->args[i].s.n ? 1 : 3) * e->args[i].s.n + 1;
  if (!scratch_reserve(w, e->n_args, strings)) return fail(w, errmsg, "out of memory");
  char *z = w->sc.strings;
  size_t n;
  int n_new = 0;
  for (int i = 0; i < e->n_args; i++) {
    const pf_arg *a = &e->args[i];
    Perfetto__Protos__DebugAnnotation *d = &w->sc.da[i];
    perfetto__protos__debug_annotation__init(d);
    w->sc.dap[i] = d;
    d->name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
    if (!(d->name_iid = intern(w, &w->anames, a->name.p, a->name.n, &added))) return fail(w, errmsg, "out of memory");
    if (added) {
      Perfetto__Protos__DebugAnnotationName *dn = &w->sc.dn[n_new];
      perfetto__protos__debug_annotation_name__init(dn);
      dn->has_iid = 1;
      dn->iid = d->name_iid;
      dn->name = (char *)added;
      w->sc.dnp[n_new++] = dn;
    }
    switch (a->type) {
      case PF_A_INT: d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE, d->int_value = a->v.i; break;
      case PF_A_UINT: d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE, d->uint_value = a->v.u; break;
      case PF_A_DOUBLE:
        d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE, d->double_value = a->v.d;
        break;
      case PF_A_STRING:
        /* protobuf-c strings are NUL-terminated: a value stops at an embedded NUL */
        n = a->s.n ? xp_utf8_repair(z, a->s.p, a->s.n) : 0;
        z[n] = 0;
        d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
        d->string_value = z;
        z += n + 1;
        break;
    }
  }
  te.n_debug_annotations = (size_t)e->n_args;
  te.debug_annotations = w->sc.dap;
  if (n_new) {
    idata.n_debug_annotation_names = (size_t)n_new;
    idata.debug_annotation_names = w->sc.dnp;
  }
  if (idata.n_event_names || idata.n_event_categories || idata.n_debug_annotation_names) pkt.interned_data = &idata;
  return write_packet(w, &pkt, errmsg);
}

pf_writer *pf_writer_new(FILE *f) {
  pf_writer *w = xp_malloc(sizeof(*w));
  if (!w) return NULL;
  memset(w, 0, sizeof(*w));
  w->f = f;
  return w;
}

void pf_writer_sink(pf_writer *w, pf_sink *sink) {
  memset(sink, 0, sizeof(*sink));
  sink->ctx = w;
  sink->process = on_process;
  sink->track = on_track;
  sink->event = on_event;
  sink->want_args = 1;
}

int64_t pf_writer_packets(const pf_writer *w) { return w->packets; }

int pf_writer_finish(pf_writer *w, char **errmsg) {
  if (fflush(w->f) != 0 || ferror(w->f)) return fail(w, errmsg, strerror(errno));
  return !w->failed;
}

void pf_writer_free(pf_writer *w) {
  if (!w) return;
  intern_free(&w->names);
  intern_free(&w->cats);
  intern_free(&w->anames);
  xp_free(w->buf);
  xp_free(w->sc.da);
  xp_free(w->sc.dap);
  xp_free(w->sc.dn);
  xp_free(w->sc.dnp);
  xp_free(w->sc.strings);
  xp_free(w->fix);
  xp_free(w);
}
