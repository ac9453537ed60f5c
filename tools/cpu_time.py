#!/usr/bin/python3
"""tools/cpu_time.py: run a command and write its CPU time, finer than /usr/bin/time.

    tools/cpu_time.py -o OUT COMMAND [ARG ...]

Writes one line to OUT: user seconds, system seconds (six decimals), peak
resident KB of COMMAND and everything it waited for, and wall seconds
(monotonic clock, fork to reaped; six decimals) (the fields of
`/usr/bin/time -f '%U %S %M'`, which prints the seconds in 10 ms steps: too
coarse for a summary that takes 30 ms). The figures are the ones wait4(2)
returns for the child; Linux scales the sampled user/system split to the
scheduler's exact run time, so their sum is exact to the microsecond. The
command's stdin, stdout and stderr are this one's; the exit status is the
command's (128 + N when a signal N ended it). tools/bench.sh reads it.
"""
import os
import sys
import time


def main(argv):
    if len(argv) < 4 or argv[1] != "-o":
        sys.stderr.write("usage: tools/cpu_time.py -o OUT COMMAND [ARG ...]\n")
        return 2
    out, cmd = argv[2], argv[3:]
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        except OSError as e:
            sys.stderr.write("cpu_time.py: %s: %s\n" % (cmd[0], e.strerror))
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    with open(out, "w") as f:
        f.write("%.6f %.6f %d %.6f\n" % (ru.ru_utime, ru.ru_stime, ru.ru_maxrss, wall))
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
