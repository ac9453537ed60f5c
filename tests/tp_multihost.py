"""tests/tp_multihost.py: the per-host numbers of a multi-host logdir from
Perfetto's Python API (Batch Trace Processor and TraceProcessor) with the
PerfettoSQL package, as tests/test_trace_processor.sh compares them with the
extension's. This is the way tp_plugin/README.md documents to analyse many
hosts at once with the same SQL.

  PYTHONPATH=../shared/tools/python /usr/bin/python3 tests/tp_multihost.py \
      TRACE_PROCESSOR_SHELL tp_plugin/xplane TRACES_DIR

TRACES_DIR holds the traces `xplane2perfetto -o TRACES_DIR LOGDIR` wrote
(one per host). Prints, sorted, one line per host and metric:
  <host>|steps|<n steps>|<summed step ps>|<longest step ps>
  <host>|top|<rank>|<op name>|<self ps>          (the 5 ops of most self time)
  <host>|ops|<n ops>                            (TraceProcessor, one trace at a time)
"""
import glob
import os
import sys

from perfetto.batch_trace_processor.api import BatchTraceProcessor, BatchTraceProcessorConfig
from perfetto.trace_processor import TraceProcessor, TraceProcessorConfig

STEPS = """
SELECT s.host, count(st.step) AS n, coalesce(sum(st.dur_ps), 0) AS total_ps, coalesce(max(st.dur_ps), 0) AS max_ps
FROM xplane_space s LEFT JOIN xplane_steps st GROUP BY s.host"""
TOP = """
SELECT s.host, o.rank, o.name, o.self_ps
FROM xplane_space s,
     (SELECT row_number() OVER (ORDER BY sum(self_ps) DESC, name) AS rank, name, sum(self_ps) AS self_ps
      FROM xplane_ops GROUP BY name ORDER BY rank LIMIT 5) o"""


def main():
    tp_bin, pkg, traces_dir = sys.argv[1:4]
    traces = sorted(glob.glob(os.path.join(traces_dir, "**", "*.pftrace"), recursive=True))
    if len(traces) < 2:
        sys.exit("expected the traces of two hosts or more under %s" % traces_dir)
    tp_config = TraceProcessorConfig(bin_path=tp_bin, add_sql_packages=[pkg])
    lines = []
    config = BatchTraceProcessorConfig(tp_config=tp_config)
    with BatchTraceProcessor(traces, config=config) as btp:
        btp.query("INCLUDE PERFETTO MODULE xplane.reports")
        for r in btp.query_and_flatten(STEPS).itertuples():
            lines.append("%s|steps|%d|%d|%d" % (r.host, r.n, r.total_ps, r.max_ps))
        for r in btp.query_and_flatten(TOP).itertuples():
            lines.append("%s|top|%d|%s|%d" % (r.host, r.rank, r.name, r.self_ps))
    for t in traces:
        tp = TraceProcessor(trace=t, config=tp_config)
        try:
            tp.query("INCLUDE PERFETTO MODULE xplane.source")
            tp.query("INCLUDE PERFETTO MODULE xplane.ops")
            df = tp.query("SELECT (SELECT host FROM xplane_space) AS host, count(*) AS n FROM xplane_ops"
                          ).as_pandas_dataframe()
            lines.append("%s|ops|%d" % (df.host[0], df.n[0]))
        finally:
            tp.close()
    print("\n".join(sorted(lines)))


if __name__ == "__main__":
    main()
