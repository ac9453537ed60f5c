/*
** perfetto_import.c: an independent reader of the Perfetto traces that
** xplane2perfetto writes, doing what trace processor does with them, for
** tests/test_perfetto.sh.
**
**   perfetto_import TRACE.pftrace > import.sql
**
** It decodes every packet with protobuf-c (schema/perfetto_trace.proto),
** checks the sequence rules (first packet INCREMENTAL_STATE_CLEARED |
** NEEDS_INCREMENTAL_STATE, later ones NEEDS_INCREMENTAL_STATE, one sequence
** id, interning ids new and resolvable, every event on a described track),
** then imports like trace processor: events sorted by (timestamp, position
** in the file), a stack per track (BEGIN pushes, END pops the top, INSTANT
** is a zero-length child of the top, or of the instant just before it when
** that has the same timestamp and no BEGIN or END came between them: trace
** processor keeps an instant open for the next instant of its timestamp,
** checked on trace_processor_shell v58.2)), slice ids in that order, tracks
** numbered by first use. A track is a thread's (ThreadDescriptor), a named
** child of a thread track (sibling merging off), or a named global track (a
** name and nothing else: the converter's source record). It prints SQL that
** fills five tables:
**   imp_slice(id, ts, dur, track_id, category, name, depth, parent_id)
**   imp_args(arg_set_id, key, int_value, string_value, real_value, value_type,
**            text_value)  -- text_value: the value as exact text (uint unsigned)
**   imp_track(id, name, tid)          -- name NULL for a thread's own track,
**                                     -- tid NULL for a global track
**   imp_thread(tid, pid)              -- every thread described, and its process
**   imp_count(what, n)                -- begin, end, instant, flow_ids, ...
** Any violation prints `ERROR: ...` on stderr and exits 1.
*/
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_trace.pb-c.h"

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "ERROR: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) die("out of memory");
  return q;
}

static char *xstrdup(const char *s) { return strcpy(xrealloc(NULL, strlen(s) + 1), s); }

/* iid -> string, per interning table */
typedef struct strtab {
  char **v;
  uint64_t n;
} strtab;

static void tab_add(strtab *t, uint64_t iid, const char *s, const char *what) {
  if (iid != t->n + 1) die("%s iid %" PRIu64 " is not the next id (%" PRIu64 ")", what, iid, t->n + 1);
  t->v = xrealloc(t->v, sizeof(char *) * (size_t)(t->n + 1));
  t->v[t->n++] = xstrdup(s ? s : "");
}

static const char *tab_get(const strtab *t, uint64_t iid, const char *what) {
  if (iid == 0 || iid > t->n) die("%s iid %" PRIu64 " was never interned", what, iid);
  return t->v[iid - 1];
}

typedef struct track {
  uint64_t uuid, parent;
  int is_process, is_thread, is_global;
  int32_t pid, tid;
  char *name;
  int64_t id;    /* by first use, -1 */
  int64_t *stack;
  int depth, cap;
  int64_t instant;      /* the last INSTANT while no BEGIN/END followed on the track, -1 */
  uint64_t instant_ts;
  int instant_depth;
} track;

typedef struct arg {
  char *key;
  int type; /* 0 int, 1 uint, 2 real, 3 string */
  int64_t i;
  double d;
  char *s;
} arg;

typedef struct event {
  uint64_t ts;
  int64_t pos;
  int type;
  int64_t track;
  char *name, *category;
  arg *args;
  int n_args;
} event;

static track *tracks;
static int64_t n_tracks;
static strtab names, cats, anames;

static int64_t find_track(uint64_t uuid) {
  for (int64_t i = 0; i < n_tracks; i++)
    if (tracks[i].uuid == uuid) return i;
  return -1;
}

