/*
** profile.c: map, validate and index one XSpace file (see profile.h).
**
** The one walk in xp_profile_open() is the validator: it visits every field
** of every message the schema defines (planes, lines, events, stats, both
** metadata maps), checks wire types and bounds, and records the index. After
** it succeeds the scanning functions below cannot fail on this mapping.
*/
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cancel.h"
#include "guard.h"
#include "json_trace.h"
#include "util.h"

/* Field numbers of schema/xplane.proto. */
enum { SPACE_PLANES = 1, SPACE_ERRORS = 2, SPACE_WARNINGS = 3, SPACE_HOSTNAMES = 4 };
enum { PLANE_ID = 1, PLANE_NAME = 2, PLANE_LINES = 3, PLANE_EMETA = 4, PLANE_SMETA = 5, PLANE_STATS = 6 };
enum { LINE_ID = 1, LINE_NAME = 2, LINE_TIMESTAMP_NS = 3, LINE_EVENTS = 4, LINE_DURATION_PS = 9,
       LINE_DISPLAY_ID = 10, LINE_DISPLAY_NAME = 11 };
enum { EVENT_METADATA_ID = 1, EVENT_OFFSET_PS = 2, EVENT_DURATION_PS = 3, EVENT_STATS = 4,
       EVENT_NUM_OCCURRENCES = 5 };
enum { STAT_METADATA_ID = 1, STAT_DOUBLE = 2, STAT_UINT64 = 3, STAT_INT64 = 4, STAT_STR = 5,
       STAT_BYTES = 6, STAT_REF = 7 };
enum { EMETA_ID = 1, EMETA_NAME = 2, EMETA_METADATA = 3, EMETA_DISPLAY_NAME = 4, EMETA_STATS = 5,
       EMETA_CHILD_ID = 6 };
enum { SMETA_ID = 1, SMETA_NAME = 2, SMETA_DESCRIPTION = 3 };
enum { MAP_KEY = 1, MAP_VALUE = 2 };

int xp_str_eq(xp_str s, const char *z) {
  size_t n = strlen(z);
  return s.n == n && memcmp(s.p, z, n) == 0;
}

int xp_str_cmp(xp_str a, xp_str b) {
  size_t n = a.n < b.n ? a.n : b.n;
  int c = n ? memcmp(a.p, b.p, n) : 0;
  return c ? c : (a.n > b.n) - (a.n < b.n);
}

