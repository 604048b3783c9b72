"""The warm-up's worker process: `python -m serving.warmup MODEL SERVER_PID`, started by serving/shared.start_warmup.

It lowers its own priority before it imports anything heavy, then computes what every visitor shares
(serving/shared.warm_items) and writes each result, pickled, on standard output as soon as it has it. It leaves with
its server (leave_with_server), however the server ends.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import signal
import sys
import threading

_PR_SET_PDEATHSIG = 1  # Linux prctl option: a signal for this process when the thread that started it ends


def leave_with_server(server_pid: int) -> None:
    """Exit within moments of the server that started this process, even one killed by SIGKILL.

    Waiting for the next write to fail was not enough: under load the worker, at the lowest priority, wrote
    nothing for 22 s and stayed. On Linux the kernel kills this process when its parent goes (no scheduling
    needed); elsewhere a thread waits for the end of standard input, a pipe only the server holds open.
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server_pid:  # it was gone before the line above took effect
        os._exit(0)

    def wait_for_the_end_of_input():
        # The raw file descriptor, not sys.stdin: a thread blocked inside the buffered reader holds its lock,
        # and the interpreter, closing sys.stdin at the end of a finished warm-up, aborted on it (exit -6,
        # "_enter_buffered_busy"). os.read holds no Python lock while it waits.
        with contextlib.suppress(OSError):
            while os.read(sys.stdin.fileno(), 4096):
                pass
        os._exit(0)

    threading.Thread(target=wait_for_the_end_of_input, name="server-watch", daemon=True).start()


def lowest_priority() -> None:
    """The lowest CPU priority, for this process's whole scheduling group.

    Linux shares the CPU fairly between session groups ("autogroups") first and applies nice only inside a
    group, so a nice-19 child of the server still took a full share from a browser or another program on the
    machine (measured: the first page drawn 1.2× slower with the warm-up than without). The server starts
    this process in a new session, which is a new group: its nice goes to 19, and SCHED_IDLE (where Linux has
    it) makes it yield to everything else.
    """
    # Only a process that leads its own session owns its group: started without one (a test, a developer's
    # shell), it would lower the priority of the whole terminal session that started it, for good.
    if os.getsid(0) == os.getpid():
        with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as group:
            group.write("19")
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    os.nice(19)


if __name__ == "__main__":
    if len(sys.argv) > 2:  # started by a server (tests may start it alone)
        leave_with_server(int(sys.argv[2]))
    lowest_priority()
    from attention.model import AttentionModel
    from serving.shared import warm_items

    for item in warm_items(AttentionModel(sys.argv[1])):
        pickle.dump(item, sys.stdout.buffer)
        sys.stdout.buffer.flush()
