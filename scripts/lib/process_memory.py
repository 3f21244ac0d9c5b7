"""Resident memory of a process, for the bench scripts' clients."""
import time


def rss(pid):
    """VmRSS of `pid` in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise SystemExit(f"no VmRSS for process {pid}")


def settled_rss(pid):
    """RSS once it stops moving (the allocations of the last connections done)."""
    last = rss(pid)
    for _ in range(40):
        time.sleep(0.25)
        now = rss(pid)
        if abs(now - last) < 64 * 1024:
            return now
        last = now
    return last