int xp_str_starts(xp_str s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

static xp_str str_of(const xp_field *f) {
  xp_str s = {(const char *)f->p, f->n};
  return s;
}

/* ---- id maps (util.h's xp_idmap) ----------------------------------------- */

/* Map the int64 ids that start each of n entries to their index; later
** duplicates win, as for a protobuf map. */
static int idmap_build(xp_idmap *m, int32_t n, const void *arr, size_t stride) {
  if (n == 0) return 1; /* no table: lookups miss (an empty plane costs no heap here) */
  if (!xp_idmap_reserve(m, (uint32_t)n)) return 0;
  for (int32_t i = 0; i < n; i++)
    if (!xp_idmap_put(m, *(const int64_t *)((const char *)arr + (size_t)i * stride), i)) return 0;
  return 1;
}


/* A map field that repeats a key keeps its last entry (protobuf semantics):
** drop the earlier ones, keeping file order. Entries start with their int64
** id. Returns the new count. */
static int32_t drop_superseded(void *arr, int32_t n, size_t stride, int *oom) {
  xp_idmap m = {0};
  if (n < 2) return n;
  if (!idmap_build(&m, n, arr, stride)) {
    *oom = 1;
    return n;
  }
  int32_t out = 0;
  for (int32_t i = 0; i < n; i++) {
    char *e = (char *)arr + (size_t)i * stride;
    if (xp_idmap_get(&m, *(const int64_t *)e) != i) continue;
    if (out != i) memcpy((char *)arr + (size_t)out * stride, e, stride);
    out++;
  }
  xp_idmap_free(&m);
  return out;
}

const xp_event_meta *xp_plane_event_meta(const xp_plane *pl, int64_t id) {
  int32_t i = xp_idmap_get(&pl->emeta_idx, id);
  return i < 0 ? NULL : &pl->emeta[i];
}

const xp_stat_meta *xp_plane_stat_meta(const xp_plane *pl, int64_t id) {
  int32_t i = xp_idmap_get(&pl->smeta_idx, id);
  return i < 0 ? NULL : &pl->smeta[i];
}

/* ---- tracks: the lines of a plane sharing a key ---------------------- */

typedef struct track_line {
  int64_t key;
  int32_t line, first; /* first: the track's first line */
} track_line;

static int by_key_line(const void *a, const void *b) {
  const track_line *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

static int by_first_line(const void *a, const void *b) {
  const track_line *x = a, *y = b;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

int32_t xp_plane_tracks(const xp_plane *pl, int32_t *lines, int32_t *starts) {
  int32_t n = pl->n_lines, n_tracks = 0;
  track_line *v = xp_malloc(sizeof(track_line) * ((uint64_t)n + 1));
  if (!v) return -1;
  for (int32_t i = 0; i < n; i++) v[i].key = xp_line_track_key(&pl->lines[i], i), v[i].line = i;
  if (n) qsort(v, (size_t)n, sizeof(track_line), by_key_line);
  for (int32_t i = 0; i < n; i++) v[i].first = i && v[i].key == v[i - 1].key ? v[i - 1].first : v[i].line;
  if (n && (lines || starts)) qsort(v, (size_t)n, sizeof(track_line), by_first_line);
  for (int32_t i = 0; i < n; i++) {
    if (lines) lines[i] = v[i].line;
    if (v[i].first == v[i].line) {
      if (starts) starts[n_tracks] = i;
      n_tracks++;
    }
  }
  if (starts) starts[n_tracks] = n;
  xp_free(v);
  return n_tracks;
}

int64_t xp_profile_n_tracks(const xp_profile *p) {
  int64_t n = 0;
  for (int32_t i = 0; i < p->n_planes; i++) {
    int32_t k = xp_plane_tracks(&p->planes[i], NULL, NULL);
    if (k < 0) return -1;
    n += k;
  }
  return n;
}

/* ---- the validating index walk --------------------------------------- */

typedef struct walk {
  xp_profile *prof;
  int oom;
  int limit;              /* 1: XP_MAX_LINES passed, 2: XP_MAX_EVENTS passed, 3: XP_MAX_METADATA passed */
  int64_t *lines_total;   /* shared by the plane walkers (atomic): the limits */
  int64_t *events_total;
  int64_t *meta_total;
  int64_t *bytes_done;    /* shared (atomic): bytes walked, for the progress hook */
  const uint8_t *mark;    /* this walk's bytes up to here are counted in bytes_done */
  const xp_progress *hook; /* the opening thread's hook; NULL on the other threads */
  int64_t bytes_total;
  /* growable arrays of the plane being built */
  int32_t cap_lines, cap_emeta, cap_smeta;
  int32_t cap_planes, cap_errors, cap_warnings, cap_hostnames;
} walk;

/* The progress hook of the thread that opens a profile (profile.h). */
static XP_THREAD_LOCAL const xp_progress *progress_hook;

const xp_progress *xp_progress_swap(const xp_progress *hook) {
  const xp_progress *old = progress_hook;
  progress_hook = hook && hook->fn ? hook : NULL;
  return old;
}

/* Count this walk's bytes up to pos; on the opening thread, report. */
static void walk_tick(walk *w, const uint8_t *pos) {
  if (!w->bytes_done || pos <= w->mark) return;
  int64_t done = __atomic_add_fetch(w->bytes_done, (int64_t)(pos - w->mark), __ATOMIC_RELAXED);
  w->mark = pos;
  if (w->hook) w->hook->fn(w->hook->arg, done, w->bytes_total);
}

/* Validate one XStat message; returns its metadata id through *mid. */
/* The common XStat shapes, checked without the general reader: one-byte tags
** of the schema's fields with their right wire types. Returns 0 for anything
** else (then walk_stat decides, and words any error). */
static int fast_stat(const uint8_t *p, const uint8_t *end, int64_t *mid) {
  uint64_t v;
  *mid = 0;
  while (p < end) {
    switch (*p) {
      case 0x08: /* metadata_id */
        if (!(p = xp_varint(p + 1, end, &v))) return 0;
        *mid = (int64_t)v;
        break;
      case 0x18: case 0x20: case 0x38: /* uint64, int64, ref */
        if (!(p = xp_varint(p + 1, end, &v))) return 0;
        break;
      case 0x11: /* double */
        if (end - p < 9) return 0;
        p += 9;
        break;
      case 0x2a: case 0x32: /* str, bytes */
        if (!(p = xp_varint(p + 1, end, &v)) || v > (uint64_t)(end - p)) return 0;
        p += v;
        break;
      default: return 0;
    }
  }
  return 1;
}

static void walk_stat(xp_wire *parent, const xp_field *sf, int64_t *mid) {
  xp_wire r;
  xp_field f;
  xp_wire_init(&r, parent->base, sf->p, sf->n);
  *mid = 0;
  while (xp_wire_next(&r, &f)) {
    switch (f.num) {
      case STAT_METADATA_ID:
        if (xp_wire_expect(&r, &f, XP_WT_VARINT)) *mid = (int64_t)f.u;
        break;
      case STAT_DOUBLE: xp_wire_expect(&r, &f, XP_WT_I64); break;
      case STAT_UINT64:
      case STAT_INT64:
      case STAT_REF: xp_wire_expect(&r, &f, XP_WT_VARINT); break;
      case STAT_STR:
      case STAT_BYTES: xp_wire_expect(&r, &f, XP_WT_LEN); break;
      default: break;
    }
  }
  if (r.err) *parent = r;
}

/* The distinct stat ids used as XStat.metadata_id in a plane (a hash set:
** few distinct ids, many uses); marked used_as_name once the plane's stat
** metadata map is built (the map may come after the events on the wire). */
typedef struct idset {
  xp_idmap set;       /* id -> 1 */
  int64_t recent[16]; /* ids added lately (by low bits): most uses repeat them */
  int primed;
} idset;

static int idset_add(idset *s, int64_t id) {
  int64_t *slot = &s->recent[(uint64_t)id & 15];
  if (!s->primed) {
    for (int i = 0; i < 16; i++) s->recent[i] = INT64_MIN; /* INT64_MIN: never cached */
    s->primed = 1;
  } else if (*slot == id && id != INT64_MIN) {
    return 1;
  }
  if (xp_idmap_get(&s->set, id) < 0 && !xp_idmap_put(&s->set, id, 1)) return 0;
  *slot = id;
  return 1;
}

static void idset_free(idset *s) { xp_idmap_free(&s->set); }

/* Walk the XStat fields numbered `field` of a message. */
static int32_t walk_stats_of(xp_wire *r, const xp_field *f, idset *used, walk *w) {
  int64_t mid;
  if (!xp_wire_expect(r, f, XP_WT_LEN)) return 0;
  if (!fast_stat(f->p, f->p + f->n, &mid)) walk_stat(r, f, &mid);
  if (!r->err && !idset_add(used, mid)) w->oom = 1;
  return 1;
}

static void walk_event(xp_wire *lr, const xp_field *ef, xp_line *ln, idset *used, walk *w) {
  xp_wire r;
  xp_field f;
  int has_off = 0;
  int64_t off = 0, dur = 0;
  /* The usual event, as in xp_events_next: one-byte tags of its varint
  ** fields and of well-formed stats, checked here without the general field
  ** reader; the first other byte hands the rest to it (which validates and
  ** words every error). */
  const uint8_t *q = ef->p, *e = ef->p + ef->n;
  while (q < e) {
    uint64_t v;
    const uint8_t *n;
    int64_t mid;
    uint8_t tag = *q;
    if ((tag & 7) == XP_WT_VARINT && tag >= 0x08 && tag <= 0x28 && tag != 0x20) {
      if (!(n = xp_varint(q + 1, e, &v))) break;
      if (tag == ((EVENT_OFFSET_PS << 3) | XP_WT_VARINT)) has_off = 1, off = (int64_t)v;
      else if (tag == ((EVENT_NUM_OCCURRENCES << 3) | XP_WT_VARINT)) has_off = 0;
      else if (tag == ((EVENT_DURATION_PS << 3) | XP_WT_VARINT)) dur = (int64_t)v;
      q = n;
    } else if (tag == ((EVENT_STATS << 3) | XP_WT_LEN)) {
      if (!(n = xp_varint(q + 1, e, &v)) || v > (uint64_t)(e - n) || !fast_stat(n, n + v, &mid)) break;
      if (!idset_add(used, mid)) w->oom = 1;
      q = n + v;
    } else {
      break;
    }
  }
  xp_wire_init(&r, lr->base, q, (size_t)(e - q));
  while (xp_wire_next(&r, &f)) {
    switch (f.num) {
      case EVENT_METADATA_ID: xp_wire_expect(&r, &f, XP_WT_VARINT); break;
      case EVENT_OFFSET_PS:
        if (xp_wire_expect(&r, &f, XP_WT_VARINT)) { has_off = 1; off = (int64_t)f.u; }
        break;
      case EVENT_NUM_OCCURRENCES:
        if (xp_wire_expect(&r, &f, XP_WT_VARINT)) has_off = 0;
        break;
      case EVENT_DURATION_PS:
        if (xp_wire_expect(&r, &f, XP_WT_VARINT)) dur = (int64_t)f.u;
        break;
      case EVENT_STATS: walk_stats_of(&r, &f, used, w); break;
      default: break;
    }
  }
  if (r.err) { *lr = r; return; }
  ln->n_events++;
  if (!ln->bad_event && (dur < -XP_EVENT_LIMIT_PS || dur > XP_EVENT_LIMIT_PS ||
                         (has_off && (off < -XP_EVENT_LIMIT_PS || off > XP_EVENT_LIMIT_PS))))
    ln->bad_event = ln->n_events;
  if (has_off) {
    /* Line-relative times; the line's timestamp is added once the whole line
    ** is read (its field may come after the events). Wrapping arithmetic is
    ** defined on uint64 and mirrors what xp_events_next() reports. */
    int64_t end = (int64_t)((uint64_t)off + (uint64_t)dur);
    ln->n_timed++;
    if (off < ln->min_start_ps) ln->min_start_ps = off;
    if (off > ln->max_start_ps) ln->max_start_ps = off;
    if (end > ln->max_end_ps) ln->max_end_ps = end;
  }
}

static void walk_line(xp_wire *pr, const xp_field *lf, xp_line *ln, idset *used, walk *w) {
  xp_wire r;
  xp_field f;
  memset(ln, 0, sizeof(*ln));
  ln->msg = lf->p;
  ln->msg_n = lf->n;
  ln->min_start_ps = INT64_MAX;
  ln->max_start_ps = INT64_MIN;
  ln->max_end_ps = INT64_MIN;
  xp_wire_init(&r, pr->base, lf->p, lf->n);
  while (xp_wire_next(&r, &f)) {
    switch (f.num) {
      case LINE_ID: if (xp_wire_expect(&r, &f, XP_WT_VARINT)) ln->id = (int64_t)f.u; break;
      case LINE_DISPLAY_ID: if (xp_wire_expect(&r, &f, XP_WT_VARINT)) ln->display_id = (int64_t)f.u; break;
      case LINE_NAME: if (xp_wire_expect(&r, &f, XP_WT_LEN)) ln->name = str_of(&f); break;
      case LINE_DISPLAY_NAME: if (xp_wire_expect(&r, &f, XP_WT_LEN)) ln->display_name = str_of(&f); break;
      case LINE_TIMESTAMP_NS: if (xp_wire_expect(&r, &f, XP_WT_VARINT)) ln->timestamp_ns = (int64_t)f.u; break;
      case LINE_DURATION_PS: if (xp_wire_expect(&r, &f, XP_WT_VARINT)) ln->duration_ps = (int64_t)f.u; break;
      case LINE_EVENTS:
        /* Every 4096 events: progress; has the query been interrupted (cancel.h)? */
        if ((ln->n_events & 4095) == 4095) {
          walk_tick(w, f.p);
          if (xp_cancelled()) { w->oom = 2; return; }
        }
        if (xp_wire_expect(&r, &f, XP_WT_LEN)) walk_event(&r, &f, ln, used, w);
        break;
      default: break;
    }
  }
  if (r.err) *pr = r;
}

static void walk_emeta(xp_wire *pr, const xp_field *vf, xp_event_meta *em, idset *used, walk *w) {
  xp_wire r;
  xp_field f;
  xp_wire_init(&r, pr->base, vf->p, vf->n);
  em->msg = vf->p;
  em->msg_n = vf->n;
  while (xp_wire_next(&r, &f)) {
    switch (f.num) {
      case EMETA_ID: xp_wire_expect(&r, &f, XP_WT_VARINT); break; /* the map key rules */
      case EMETA_NAME: if (xp_wire_expect(&r, &f, XP_WT_LEN)) em->name = str_of(&f); break;
      case EMETA_DISPLAY_NAME: if (xp_wire_expect(&r, &f, XP_WT_LEN)) em->display_name = str_of(&f); break;
      case EMETA_METADATA: if (xp_wire_expect(&r, &f, XP_WT_LEN)) em->metadata = str_of(&f); break;
      case EMETA_STATS: if (walk_stats_of(&r, &f, used, w)) em->n_stats++; break;
      case EMETA_CHILD_ID:
        if (f.wt == XP_WT_LEN || f.wt == XP_WT_VARINT) {
          xp_packed pk;
          int64_t v;
          xp_packed_init(&pk, &r, &f);
          while (xp_packed_next(&pk, &v, &r)) em->n_children++;
        } else {
          xp_wire_mismatch(&r, &f);
        }
        break;
      default: break;
    }
  }
  if (r.err) *pr = r;
}

/* One map entry (key = field 1, value message = field 2). */
static int walk_map_entry(xp_wire *pr, const xp_field *mf, int64_t *key, xp_field *value) {
  xp_wire r;
  xp_field f;
  int has_value = 0;
  *key = 0;
  xp_wire_init(&r, pr->base, mf->p, mf->n);
  while (xp_wire_next(&r, &f)) {
    if (f.num == MAP_KEY) {
      if (xp_wire_expect(&r, &f, XP_WT_VARINT)) *key = (int64_t)f.u;
    } else if (f.num == MAP_VALUE) {
      if (xp_wire_expect(&r, &f, XP_WT_LEN)) { *value = f; has_value = 1; }
    }
  }
  if (r.err) { *pr = r; return 0; }
  if (!has_value) { value->p = mf->p; value->n = 0; value->at = mf->at; }
  return 1;
}

static void walk_smeta(xp_wire *pr, const xp_field *vf, xp_stat_meta *sm) {
  xp_wire r;
  xp_field f;
  xp_wire_init(&r, pr->base, vf->p, vf->n);
  while (xp_wire_next(&r, &f)) {
    switch (f.num) {
      case SMETA_ID: xp_wire_expect(&r, &f, XP_WT_VARINT); break;
      case SMETA_NAME: if (xp_wire_expect(&r, &f, XP_WT_LEN)) sm->name = str_of(&f); break;
      case SMETA_DESCRIPTION: if (xp_wire_expect(&r, &f, XP_WT_LEN)) sm->description = str_of(&f); break;
      default: break;
    }
  }
  if (r.err) *pr = r;
}

/* Give back the unused tail of an array of n elements (capacity cap); on
** failure it stays as it is. */
static void shrink_to_fit(void **arr, int32_t n, int32_t cap, size_t elt) {
  if (!*arr || n >= cap) return;
  void *p = xp_realloc(*arr, (uint64_t)(n > 0 ? n : 1) * elt);
  if (p) *arr = p;
}

static void walk_plane(xp_wire *sr, const xp_field *pf, xp_plane *pl, walk *w) {
  xp_wire r;
  xp_field f;
  idset used = {0};
  memset(pl, 0, sizeof(*pl));
  pl->msg = pf->p;
  pl->msg_n = pf->n;
  w->cap_lines = w->cap_emeta = w->cap_smeta = 0;
  xp_wire_init(&r, sr->base, pf->p, pf->n);
  while (!w->oom && !w->limit && xp_wire_next(&r, &f)) {
    switch (f.num) {
      case PLANE_ID: if (xp_wire_expect(&r, &f, XP_WT_VARINT)) pl->id = (int64_t)f.u; break;
      case PLANE_NAME: if (xp_wire_expect(&r, &f, XP_WT_LEN)) pl->name = str_of(&f); break;
      case PLANE_LINES:
        if (!xp_wire_expect(&r, &f, XP_WT_LEN)) break;
        if ((pl->n_lines & 255) == 255) {
          walk_tick(w, f.p);
          if (xp_cancelled()) { w->oom = 2; break; }
        }
        if (!xp_grow32((void **)&pl->lines, &w->cap_lines, pl->n_lines + 1, sizeof(xp_line))) { w->oom = 1; break; }
        walk_line(&r, &f, &pl->lines[pl->n_lines], &used, w);
        if (!r.err) {
          int64_t ne = pl->lines[pl->n_lines++].n_events;
          pl->n_events += ne;
          if (w->lines_total && __atomic_add_fetch(w->lines_total, 1, __ATOMIC_RELAXED) > XP_MAX_LINES) w->limit = 1;
          else if (w->events_total && __atomic_add_fetch(w->events_total, ne, __ATOMIC_RELAXED) > XP_MAX_EVENTS)
            w->limit = 2;
        }
        break;
      case PLANE_EMETA: {
        int64_t key;
        xp_field vf;
        if (!xp_wire_expect(&r, &f, XP_WT_LEN) || !walk_map_entry(&r, &f, &key, &vf)) break;
        if (w->meta_total && __atomic_add_fetch(w->meta_total, 1, __ATOMIC_RELAXED) > XP_MAX_METADATA) { w->limit = 3; break; }
        if (!xp_grow32((void **)&pl->emeta, &w->cap_emeta, pl->n_emeta + 1, sizeof(xp_event_meta))) { w->oom = 1; break; }
        xp_event_meta *em = &pl->emeta[pl->n_emeta];
        memset(em, 0, sizeof(*em));
        em->id = key;
        walk_emeta(&r, &vf, em, &used, w);
        pl->n_emeta++;
        break;
      }
      case PLANE_SMETA: {
        int64_t key;
        xp_field vf;
        if (!xp_wire_expect(&r, &f, XP_WT_LEN) || !walk_map_entry(&r, &f, &key, &vf)) break;
        if (w->meta_total && __atomic_add_fetch(w->meta_total, 1, __ATOMIC_RELAXED) > XP_MAX_METADATA) { w->limit = 3; break; }
        if (!xp_grow32((void **)&pl->smeta, &w->cap_smeta, pl->n_smeta + 1, sizeof(xp_stat_meta))) { w->oom = 1; break; }
        xp_stat_meta *sm = &pl->smeta[pl->n_smeta];
        memset(sm, 0, sizeof(*sm));
        sm->id = key;
        walk_smeta(&r, &vf, sm);
        pl->n_smeta++;
        break;
      }
      case PLANE_STATS: if (walk_stats_of(&r, &f, &used, w)) pl->n_stats++; break;
      default: break;
    }
  }
  if (r.err) *sr = r;
  if (!r.err && !w->oom && !w->limit) {
    pl->n_emeta = drop_superseded(pl->emeta, pl->n_emeta, sizeof(xp_event_meta), &w->oom);
    pl->n_smeta = drop_superseded(pl->smeta, pl->n_smeta, sizeof(xp_stat_meta), &w->oom);
  }
  /* Exact-size arrays: grown by doubling from 8, a plane holding one line
  ** and one name kept room for 8 of each (1,728 bytes; a 5 MB JSON trace
  ** with a million pids peaked at 2.2 GB). */
  shrink_to_fit((void **)&pl->lines, pl->n_lines, w->cap_lines, sizeof(xp_line));
  shrink_to_fit((void **)&pl->emeta, pl->n_emeta, w->cap_emeta, sizeof(xp_event_meta));
  shrink_to_fit((void **)&pl->smeta, pl->n_smeta, w->cap_smeta, sizeof(xp_stat_meta));
  if (!r.err && !w->oom && !w->limit) {
    if (!idmap_build(&pl->emeta_idx, pl->n_emeta, pl->emeta ? &pl->emeta->id : NULL, sizeof(xp_event_meta)) ||
        !idmap_build(&pl->smeta_idx, pl->n_smeta, pl->smeta ? &pl->smeta->id : NULL, sizeof(xp_stat_meta))) {
      w->oom = 1;
    } else {
      for (uint32_t i = 0; used.set.vals && i <= used.set.mask; i++) {
        if (used.set.vals[i] < 0) continue;
        int32_t k = xp_idmap_get(&pl->smeta_idx, used.set.keys[i]);
        if (k >= 0) pl->smeta[k].used_as_name = 1;
      }
    }
  }
  idset_free(&used);
}

static int add_str(xp_str **arr, int32_t *n, int32_t *cap, const xp_field *f) {
  if (!xp_grow32((void **)arr, cap, *n + 1, sizeof(xp_str))) return 0;
  (*arr)[(*n)++] = str_of(f);
  return 1;
}

/* `Task Environment` plane: profile_start_time / profile_stop_time (ns). */
static void read_task_environment(xp_profile *p) {
  xp_statvec sv = {0};
  for (int32_t i = 0; i < p->n_planes; i++) {
    xp_plane *pl = &p->planes[i];
    if (!xp_str_eq(pl->name, "Task Environment")) continue;
    xp_plane_stats(p, pl, &sv);
    for (int k = 0; k < sv.n; k++) {
      const xp_stat *s = &sv.v[k];
      int is_start = xp_str_eq(s->name, "profile_start_time");
      int is_stop = xp_str_eq(s->name, "profile_stop_time");
      if ((!is_start && !is_stop) || (s->type != XP_V_INT64 && s->type != XP_V_UINT64)) continue;
      if (is_start) { p->has_start_time = 1; p->profile_start_time_ns = s->num.i; }
      else { p->has_stop_time = 1; p->profile_stop_time_ns = s->num.i; }
    }
  }
  xp_statvec_free(&sv);
}

static void free_planes(xp_profile *p) {
  for (int32_t i = 0; i < p->n_planes; i++) {
    xp_plane *pl = &p->planes[i];
    xp_free(pl->lines);
    xp_free(pl->emeta);
    xp_free(pl->smeta);
    xp_idmap_free(&pl->emeta_idx);
    xp_idmap_free(&pl->smeta_idx);
  }
  xp_free(p->planes);
  p->planes = NULL;
  p->n_planes = 0;
}

/* Line times in ps must fit int64. Modern producers write line timestamps
** relative to the session start; old ones wrote epoch nanoseconds (~1.7e18,
** x1000 overflows). Those files are rebased on their earliest line, and the
** base is reported (xplane_space.time_base_ns). Lines are rebased on the earliest timestamp when some timestamp is more
** than 2^61 ps (26.7 days) from 0: epoch-based clocks, or an uptime clock of a
** long-running host; then picosecond times stay within XP_TIME_LIMIT_PS. */
#define XP_EPOCH_NS_LIMIT (XP_EVENT_LIMIT_PS / 1000 - 1)

/* Why event k (0-based) of line li of plane pi is out of range. */
static char *bad_event_text(const xp_profile *p, int32_t pi, int32_t li, int64_t k) {
  const xp_plane *pl = &p->planes[pi];
  const xp_line *ln = &pl->lines[li];
  xp_event_iter it;
  xp_event ev;
  memset(&ev, 0, sizeof(ev));
  xp_events_begin(p, ln, &it);
  for (int64_t i = 0; i <= k && xp_events_next(&it, &ev); i++) {}
  return xp_mprintf("plane %d (%.*s) line %d (%.*s) event %lld: time out of range: offset_ps %lld, "
                    "duration_ps %lld (offsets and durations within +-2^61 ps: README "
                    "\"Limits and safety\")", pi, (int)pl->name.n, pl->name.p, li, (int)ln->name.n,
                    ln->name.p, (long long)k, (long long)ev.offset_ps, (long long)ev.duration_ps);
}

static char *set_line_bases(xp_profile *p) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int32_t i = 0; i < p->n_planes; i++)
    for (int32_t k = 0; k < p->planes[i].n_lines; k++) {
      int64_t t = p->planes[i].lines[k].timestamp_ns;
      if (t < lo) lo = t;
      if (t > hi) hi = t;
    }
  p->time_base_ns = (hi > XP_EPOCH_NS_LIMIT || lo < -XP_EPOCH_NS_LIMIT) ? lo : 0;
  for (int32_t i = 0; i < p->n_planes; i++)
    for (int32_t k = 0; k < p->planes[i].n_lines; k++) {
      xp_line *ln = &p->planes[i].lines[k];
      if (ln->bad_event) return bad_event_text(p, i, k, ln->bad_event - 1);
      int64_t rel_ns, base, lo_ps, hi_ps;
      int over = __builtin_sub_overflow(ln->timestamp_ns, p->time_base_ns, &rel_ns) ||
                 __builtin_mul_overflow(rel_ns, (int64_t)1000, &base);
      if (!over && ln->n_timed)
        over = __builtin_add_overflow(ln->min_start_ps, base, &lo_ps) ||
               __builtin_add_overflow(ln->max_end_ps, base, &hi_ps) || lo_ps <= -XP_TIME_LIMIT_PS ||
               hi_ps >= XP_TIME_LIMIT_PS;
      if (over)
        return xp_mprintf("plane %d (%.*s) line %d (%.*s): timestamp_ns %lld puts events more than 2^62 ps "
                          "from the profile's time base (%lld ns) (README \"Limits and safety\")", i,
                          (int)p->planes[i].name.n, p->planes[i].name.p, k, (int)ln->name.n, ln->name.p,
                          (long long)ln->timestamp_ns, (long long)p->time_base_ns);
      ln->base_ps = base;
      if (!ln->n_timed) continue;
      ln->min_start_ps += base;
      ln->max_start_ps += base; /* between min_start and max_end */
      ln->max_end_ps += base;
    }
  return NULL;
}

/* Describe a wire error in words a user can act on. */
static char *wire_error_text(const xp_profile *p, const xp_wire *r) {
  if (r->err == XP_WIRE_TRUNCATED) {
    if (r->err_need > (uint64_t)p->size)
      return xp_mprintf("truncated at byte %lld: the field at byte %llu needs %llu bytes "
                             "but the file has %lld (an incomplete or cut-off write?)",
                             (long long)p->size, (unsigned long long)r->err_at,
                             (unsigned long long)r->err_need, (long long)p->size);
    return xp_mprintf("corrupt: the length of the field at byte %llu points past the end "
                           "of its enclosing message (not an XSpace, or damaged)",
                           (unsigned long long)r->err_at);
  }
  return xp_mprintf("not an XSpace: %s at byte %llu", xp_wire_errstr(r->err),
                         (unsigned long long)r->err_at);
}

/* Friendlier words for formats people hand us by mistake. */
static const char *sniff_foreign(const uint8_t *b, int64_t n) {
  if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) return "is gzip-compressed, not an XSpace (decompress it, or give the .xplane.pb)";
  int64_t i = 0;
  while (i < n && i < 64 && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) i++;
  if (i < n && (b[i] == '{' || b[i] == '[')) return "looks like JSON, not an XSpace (a Chrome/Perfetto JSON trace?)";
  return NULL;
}

