/*
** xplane2perfetto.c: convert XPlane profiles to traces trace processor and
** ui.perfetto.dev open (Perfetto protobuf, or Chrome JSON).
**
**   xplane2perfetto [--format proto|json] [--merge] [-o OUT] PATH
**   xplane2perfetto --help      (this usage on stdout, exit status 0)
**
**   PATH            a .xplane.pb file, a run directory or a TensorBoard logdir
**   --format F      proto (default): Perfetto protobuf, `.pftrace`;
**                   json: Chrome JSON (traceEvents), `.json`
**   --merge         all hosts into one trace (a process per plane per host)
**   -o OUT          the output file (file input, or --merge), or the output
**                   directory (directory input: one trace per host, at the
**                   profile's relative path). Default: beside the input
**                   (x.xplane.pb -> x.pftrace; DIR -> DIR/...; --merge of
**                   DIR -> DIR.pftrace). A `.pb` output name, or an output
**                   that is an input file, is refused. An existing
**                   output file is replaced (by a rename once the new trace
**                   is complete: tp_plugin/pf_export.h).
**
** stdout: one JSON line with the counts written, e.g. (gpu_mw.xplane.pb)
**   {"files_in":1,"files_out":1,"slices":20635,"instants":2493,
**    "skipped_untimed":0,"skipped_invalid":0,"processes":9,"threads":37,
**    "tracks":37,"sources":1,"records":43811}
** slices and instants: the converted events (slices + instants + skipped =
** xplane_space.n_events); sources: the xplane.source records (one per
** profile, each on a global track not counted in tracks, which also holds
** the profile's xplane.plane records, one per plane: tp_plugin/pf_model.h);
** records: the packets (JSON: events) written.
** Exit status: 0 ok, 1 conversion failure (message on stderr), 2 bad usage.
** Ctrl-C (SIGINT), SIGTERM or SIGHUP stop the conversion within milliseconds
** (the core polls for it: cancel.h): the trace being written is removed (its
** temporary file; the output is never created or replaced), "interrupted"
** goes to stderr, and the process ends by the same signal, so a shell
** reports 128 + its number (SIGINT: 130) and a calling script stops too.
** Traces of a directory input that were complete before stay. A signal
** ignored when the program starts (e.g. SIGINT of a background job of a
** script) stays ignored; a second signal ends the process at once.
** Mapping and nesting rules: tp_plugin/pf_model.h and tp_plugin/README.md.
*/
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cancel.h"
#include "pf_export.h"

#include "util.h"

static const char usage_text[] =
    "usage: xplane2perfetto [--format proto|json] [--merge] [-o OUT] PATH\n"
    "Convert XPlane profiles (*.xplane.pb) to a Perfetto trace for trace processor and ui.perfetto.dev.\n"
    "  PATH          a .xplane.pb file, a run directory or a TensorBoard logdir\n"
    "  --format F    proto (default): Perfetto protobuf (.pftrace); json: Chrome JSON (.json)\n"
    "  --merge       all hosts into one trace\n"
    "  -o OUT        output file (file input, --merge) or directory (directory input: one trace\n"
    "                per host); default beside the input (host0.xplane.pb -> host0.pftrace)\n"
    "  -h, --help    this help\n"
    "stdout: one JSON line with the counts written. Exit status: 0 ok, 1 failure, 2 bad usage;\n"
    "Ctrl-C removes the unfinished trace and ends by SIGINT (a shell shows 130).\n"
    "Example: xplane2perfetto -o host0.pftrace host0.xplane.pb\n";

/* Bad usage: the usage on stderr, exit status 2. */
static int usage(void) {
  fputs(usage_text, stderr);
  return 2;
}

/* ---- stopping on a signal ---------------------------------------------- */

static volatile sig_atomic_t got_signal;

static void on_signal(int sig) {
  if (got_signal) { /* the second one: the default action, now */
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  got_signal = sig;
}

/* The core's cancellation poll (cancel.h): has a signal come? */
static int signal_poll(void *arg) {
  (void)arg;
  return got_signal != 0;
}

/* Catch SIGINT, SIGTERM and SIGHUP, except one that is ignored already. */
static void catch_signals(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
    struct sigaction old, sa;
    if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

/* After the cleanup: end by the signal that stopped the conversion. */
static int die_of_signal(void) {
  int sig = got_signal;
  fflush(NULL);
  signal(sig, SIG_DFL);
  raise(sig);
  return 128 + sig; /* not reached unless the signal is blocked */
}

int main(int argc, char **argv) {
  pf_export_opts o = {PF_FORMAT_PROTO, 0, 1, NULL}; /* a command the user typed: replaces, like cp */
  const char *in = NULL, *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage_text, stdout);
      return 0;
    }
    if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
      const char *f = argv[++i];
      if (strcmp(f, "proto") == 0) o.format = PF_FORMAT_PROTO;
      else if (strcmp(f, "json") == 0) o.format = PF_FORMAT_JSON;
      else return usage();
    } else if (strcmp(argv[i], "--merge") == 0) {
      o.merged = 1;
    } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
      out = argv[++i];
    } else if (in && argv[i][0] != '-') {
      fprintf(stderr, "xplane2perfetto: one PATH only; name the output with -o: xplane2perfetto -o %s %s\n", argv[i],
              in);
      return 2;
    } else if (argv[i][0] == '-') {
      return usage();
    } else {
      in = argv[i];
    }
  }
  if (!in) return usage();
  char *dflt = out ? NULL : pf_default_output(in, &o);
  if (!out && !dflt) {
    fprintf(stderr, "xplane2perfetto: out of memory\n");
    return 1;
  }
  pf_export_result r;
  char *err = NULL;
  xp_cancel cancel, *saved;
  memset(&cancel, 0, sizeof(cancel));
  cancel.poll = signal_poll;
  catch_signals();
  xp_cancel_enter(&cancel, &saved);
  int ok = pf_export(in, out ? out : dflt, &o, &r, &err);
  xp_cancel_leave(saved);
  xp_free(dflt);
  if (!ok && got_signal) {
    /* pf_export removed the temporary file of the trace it was writing (a
    ** signal after the last trace was complete changes nothing) */
    fprintf(stderr, "xplane2perfetto: %s (signal %d)\n", err ? err : XP_CANCELLED_TEXT, (int)got_signal);
    xp_free(err);
    return die_of_signal();
  }
  if (!ok) {
    fprintf(stderr, "xplane2perfetto: %s\n", err ? err : "out of memory");
    xp_free(err);
    return 1;
  }
  printf("{\"files_in\":%d,\"files_out\":%d,\"slices\":%lld,\"instants\":%lld,\"skipped_untimed\":%lld,"
         "\"skipped_invalid\":%lld,\"processes\":%lld,\"threads\":%lld,\"tracks\":%lld,\"sources\":%lld,"
         "\"records\":%lld}\n",
         r.files_in, r.files_out, (long long)r.counts.slices, (long long)r.counts.instants,
         (long long)r.counts.skipped_untimed, (long long)r.counts.skipped_invalid, (long long)r.counts.processes,
         (long long)r.counts.threads, (long long)r.counts.tracks, (long long)r.counts.sources, (long long)r.records);
  return 0;
}
