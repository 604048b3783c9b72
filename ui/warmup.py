"""The warm-up's worker process: `python -m ui.warmup MODEL`, started by ui/shared.start_warmup.

It lowers its own priority before it imports anything heavy, then computes what every visitor shares
(ui/shared.warm_items) and writes each result, pickled, on standard output as soon as it has it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys


def lowest_priority() -> None:
    """The lowest CPU priority, for this process's whole scheduling group.

    Linux shares the CPU fairly between session groups ("autogroups") first and applies nice only inside a
    group, so a nice-19 child of the server still took a full share from a browser or another program on the
    machine (measured: the first page drawn 1.24× the floor with the warm-up, 1.03× without). The server starts
    this process in a new session, which is a new group: its nice goes to 19, and SCHED_IDLE (where Linux has
    it) makes it yield to everything else.
    """
    with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as group:
        group.write("19")
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    os.nice(19)


if __name__ == "__main__":
    lowest_priority()
    from attention.model import AttentionModel
    from ui.shared import warm_items

    for item in warm_items(AttentionModel(sys.argv[1])):
        pickle.dump(item, sys.stdout.buffer)
        sys.stdout.buffer.flush()