/* Where an XSpace.planes field's message lies (16 bytes a plane: the whole
** xp_field is 40, and a million-pid JSON trace has a million planes). */
typedef struct plane_span {
  const uint8_t *p;
  size_t n;
} plane_span;

/* Planes are independent: their walks may run on several threads. Only the
** first failure in file order is kept (not a status per plane: 52 bytes a
** plane, 52 MB for a million-pid JSON trace). */
typedef struct plane_jobs {
  xp_profile *p;
  const plane_span *fields; /* the XSpace.planes fields, in file order */
  int32_t failed;           /* the first plane (file order) whose walk failed; n_planes: none */
  xp_wire fail_err;         /* that walk's error state */
  int fail_code;            /* its walk.oom (1 out of memory, 2 cancelled), or 10 + walk.limit; 0: fail_err */
  int32_t next;
  int64_t lines_total, events_total, meta_total, bytes_done;
  const xp_progress *hook;  /* the opening thread's progress hook */
  pthread_t owner;          /* that thread */
  pthread_mutex_t mu;
} plane_jobs;

static void *plane_worker(void *arg) {
  plane_jobs *j = arg;
  for (;;) {
    pthread_mutex_lock(&j->mu);
    int32_t k = j->next++;
    pthread_mutex_unlock(&j->mu);
    if (k >= j->p->n_planes) return NULL;
    walk w;
    memset(&w, 0, sizeof(w));
    w.prof = j->p;
    w.lines_total = &j->lines_total;
    w.events_total = &j->events_total;
    w.meta_total = &j->meta_total;
    w.bytes_done = j->hook ? &j->bytes_done : NULL; /* counted only for a hook */
    w.mark = j->fields[k].p;
    w.bytes_total = j->p->size;
    w.hook = j->hook && pthread_equal(j->owner, pthread_self()) ? j->hook : NULL;
    xp_field pf;
    memset(&pf, 0, sizeof(pf));
    pf.p = j->fields[k].p;
    pf.n = j->fields[k].n;
    xp_wire r;
    xp_wire_init(&r, j->p->base, j->p->base, (size_t)j->p->size);
    walk_plane(&r, &pf, &j->p->planes[k], &w);
    walk_tick(&w, pf.p + pf.n);
    int code = w.oom ? w.oom : w.limit ? 10 + w.limit : 0;
    if (code || r.err) {
      pthread_mutex_lock(&j->mu);
      if (k < j->failed) {
        j->failed = k;
        j->fail_err = r;
        j->fail_code = code;
      }
      pthread_mutex_unlock(&j->mu);
    }
  }
}

