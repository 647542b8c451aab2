#!/usr/bin/env python3
"""A delay line for IP packets, for kernels without `tc netem`.

Usage: delay-line.py TUN DELAY_MS

Attaches to the tun device TUN (made beforehand with `ip tuntap add mode
tun`, in the network namespace this runs in), holds every packet the kernel
routes into it for DELAY_MS milliseconds, and writes it back, in order; the
kernel then routes it on. `scripts/netns-mpi.sh` routes the packets that
cross its hub namespace through here, so that each packet between two
ranks' namespaces is delayed once (one-way delay DELAY_MS, a round trip
twice that), as `tc qdisc add ... netem delay DELAY_MS` on each rank's
link would.

A userspace line adds its own wake-up latency (tens of microseconds on an
idle machine, more when the processors are busy); the script measures the
round trip it gives and prints it.
"""

import collections
import ctypes
import errno
import fcntl
import os
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
PR_SET_TIMERSLACK = 29


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    name, delay = sys.argv[1], float(sys.argv[2]) / 1e3
    fd = os.open("/dev/net/tun", os.O_RDWR)
    # The line this one replaces may still be letting go of the device.
    for attempt in range(100):
        try:
            fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
            break
        except OSError as e:
            if e.errno != errno.EBUSY or attempt == 99:
                raise
            time.sleep(0.05)
    os.set_blocking(fd, False)
    # Wake-ups within a microsecond of the deadline rather than the
    # default 50 µs of timer slack.
    ctypes.CDLL(None).prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0)
    line = collections.deque()
    while True:
        timeout = None
        if line:
            timeout = max(0.0, line[0][0] - time.monotonic())
        ready, _, _ = select.select([fd], [], [], timeout)
        if ready:
            due = time.monotonic() + delay
            while True:
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                line.append((due, packet))
        now = time.monotonic()
        while line and line[0][0] <= now:
            os.write(fd, line.popleft()[1])


if __name__ == "__main__":
    sys.exit(main())