static int by_ts_pos(const void *a, const void *b) {
  const event *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void sql_str(const char *s) {
  if (!s) {
    fputs("NULL", stdout);
    return;
  }
  putchar('\'');
  for (; *s; s++) {
    if (*s == '\'') putchar('\'');
    putchar(*s);
  }
  putchar('\'');
}

int main(int argc, char **argv) {
  if (argc != 2) die("usage: perfetto_import TRACE");
  FILE *f = fopen(argv[1], "rb");
  if (!f) die("%s: cannot open", argv[1]);
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0, r;
  do {
    if (n == cap) buf = xrealloc(buf, cap = cap ? cap * 2 : 1 << 20);
    r = fread(buf + n, 1, cap - n, f);
    n += r;
  } while (r);
  fclose(f);

  event *ev = NULL;
  int64_t n_ev = 0, cap_ev = 0, n_flow_ids = 0, pos = 0;
  size_t at = 0;
  while (at < n) {
    if (buf[at++] != 0x0A) die("packet %" PRId64 ": tag is not 0x0A (Trace.packet)", pos);
    uint64_t len = 0;
    for (int shift = 0;; shift += 7) {
      if (at >= n || shift > 63) die("packet %" PRId64 ": truncated length", pos);
      len |= (uint64_t)(buf[at] & 0x7f) << shift;
      if (!(buf[at++] & 0x80)) break;
    }
    if (len > n - at) die("packet %" PRId64 ": length past the end of the file", pos);
    Perfetto__Protos__TracePacket *p = perfetto__protos__trace_packet__unpack(NULL, (size_t)len, buf + at);
    if (!p) die("packet %" PRId64 ": does not decode", pos);
    at += (size_t)len;
    uint32_t want = pos == 0 ? 3 : 2;
    if (!p->has_sequence_flags || p->sequence_flags != want)
      die("packet %" PRId64 ": sequence_flags %u, expected %u", pos, p->sequence_flags, want);
    if (!p->has_trusted_packet_sequence_id || p->trusted_packet_sequence_id != 1)
      die("packet %" PRId64 ": trusted_packet_sequence_id is not 1", pos);
    if (p->interned_data) {
      const Perfetto__Protos__InternedData *d = p->interned_data;
      for (size_t i = 0; i < d->n_event_names; i++) tab_add(&names, d->event_names[i]->iid, d->event_names[i]->name, "event name");
      for (size_t i = 0; i < d->n_event_categories; i++)
        tab_add(&cats, d->event_categories[i]->iid, d->event_categories[i]->name, "category");
      for (size_t i = 0; i < d->n_debug_annotation_names; i++)
        tab_add(&anames, d->debug_annotation_names[i]->iid, d->debug_annotation_names[i]->name, "annotation name");
    }
    if (p->track_descriptor) {
      const Perfetto__Protos__TrackDescriptor *d = p->track_descriptor;
      if (!d->has_uuid || !d->uuid || find_track(d->uuid) >= 0) die("packet %" PRId64 ": bad or repeated track uuid", pos);
      tracks = xrealloc(tracks, sizeof(track) * (size_t)(n_tracks + 1));
      track *t = &tracks[n_tracks++];
      memset(t, 0, sizeof(*t));
      t->uuid = d->uuid;
      t->parent = d->has_parent_uuid ? d->parent_uuid : 0;
      t->id = -1;
      t->instant = -1;
      if (d->process) t->is_process = 1, t->pid = d->process->pid, t->name = xstrdup(d->process->process_name);
      if (d->thread) {
        t->is_thread = 1, t->pid = d->thread->pid, t->tid = d->thread->tid;
        t->name = xstrdup(d->thread->thread_name);
      }
      if (t->parent) {
        int64_t k = find_track(t->parent);
        if (k < 0 || !tracks[k].is_thread) die("track %" PRIu64 ": parent is not a thread track", t->uuid);
        if (!d->name || !d->has_sibling_merge_behavior || d->sibling_merge_behavior != 2)
          die("track %" PRIu64 ": child track without a name or sibling_merge_behavior NONE", t->uuid);
        t->tid = tracks[k].tid;
        t->name = xstrdup(d->name);
      }
      if (!d->process && !d->thread && !t->parent) {
        if (!d->name || !*d->name) die("track %" PRIu64 ": a global track without a name", t->uuid);
        t->is_global = 1;
        t->name = xstrdup(d->name);
      }
    }
    if (p->track_event) {
      const Perfetto__Protos__TrackEvent *te = p->track_event;
      if (!p->has_timestamp) die("packet %" PRId64 ": event without timestamp", pos);
      int64_t k = find_track(te->track_uuid);
      if (k < 0 || tracks[k].is_process) die("packet %" PRId64 ": event on an unknown or process track", pos);
      if (n_ev == cap_ev) ev = xrealloc(ev, sizeof(event) * (size_t)(cap_ev = cap_ev ? cap_ev * 2 : 1024));
      event *e = &ev[n_ev++];
      memset(e, 0, sizeof(*e));
      e->ts = p->timestamp;
      e->pos = pos;
      e->type = te->type;
      e->track = k;
      if (te->type != 2) {
        if (te->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID)
          e->name = xstrdup(tab_get(&names, te->name_iid, "event name"));
        if (te->n_category_iids != 1) die("packet %" PRId64 ": expected one category", pos);
        e->category = xstrdup(tab_get(&cats, te->category_iids[0], "category"));
        e->n_args = 0;
        e->args = xrealloc(NULL, sizeof(arg) * (te->n_debug_annotations ? te->n_debug_annotations : 1));
        for (size_t i = 0; i < te->n_debug_annotations; i++) {
          const Perfetto__Protos__DebugAnnotation *d = te->debug_annotations[i];
          arg *a = &e->args[e->n_args];
          memset(a, 0, sizeof(*a));
          const char *nm = tab_get(&anames, d->name_iid, "annotation name");
          a->key = xrealloc(NULL, strlen(nm) + 7);
          sprintf(a->key, "debug.%s", nm);
          for (char *c = a->key + 6; *c; c++) /* trace processor's key: '.', '[', ']' -> '_' */
            if (*c == '.' || *c == '[' || *c == ']') *c = '_';
          switch (d->value_case) {
            case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE: a->type = 0, a->i = d->int_value; break;
            case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE: a->type = 1, a->i = (int64_t)d->uint_value; break;
            case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE: a->type = 2, a->d = d->double_value; break;
            case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE: a->type = 3, a->s = xstrdup(d->string_value); break;
            default: die("packet %" PRId64 ": annotation %s without a value", pos, nm);
          }
          /* a key given again: trace processor keeps one arg per key, the
          ** last value at the first one's position (seen on v58.2) */
          int same = -1;
          for (int j = 0; j < e->n_args && same < 0; j++)
            if (strcmp(e->args[j].key, a->key) == 0) same = j;
          if (same < 0) {
            e->n_args++;
          } else {
            free(e->args[same].key);
            free(e->args[same].s);
            e->args[same] = *a;
          }
        }
        n_flow_ids += (int64_t)te->n_flow_ids;
      } else if (te->name_field_case || te->n_debug_annotations) {
        die("packet %" PRId64 ": SLICE_END with a name or annotations", pos);
      }
    }
    perfetto__protos__trace_packet__free_unpacked(p, NULL);
    pos++;
  }
  free(buf);

  qsort(ev, (size_t)n_ev, sizeof(event), by_ts_pos);
  int64_t id = 0, next_track = 0, counts[4] = {0, 0, 0, 0};
  puts("BEGIN;");
  puts("CREATE TABLE imp_slice(id, ts, dur, track_id, category, name, depth, parent_id);");
  puts("CREATE TABLE imp_args(arg_set_id, key, int_value, string_value, real_value, value_type, text_value);");
  puts("CREATE TABLE imp_track(id, name, tid);");
  puts("CREATE TABLE imp_thread(tid, pid);");
  puts("CREATE TABLE imp_count(what, n);");
  for (int64_t k = 0; k < n_tracks; k++)
    if (tracks[k].is_thread) printf("INSERT INTO imp_thread VALUES(%d,%d);\n", tracks[k].tid, tracks[k].pid);
  /* Slice rows are printed when their END is seen (the duration is known then). */
  event **open_ev = xrealloc(NULL, sizeof(event *) * (size_t)(n_ev + 1));
  int64_t *slice_parent = xrealloc(NULL, sizeof(int64_t) * (size_t)(n_ev + 1));
  int *slice_depth = xrealloc(NULL, sizeof(int) * (size_t)(n_ev + 1));
  int64_t *slice_track = xrealloc(NULL, sizeof(int64_t) * (size_t)(n_ev + 1));
  for (int64_t i = 0; i < n_ev; i++) {
    event *e = &ev[i];
    track *t = &tracks[e->track];
    counts[e->type]++;
    if (e->type != 3) t->instant = -1; /* a BEGIN or an END closes the instants on top */
    if (e->type == 2) {
      if (!t->depth) die("SLICE_END at %" PRIu64 " on track %" PRIu64 " with no open slice", e->ts, t->uuid);
      int64_t s = t->stack[--t->depth];
      event *b = open_ev[s];
      printf("INSERT INTO imp_slice VALUES(%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",", s, b->ts, e->ts - b->ts,
             slice_track[s]);
      sql_str(b->category);
      putchar(',');
      sql_str(b->name);
      printf(",%d,", slice_depth[s]);
      if (slice_parent[s] >= 0) printf("%" PRId64 ");\n", slice_parent[s]);
      else puts("NULL);");
      continue;
    }
    if (e->type != 1 && e->type != 3) die("event type %d", e->type);
    if (t->id < 0) {
      t->id = next_track++;
      printf("INSERT INTO imp_track VALUES(%" PRId64 ",", t->id);
      sql_str(t->parent || t->is_global ? t->name : NULL);
      if (t->is_global) puts(",NULL);");
      else printf(",%d);\n", t->tid);
    }
    open_ev[id] = e;
    slice_parent[id] = t->depth ? t->stack[t->depth - 1] : -1;
    slice_depth[id] = t->depth;
    if (e->type == 3 && t->instant >= 0 && t->instant_ts == e->ts) { /* on the instant before it */
      slice_parent[id] = t->instant;
      slice_depth[id] = t->instant_depth + 1;
    }
    slice_track[id] = t->id;
    for (int k = 0; k < e->n_args; k++) {
      const arg *a = &e->args[k];
      static const char *const types[] = {"int", "uint", "real", "string"};
      printf("INSERT INTO imp_args VALUES(%" PRId64 ",", id);
      sql_str(a->key);
      if (a->type == 0) printf(",%" PRId64 ",NULL,NULL,'%s','%" PRId64 "');\n", a->i, types[a->type], a->i);
      else if (a->type == 1) printf(",%" PRId64 ",NULL,NULL,'%s','%" PRIu64 "');\n", a->i, types[a->type], (uint64_t)a->i);
      else if (a->type == 2 && a->d != a->d) printf(",NULL,NULL,NULL,'real',NULL);\n"); /* SQLite: NaN is NULL */
      else if (a->type == 2 && (a->d > 1.7976931348623157e308 || a->d < -1.7976931348623157e308))
        printf(",NULL,NULL,%s9e999,'real',NULL);\n", a->d < 0 ? "-" : "");
      else if (a->type == 2) printf(",NULL,NULL,%.17g,'real',NULL);\n", a->d);
      else {
        printf(",NULL,");
        sql_str(a->s);
        printf(",NULL,'%s',", types[a->type]);
        sql_str(a->s);
        puts(");");
      }
    }
    if (e->type == 3) {
      printf("INSERT INTO imp_slice VALUES(%" PRId64 ",%" PRIu64 ",0,%" PRId64 ",", id, e->ts, t->id);
      sql_str(e->category);
      putchar(',');
      sql_str(e->name);
      printf(",%d,", slice_depth[id]);
      if (slice_parent[id] >= 0) printf("%" PRId64 ");\n", slice_parent[id]);
      else puts("NULL);");
      t->instant = id, t->instant_ts = e->ts, t->instant_depth = slice_depth[id];
    } else {
      if (t->depth == t->cap) t->stack = xrealloc(t->stack, sizeof(int64_t) * (size_t)(t->cap = t->cap ? t->cap * 2 : 16));
      t->stack[t->depth++] = id;
    }
    id++;
  }
  for (int64_t i = 0; i < n_tracks; i++)
    if (tracks[i].depth) die("track %" PRIu64 ": %d slices never end", tracks[i].uuid, tracks[i].depth);
  printf("INSERT INTO imp_count VALUES('begin',%" PRId64 "),('end',%" PRId64 "),('instant',%" PRId64
         "),('flow_ids',%" PRId64 "),('packets',%" PRId64 ");\n",
         counts[1], counts[2], counts[3], n_flow_ids, pos);
  puts("COMMIT;");
  return 0;
}