/* Walk every plane, on up to `threads` threads; returns the first failing
** plane's error (file order) in *err, or sets *oom. */
static void walk_planes(xp_profile *p, const plane_span *fields, int threads, xp_wire *err, int *oom,
                        int *limit) {
  plane_jobs j;
  memset(&j, 0, sizeof(j));
  j.p = p;
  j.fields = fields;
  j.failed = p->n_planes;
  j.hook = progress_hook;
  j.owner = pthread_self();
  pthread_mutex_init(&j.mu, NULL);
  int nt = threads < p->n_planes ? threads : p->n_planes;
  xp_cancel_run_threads(nt < XP_MAX_INDEX_THREADS ? nt : XP_MAX_INDEX_THREADS, plane_worker, &j);
  pthread_mutex_destroy(&j.mu);
  if (j.failed < p->n_planes) {
    if (j.fail_code >= 10) *limit = j.fail_code - 10;
    else if (j.fail_code) *oom = j.fail_code;
    else *err = j.fail_err;
  }
}

/* Run the validating walk over the mapping; returns an error text or NULL. */
static char *index_space(xp_profile *p, int threads) {
  walk w;
  xp_wire r;
  xp_field f;
  plane_span *fields = NULL;
  int32_t cap_fields = 0;
  int known = 0;
  memset(&w, 0, sizeof(w));
  w.prof = p;
  xp_wire_init(&r, p->base, p->base, (size_t)p->size);
  while (!w.oom && xp_wire_next(&r, &f)) {
    switch (f.num) {
      case SPACE_PLANES:
        if (!xp_wire_expect(&r, &f, XP_WT_LEN)) break;
        if (p->n_planes >= XP_MAX_PLANES) {
          char *e = xp_mprintf("more than %d planes (the limit: README \"Limits and safety\"); plane %d starts "
                               "at byte %lld", XP_MAX_PLANES, p->n_planes, (long long)(f.p - p->base));
          xp_free(fields);
          p->n_planes = 0; /* nothing was walked: nothing to free */
          return e;
        }
        if (!xp_grow32((void **)&fields, &cap_fields, p->n_planes + 1, sizeof(plane_span))) { w.oom = 1; break; }
        fields[p->n_planes].p = f.p;
        fields[p->n_planes++].n = f.n;
        known++;
        break;
      case SPACE_ERRORS:
        if (xp_wire_expect(&r, &f, XP_WT_LEN) && !add_str(&p->errors, &p->n_errors, &w.cap_errors, &f)) w.oom = 1;
        known++;
        break;
      case SPACE_WARNINGS:
        if (xp_wire_expect(&r, &f, XP_WT_LEN) && !add_str(&p->warnings, &p->n_warnings, &w.cap_warnings, &f)) w.oom = 1;
        known++;
        break;
      case SPACE_HOSTNAMES:
        if (xp_wire_expect(&r, &f, XP_WT_LEN) && !add_str(&p->hostnames, &p->n_hostnames, &w.cap_hostnames, &f)) w.oom = 1;
        known++;
        break;
      default: break;
    }
  }
  if (!w.oom && !r.err && p->n_planes) {
    p->planes = xp_malloc(sizeof(xp_plane) * (uint64_t)p->n_planes);
    if (!p->planes) w.oom = 1;
    else memset(p->planes, 0, sizeof(xp_plane) * (size_t)p->n_planes);
    if (!w.oom) walk_planes(p, fields, threads, &r, &w.oom, &w.limit);
  }
  if (!p->planes) p->n_planes = 0; /* nothing was walked: nothing to free */
  xp_free(fields);
  if (w.oom == 2 || xp_cancel_stopped()) return xp_mprintf("%s", XP_CANCELLED_TEXT);
  if (w.oom) return xp_mprintf("out of memory while indexing");
  if (w.limit == 1)
    return xp_mprintf("more than %lld lines (the limit: README \"Limits and safety\")", (long long)XP_MAX_LINES);
  if (w.limit == 2)
    return xp_mprintf("more than %lld events (the limit: README \"Limits and safety\")", (long long)XP_MAX_EVENTS);
  if (w.limit == 3)
    return xp_mprintf("more than %lld event and stat metadata entries (the limit: README \"Limits and safety\")",
                      (long long)XP_MAX_METADATA);
  if (r.err) {
    const char *foreign = sniff_foreign(p->base, p->size);
    return foreign ? xp_mprintf("%s", foreign) : wire_error_text(p, &r);
  }
  if (!known) return xp_mprintf("not an XSpace: no planes, errors, warnings or hostnames in %lld bytes", (long long)p->size);
  for (int32_t i = 0; i < p->n_planes; i++) {
    p->n_lines += p->planes[i].n_lines;
    p->n_events += p->planes[i].n_events;
  }
  char *bad = set_line_bases(p);
  if (bad) return bad;
  read_task_environment(p);
  if (progress_hook) progress_hook->fn(progress_hook->arg, p->size, p->size);
  return NULL;
}

