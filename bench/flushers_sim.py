#!/usr/bin/env python3
"""flushers_sim.py - what N flushers give a mail server on k cpus: a
discrete-event model of danausd's write-back flush (issue 41, item 2),
driven by costs measured on the 2-cpu VM (docs/cache.md, "Flushing by
many threads"), for the machine the seed ran on (64-72 cores).

The model, and its assumptions:
- T threads of one process (one client) deliver messages as
  bench/varmail does: open, a first pwrite through the service, the
  message's other pages kept back (one unit: one file's pages, written
  as one backend write of cost W), fsync (a device wait of F), close.
- Every call of the dirty process sends a FLUSH first (libfs/call.c):
  CALLS flushes per message. A flush takes the client's flush lock, pays
  A to take its pages, and writes the units pending at that moment; a
  flush finding none pays only A.
- N = 1: the flushing thread writes every unit itself, the client's
  other flushers waiting on the lock. N > 1: a thread that comes to
  flush while a flush is written first takes its units (up to N writers
  at once), then waits its turn, as fsservice/core/writeback.c does.
- Every cost but F needs a cpu; k cpus serve them in FIFO order. U is a
  call's cpu outside the flush (client and service together).
- F is a fixed latency with unlimited concurrency (the device and the
  journal absorb concurrent fsyncs, as ext4's group commit does); no
  other contention (the service's thread count, the backend's locks) is
  modelled.

Prints messages per second for each N, and the ratio to N = 1.

    flushers_sim.py [--cpus K] [--threads T] [--fsync-us F] [--unit-us W]
                    [--take-us A] [--call-us U] [--calls C] [--flushers LIST]
"""
import argparse
import heapq
from collections import deque


class Sim:
    """Generators yield requests: ("cpu", us), ("sleep", us),
    ("lock", None), ("unlock", None), ("wait", flush): woken when one of
    the flush's units is written."""

    def __init__(self, cpus):
        self.now = 0.0
        self.events = []
        self.order = 0
        self.free_cpus = cpus
        self.cpu_queue = deque()
        self.locked = False
        self.lock_queue = deque()

    def at(self, t, proc, release_cpu=False):
        heapq.heappush(self.events, (t, self.order, proc, release_cpu))
        self.order += 1

    def run(self, until):
        while self.events:
            t, _, proc, release_cpu = heapq.heappop(self.events)
            if t > until:
                return
            self.now = t
            if release_cpu:
                self.cpu_done()
            self.step(proc)

    def cpu_done(self):
        if self.cpu_queue:
            proc, us = self.cpu_queue.popleft()
            self.at(self.now + us, proc, True)
        else:
            self.free_cpus += 1

    def step(self, proc):
        while True:
            try:
                kind, arg = next(proc)
            except StopIteration:
                return
            if kind == "cpu":
                if self.free_cpus:
                    self.free_cpus -= 1
                    self.at(self.now + arg, proc, True)
                else:
                    self.cpu_queue.append((proc, arg))
                return
            if kind == "sleep":
                self.at(self.now + arg, proc)
                return
            if kind == "lock":
                if self.locked:
                    self.lock_queue.append(proc)
                    return
                self.locked = True
            elif kind == "unlock":
                if self.lock_queue:
                    self.at(self.now, self.lock_queue.popleft())
                else:
                    self.locked = False
            elif kind == "wait":
                arg.waiters.append(proc)
                return


class Flush:
    def __init__(self, units):
        self.units = units
        self.next = self.written = self.writers = 0
        self.waiters = []


class Client:
    def __init__(self, sim, p):
        self.sim, self.p = sim, p
        self.pending = 0      # units kept back, not yet taken by a flush
        self.current = None   # the flush being written
        self.messages = 0

    def write_units(self, f):
        """Takes and writes f's units while one is left and fewer than N
        write (writeback.c's write_units)."""
        while f.next < f.units and f.writers < self.p.flushers:
            f.next += 1
            f.writers += 1
            yield ("cpu", self.p.unit_us)
            f.writers -= 1
            f.written += 1
            for w in f.waiters:
                self.sim.at(self.sim.now, w)
            f.waiters = []

    def flush(self):
        if self.current:
            yield from self.write_units(self.current)
        yield ("lock", None)
        yield ("cpu", self.p.take_us)
        f = Flush(self.pending)
        self.pending = 0
        self.current = f
        yield from self.write_units(f)
        while f.written < f.units:
            yield ("wait", f)
            yield from self.write_units(f)
        self.current = None
        yield ("unlock", None)

    def call(self, us):
        yield from self.flush()
        yield ("cpu", us)

    def deliver(self):
        p = self.p
        while True:
            yield from self.call(p.call_us)   # open
            yield from self.call(p.call_us)   # the first pwrite
            self.pending += 1                 # the kept pages: one unit
            for _ in range(p.calls - 3):
                yield from self.call(p.call_us)
            yield from self.call(p.call_us)   # fsync
            yield ("sleep", p.fsync_us)
            yield from self.call(p.call_us)   # close
            self.messages += 1


def messages_per_second(p, seconds=2.0):
    sim = Sim(p.cpus)
    c = Client(sim, p)
    for _ in range(p.threads):
        sim.at(0.0, c.deliver())
    sim.run(seconds * 1e6)
    return c.messages / seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--fsync-us", type=float, default=700)
    ap.add_argument("--unit-us", type=float, default=26)
    ap.add_argument("--take-us", type=float, default=4)
    ap.add_argument("--call-us", type=float, default=80)
    ap.add_argument("--calls", type=int, default=4,
                    help="calls per message (open, pwrite, fsync, close: 4)")
    ap.add_argument("--flushers", default="1,2,4,8,16,64")
    ap.add_argument("--seconds", type=float, default=2.0,
                    help="simulated time per point")
    a = ap.parse_args()
    print(f"cpus {a.cpus} threads {a.threads} fsync_us {a.fsync_us:g} "
          f"unit_us {a.unit_us:g} take_us {a.take_us:g} "
          f"call_us {a.call_us:g} calls {a.calls}")
    base = None
    for n in [int(x) for x in a.flushers.split(",")]:
        p = argparse.Namespace(**vars(a))
        p.flushers = n
        m = messages_per_second(p, a.seconds)
        base = base or m
        print(f"  flushers {n:3d}: {m:10.0f} messages/s  {m / base:5.2f}x")


if __name__ == "__main__":
    main()