static void profile_free(xp_profile *p) {
  if (!p) return;
  if (p->analysis && p->analysis_free) p->analysis_free(p->analysis);
  free_planes(p);
  xp_free(p->errors);
  xp_free(p->warnings);
  xp_free(p->hostnames);
  if (p->guarded) xp_guard_remove(p->base);
  if (p->base && p->size > 0 && p->mapped == 1) munmap((void *)p->base, (size_t)p->size);
  if (p->mapped == 2) xp_free((void *)p->base);
  xp_free(p->path);
  xp_free(p->source_path);
  xp_free(p->display_time_unit);
  xp_free(p);
}

const char *xp_source_format_name(int source_format) {
  return source_format == XP_SOURCE_TRACE_JSON ? "perfetto_trace_json" : "xplane_pb";
}

static xp_profile *profile_new(const char *path) {
  xp_profile *p = xp_malloc(sizeof(*p));
  if (!p) return NULL;
  memset(p, 0, sizeof(*p));
  p->refcount = 1;
  p->path = xp_mprintf("%s", path);
  p->source_path = xp_mprintf("%s", path);
  if (!p->path || !p->source_path) {
    profile_free(p);
    return NULL;
  }
  return p;
}

/* Map the XPlane file open on fd (st: its stat) and index it. */
static char *load_xplane(xp_profile *p, int fd, const struct stat *st, int threads) {
  if (st->st_size == 0) return xp_mprintf("empty file (0 bytes): not an XSpace");
  if ((int64_t)st->st_size > XP_MAX_FILE_BYTES)
    return xp_mprintf("too large: %lld bytes, over the 2 GiB limit of a protobuf message",
                           (long long)st->st_size);
  p->size = (int64_t)st->st_size;
  void *m = mmap(NULL, (size_t)p->size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (m == MAP_FAILED) return xp_mprintf("cannot map: %s", strerror(errno));
  p->base = m;
  p->mapped = 1;
  /* A shrinking file must not kill the process (guard.h); without a guard
  ** slot, read the file into memory instead. */
  p->guarded = xp_guard_add(m, (size_t)p->size, &p->changed);
  if (!p->guarded) {
    munmap(m, (size_t)p->size);
    p->base = NULL;
    p->mapped = 0;
    uint8_t *buf = xp_malloc((uint64_t)p->size);
    if (!buf) return xp_mprintf("out of memory reading %lld bytes", (long long)p->size);
    p->base = buf;
    p->mapped = 2;
    for (int64_t got = 0; got < p->size;) {
      ssize_t k = pread(fd, buf + got, (size_t)(p->size - got), (off_t)got);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) { p->changed = 1; return xp_mprintf("%s", XP_CHANGED_TEXT); }
      got += k;
    }
  }
  char *why = index_space(p, threads);
  if (p->changed) {
    xp_free(why);
    return xp_mprintf("%s", XP_CHANGED_TEXT);
  }
  return why;
}

/* Convert the JSON trace open on fd and index the XSpace it gives. */
static char *load_json(xp_profile *p, int fd, const struct stat *st, const char *note, int threads) {
  xp_json_trace t;
  char *why = NULL;
  if (st->st_size == 0) return xp_mprintf("empty file (0 bytes): not a JSON trace");
  if (!xp_json_trace_convert(fd, note, &t, &why)) return why;
  /* A trace whose events make nothing (e.g. metadata events naming no
  ** process or thread) converts to an empty XSpace: zero bytes, which can
  ** be neither mapped nor indexed. */
  void *m = t.size ? mmap(NULL, (size_t)t.size, PROT_READ, MAP_SHARED, t.fd, 0) : MAP_FAILED;
  close(t.fd);
  p->source_format = XP_SOURCE_TRACE_JSON;
  p->n_trace_events = t.n_trace_events;
  p->display_time_unit = t.display_time_unit;
  if (t.size == 0) return xp_mprintf("nothing to read: no event of this JSON trace makes a process, thread or slice");
  if (m == MAP_FAILED) return xp_mprintf("cannot map the converted trace: %s", strerror(errno));
  p->base = m;
  p->size = t.size;
  p->mapped = 1;
  return index_space(p, threads);
}

static void key_from_stat(const struct stat *st, struct xp_file_key *k) {
  k->dev = (int64_t)st->st_dev;
  k->ino = (int64_t)st->st_ino;
  k->size = (int64_t)st->st_size;
  k->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
  k->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

int xp_file_key_of(const char *path, struct xp_file_key *k) {
  struct stat st;
  memset(k, 0, sizeof(*k));
  if (stat(path, &st) != 0) return 0;
  key_from_stat(&st, k);
  return 1;
}

/* Read `file` into p (an XPlane, or a JSON trace with its note); returns an
** error text or NULL. */
static char *load_file(xp_profile *p, const char *file, int as_json, const char *note, int threads) {
  char *why = NULL;
  struct stat st;
  /* O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused below). */
  int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    why = xp_mprintf("cannot open: %s", strerror(errno));
  } else if (fstat(fd, &st) != 0) {
    why = xp_mprintf("cannot stat: %s", strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    why = xp_mprintf("not a regular file");
  } else {
    p->file_size = (int64_t)st.st_size;
    p->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    key_from_stat(&st, &p->key);
    p->key_xplane = p->key;
    why = as_json ? load_json(p, fd, &st, note, threads) : load_xplane(p, fd, &st, threads);
  }
  if (fd >= 0) close(fd);
  return why;
}

xp_profile *xp_profile_load(const char *name, const char *file, int as_json, const char *note, int threads,
                            char **why) {
  xp_profile *p = profile_new(name);
  *why = NULL;
  if (!p) {
    *why = xp_mprintf("out of memory");
    return NULL;
  }
  if (strcmp(name, file) != 0) {
    xp_free(p->source_path);
    if (!(p->source_path = xp_mprintf("%s", file))) *why = xp_mprintf("out of memory");
  }
  p->threads = threads < 1 ? 1 : threads > XP_MAX_INDEX_THREADS ? XP_MAX_INDEX_THREADS : threads;
  if (!*why) *why = load_file(p, file, as_json, note, threads);
  if (*why) {
    profile_free(p);
    return NULL;
  }
  return p;
}

xp_profile *xp_profile_from_memory(const char *name, const uint8_t *buf, size_t n, char **errmsg) {
  xp_profile *p = profile_new(name);
  char *why = NULL;
  *errmsg = NULL;
  if (!p) { *errmsg = xp_mprintf("%s: out of memory", name); return NULL; }
  p->base = buf;
  p->size = p->file_size = (int64_t)n;
  if (n == 0) why = xp_mprintf("empty file (0 bytes): not an XSpace");
  else if ((int64_t)n > XP_MAX_FILE_BYTES) why = xp_mprintf("too large: %lld bytes", (long long)n);
  else why = index_space(p, 1);
  if (why) {
    *errmsg = xp_mprintf("%s: %s", name, why);
    xp_free(why);
    profile_free(p);
    return NULL;
  }
  return p;
}

int64_t xp_profile_bytes(const xp_profile *p) {
  int64_t n = (int64_t)sizeof(*p) + p->size + p->n_planes * (int64_t)sizeof(xp_plane);
  for (int32_t i = 0; i < p->n_planes; i++) {
    const xp_plane *pl = &p->planes[i];
    n += pl->n_lines * (int64_t)sizeof(xp_line) + pl->n_emeta * (int64_t)sizeof(xp_event_meta) +
         pl->n_smeta * (int64_t)sizeof(xp_stat_meta);
    n += (pl->n_emeta + pl->n_smeta) * 2 * (int64_t)(sizeof(int64_t) + sizeof(int32_t)); /* id maps, half full */
  }
  if (p->analysis && p->analysis_bytes) n += p->analysis_bytes(p->analysis);
  return n;
}

void xp_profile_retain(xp_profile *p) { p->refcount++; }

void xp_profile_release(xp_profile *p) {
  if (p && --p->refcount == 0) profile_free(p);
}

/* ---- scanning (after validation: cannot fail) ----------------------- */

void xp_events_begin(const xp_profile *p, const xp_line *ln, xp_event_iter *it) {
  xp_wire_init(&it->r, p->base, ln->msg, ln->msg_n);
  it->left = ln->n_events;
  it->prof = p;
}

/* The bytes no longer match the index: flag the profile (a mutable flag of
** an otherwise immutable profile, also set by the SIGBUS guard). */
static void mark_changed(const xp_profile *p) { ((xp_profile *)p)->changed = XP_CHANGED_FILE; }

/* Events read on this thread, by every iterator: the interrupt check runs
** every 4096 (lines are often shorter than that). */
static XP_THREAD_LOCAL uint32_t events_read;

int xp_events_next(xp_event_iter *it, xp_event *ev) {
  xp_field f;
  while (xp_wire_next(&it->r, &f)) {
    if (f.num != LINE_EVENTS) continue;
    if (it->left <= 0 || f.wt != XP_WT_LEN) {
      mark_changed(it->prof);
      return 0;
    }
    it->left--;
    if ((++events_read & 4095) == 0 && xp_cancelled()) {
      if (!it->prof->changed) ((xp_profile *)it->prof)->changed = XP_CHANGED_INTERRUPTED;
      it->left = 0;
      return 0;
    }
    memset(ev, 0, sizeof(*ev));
    ev->msg = f.p;
    ev->msg_n = f.n;
    /* The usual event: one-byte tags of the four varint fields and of the
    ** stats, read without the general field reader; anything else (and
    ** anything out of bounds) falls through to it from where this stopped. */
    const uint8_t *q = f.p, *e = f.p + f.n;
    while (q < e) {
      uint64_t v;
      const uint8_t *n;
      uint8_t tag = *q;
      if ((tag & 7) == XP_WT_VARINT && tag >= 0x08 && tag <= 0x28 && tag != 0x20) {
        if (!(n = xp_varint(q + 1, e, &v))) break;
        switch (tag >> 3) {
          case EVENT_METADATA_ID: ev->metadata_id = (int64_t)v; break;
          case EVENT_OFFSET_PS: ev->offset_ps = (int64_t)v; ev->has_offset = 1; ev->has_occurrences = 0; break;
          case EVENT_DURATION_PS: ev->duration_ps = (int64_t)v; break;
          default: ev->num_occurrences = (int64_t)v; ev->has_occurrences = 1; ev->has_offset = 0; break;
        }
        q = n;
      } else if (tag == ((EVENT_STATS << 3) | XP_WT_LEN)) {
        if (!(n = xp_varint(q + 1, e, &v)) || v > (uint64_t)(e - n)) break;
        q = n + v;
      } else {
        break;
      }
    }
    if (q == e) return 1;
    xp_wire r;
    xp_field g;
    xp_wire_init(&r, it->r.base, q, (size_t)(e - q));
    while (xp_wire_next(&r, &g)) {
      switch (g.num) {
        case EVENT_METADATA_ID: ev->metadata_id = (int64_t)g.u; break;
        case EVENT_OFFSET_PS: ev->offset_ps = (int64_t)g.u; ev->has_offset = 1; ev->has_occurrences = 0; break;
        case EVENT_NUM_OCCURRENCES: ev->num_occurrences = (int64_t)g.u; ev->has_occurrences = 1; ev->has_offset = 0; break;
        case EVENT_DURATION_PS: ev->duration_ps = (int64_t)g.u; break;
        default: break;
      }
    }
    return 1;
  }
  if ((it->left > 0 || it->r.err) && it->prof->changed != XP_CHANGED_INTERRUPTED) mark_changed(it->prof);
  it->left = 0;
  return 0;
}

void xp_statvec_free(xp_statvec *sv) {
  xp_free(sv->v);
  sv->v = NULL;
  sv->n = sv->cap = 0;
}

/* The metadata id and the value of one XStat; its name is left empty (a ref
** value is resolved: it is the referenced stat metadata's name). */
static void parse_stat_value(const xp_profile *p, const xp_plane *pl, const uint8_t *msg, size_t n, xp_stat *s) {
  xp_wire r;
  xp_field f;
  memset(s, 0, sizeof(*s));
  xp_wire_init(&r, p->base, msg, n);
  while (xp_wire_next(&r, &f)) {
    switch (f.num) {
      case STAT_METADATA_ID: s->metadata_id = (int64_t)f.u; break;
      case STAT_DOUBLE: s->type = XP_V_DOUBLE; s->num.d = xp_u64_as_double(f.u); break;
      case STAT_UINT64: s->type = XP_V_UINT64; s->num.u = f.u; break;
      case STAT_INT64: s->type = XP_V_INT64; s->num.i = (int64_t)f.u; break;
      case STAT_STR: s->type = XP_V_STR; s->s = str_of(&f); break;
      case STAT_BYTES: s->type = XP_V_BYTES; s->s = str_of(&f); break;
      case STAT_REF: s->type = XP_V_REF; s->ref = f.u; break;
      default: break;
    }
  }
  if (s->type == XP_V_REF) {
    const xp_stat_meta *rm = xp_plane_stat_meta(pl, (int64_t)s->ref);
    xp_str empty = {"", 0};
    s->s = rm ? rm->name : empty;
  }
}

/* One XStat with its name (stat_metadata[metadata_id].name). */
static void parse_stat(const xp_profile *p, const xp_plane *pl, const uint8_t *msg, size_t n, xp_stat *s) {
  parse_stat_value(p, pl, msg, n, s);
  const xp_stat_meta *sm = xp_plane_stat_meta(pl, s->metadata_id);
  if (sm) s->name = sm->name;
}

int xp_stats_append(const xp_profile *p, const xp_plane *pl, const uint8_t *msg, size_t n,
                    uint32_t field, xp_origin origin, xp_statvec *sv) {
  xp_wire r;
  xp_field f;
  xp_wire_init(&r, p->base, msg, n);
  while (xp_wire_next(&r, &f)) {
    if (f.num != field || f.wt != XP_WT_LEN) continue;
    if (!xp_grow32((void **)&sv->v, &sv->cap, sv->n + 1, sizeof(xp_stat))) return 0;
    xp_stat *s = &sv->v[sv->n++];
    parse_stat(p, pl, f.p, f.n, s);
    s->origin = origin;
  }
  return 1;
}

int xp_plane_stats(const xp_profile *p, const xp_plane *pl, xp_statvec *sv) {
  sv->n = 0;
  return xp_stats_append(p, pl, pl->msg, pl->msg_n, PLANE_STATS, XP_ORIGIN_PLANE, sv);
}

int xp_meta_stats(const xp_profile *p, const xp_plane *pl, const xp_event_meta *em, xp_statvec *sv) {
  sv->n = 0;
  return xp_stats_append(p, pl, em->msg, em->msg_n, EMETA_STATS, XP_ORIGIN_METADATA, sv);
}

static int same_name(const xp_stat *a, const xp_stat *b) {
  if (a->metadata_id == b->metadata_id) return 1;
  return a->name.n == b->name.n && a->name.n > 0 && memcmp(a->name.p, b->name.p, a->name.n) == 0;
}

int xp_event_stats(const xp_profile *p, const xp_plane *pl, const xp_event *ev, xp_statvec *sv) {
  sv->n = 0;
  const xp_event_meta *em = xp_plane_event_meta(pl, ev->metadata_id);
  if (em && em->n_stats &&
      !xp_stats_append(p, pl, em->msg, em->msg_n, EMETA_STATS, XP_ORIGIN_METADATA, sv))
    return 0;
  int n_meta = sv->n;
  if (!xp_stats_append(p, pl, ev->msg, ev->msg_n, EVENT_STATS, XP_ORIGIN_EVENT, sv)) return 0;
  if (n_meta == 0) return 1;
  /* Drop metadata stats that an event stat overrides (keep the order). */
  int out = 0;
  for (int i = 0; i < n_meta; i++) {
    int clash = 0;
    for (int k = n_meta; k < sv->n && !clash; k++) clash = same_name(&sv->v[i], &sv->v[k]);
    if (!clash) sv->v[out++] = sv->v[i];
  }
  for (int k = n_meta; k < sv->n; k++) sv->v[out++] = sv->v[k];
  sv->n = out;
  return 1;
}

const xp_stat *xp_statvec_find(const xp_statvec *sv, const char *name) {
  for (int i = sv->n - 1; i >= 0; i--)
    if (xp_str_eq(sv->v[i].name, name)) return &sv->v[i];
  return NULL;
}

void xp_meta_children(const xp_profile *p, const xp_event_meta *em, int64_t *out) {
  xp_wire r;
  xp_field f;
  int32_t k = 0;
  xp_wire_init(&r, p->base, em->msg, em->msg_n);
  while (xp_wire_next(&r, &f) && k < em->n_children) {
    if (f.num != EMETA_CHILD_ID) continue;
    xp_packed pk;
    int64_t v;
    xp_packed_init(&pk, &r, &f);
    while (k < em->n_children && xp_packed_next(&pk, &v, NULL)) out[k++] = v;
  }
}

void xp_stat_pick_init(const xp_plane *pl, const char *const *names, int n_names, xp_stat_pick_ids *ids) {
  ids->n = 0;
  for (int32_t i = 0; i < pl->n_smeta; i++) {
    if (!pl->smeta[i].used_as_name) continue;
    for (int k = 0; k < n_names && ids->n < XP_PICK_MAX * 4; k++)
      if (xp_str_eq(pl->smeta[i].name, names[k])) {
        ids->id[ids->n] = pl->smeta[i].id;
        ids->slot[ids->n] = k;
        ids->n++;
      }
  }
}

/* Parse the stats of one message that carry a wanted id into out. */
static void pick_from(const xp_profile *p, const xp_plane *pl, const uint8_t *msg, size_t n, uint32_t field,
                      const xp_stat_pick_ids *ids, xp_stat *out, xp_origin origin) {
  xp_wire r;
  xp_field f;
  xp_wire_init(&r, p->base, msg, n);
  while (xp_wire_next(&r, &f)) {
    if (f.num != field || f.wt != XP_WT_LEN) continue;
    /* the metadata id is (nearly always) the first field: read it cheaply */
    uint64_t mid = 0;
    const uint8_t *q = f.p;
    if (f.n >= 2 && q[0] == 0x08) {
      if (!xp_varint(q + 1, q + f.n, &mid)) continue;
    } else {
      xp_stat tmp;
      parse_stat_value(p, pl, f.p, f.n, &tmp);
      mid = (uint64_t)tmp.metadata_id;
    }
    for (int k = 0; k < ids->n; k++) {
      if (ids->id[k] != (int64_t)mid) continue;
      xp_stat *o = &out[ids->slot[k]];
      parse_stat_value(p, pl, f.p, f.n, o); /* the caller knows the name: names[slot] */
      o->origin = origin;
    }
  }
}

void xp_stat_pick(const xp_profile *p, const xp_plane *pl, const xp_event *ev, const xp_stat_pick_ids *ids,
                  int n_names, xp_stat *out) {
  xp_stat_pick_em(p, pl, NULL, ev, ids, n_names, out);
}

void xp_stat_pick_em(const xp_profile *p, const xp_plane *pl, const xp_event_meta *em, const xp_event *ev,
                     const xp_stat_pick_ids *ids, int n_names, xp_stat *out) {
  for (int k = 0; k < n_names; k++) memset(&out[k], 0, sizeof(out[k]));
  if (!ids->n) return;
  if (!em) em = xp_plane_event_meta(pl, ev->metadata_id);
  if (em && em->n_stats) pick_from(p, pl, em->msg, em->msg_n, EMETA_STATS, ids, out, XP_ORIGIN_METADATA);
  pick_from(p, pl, ev->msg, ev->msg_n, EVENT_STATS, ids, out, XP_ORIGIN_EVENT);
}
