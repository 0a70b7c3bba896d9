#!/usr/bin/env python3
"""lossy-nbd.py - an NBD server for one disk image that loses unflushed writes.

    lossy-nbd.py IMAGE PORTFILE [--seed S] [--log FILE]

Serves IMAGE (raw) on 127.0.0.1 at a free port, written to PORTFILE once it
listens, to one client at a time (QEMU's -drive file=nbd://...). It behaves as
a disk with a volatile write cache: a write is kept in memory (the "cache")
and reaches IMAGE only at the client's next FLUSH. When the connection ends
without a flush - QEMU killed, a power cut - each unflushed 4 KiB block is
written to IMAGE or dropped at random (seeded; a disk may have written any
subset of its cache, in any order, when the power went) and the rest is lost.
Each connection's end is logged: how many unflushed blocks were kept and lost.

Protocol: NBD fixed newstyle handshake (NBD_OPT_EXPORT_NAME, NBD_OPT_GO,
NBD_OPT_INFO, NBD_OPT_ABORT; other options are refused as unsupported), simple
replies, commands READ, WRITE, FLUSH, DISC. FUA is not offered, so QEMU sends
a FLUSH after a write that must be durable. Python's standard library only.
"""
import argparse
import os
import random
import socket
import struct
import sys
import time

BLOCK = 4096
NBDMAGIC = 0x4E42444D41474943
IHAVEOPT = 0x49484156454F5054
REPLY_MAGIC = 0x3E889045565A9
REQUEST_MAGIC = 0x25609513
SIMPLE_REPLY_MAGIC = 0x67446698
FLAG_FIXED_NEWSTYLE, FLAG_NO_ZEROES = 1, 2
OPT_EXPORT_NAME, OPT_ABORT, OPT_INFO, OPT_GO = 1, 2, 6, 7
REP_ACK, REP_INFO = 1, 3
REP_ERR_UNSUP = (1 << 31) + 1
INFO_EXPORT = 0
TFLAG_HAS_FLAGS, TFLAG_SEND_FLUSH = 1, 4
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH = 0, 1, 2, 3
EIO, EINVAL = 5, 22


class Disk:
    def __init__(self, path, rng, log):
        self.fd = os.open(path, os.O_RDWR)
        self.size = os.fstat(self.fd).st_size
        self.cache = {}  # block number -> bytearray(BLOCK): written, not yet flushed
        self.rng = rng
        self.log = log
        self.flushes = 0

    def _base(self, blk):
        data = os.pread(self.fd, BLOCK, blk * BLOCK)
        return bytearray(data.ljust(BLOCK, b"\0"))

    def read(self, off, length):
        out = bytearray(os.pread(self.fd, length, off).ljust(length, b"\0"))
        if self.cache:
            for blk in range(off // BLOCK, (off + length - 1) // BLOCK + 1):
                b = self.cache.get(blk)
                if b is None:
                    continue
                start = max(off, blk * BLOCK)
                end = min(off + length, (blk + 1) * BLOCK)
                out[start - off:end - off] = b[start - blk * BLOCK:end - blk * BLOCK]
        return out

    def write(self, off, data):
        pos = 0
        while pos < len(data):
            o = off + pos
            blk = o // BLOCK
            inner = o - blk * BLOCK
            n = min(BLOCK - inner, len(data) - pos)
            b = self.cache.get(blk)
            if b is None:
                b = self._base(blk) if n < BLOCK else bytearray(BLOCK)
                self.cache[blk] = b
            b[inner:inner + n] = data[pos:pos + n]
            pos += n

    def _apply(self, blocks):
        for blk in sorted(blocks):
            end = min(BLOCK, self.size - blk * BLOCK)
            os.pwrite(self.fd, bytes(self.cache[blk][:end]), blk * BLOCK)

    def flush(self):
        self._apply(self.cache)
        self.cache.clear()
        self.flushes += 1

    def power_off(self, why):
        blocks = list(self.cache)
        kept = [b for b in blocks if self.rng.random() < 0.5]
        self._apply(kept)
        self.cache.clear()
        self.log(f"{why}: {self.flushes} flushes; {len(blocks)} unflushed blocks at the end, "
                 f"{len(kept)} written at random, {len(blocks) - len(kept)} lost")
        self.flushes = 0


def recv_exact(conn, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    return bytes(buf)


def handshake(conn, disk):
    """Returns True when the transmission phase starts."""
    conn.sendall(struct.pack(">QQH", NBDMAGIC, IHAVEOPT, FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES))
    (cflags,) = struct.unpack(">I", recv_exact(conn, 4))
    tflags = TFLAG_HAS_FLAGS | TFLAG_SEND_FLUSH

    def reply(opt, rtype, data=b""):
        conn.sendall(struct.pack(">QIII", REPLY_MAGIC, opt, rtype, len(data)) + data)

    while True:
        magic, opt, length = struct.unpack(">QII", recv_exact(conn, 16))
        if magic != IHAVEOPT:
            return False
        data = recv_exact(conn, length) if length else b""
        if opt == OPT_EXPORT_NAME:
            conn.sendall(struct.pack(">QH", disk.size, tflags) + (b"" if cflags & FLAG_NO_ZEROES else b"\0" * 124))
            return True
        if opt in (OPT_GO, OPT_INFO):
            reply(opt, REP_INFO, struct.pack(">HQH", INFO_EXPORT, disk.size, tflags))
            reply(opt, REP_ACK)
            if opt == OPT_GO:
                return True
        elif opt == OPT_ABORT:
            reply(opt, REP_ACK)
            return False
        else:
            reply(opt, REP_ERR_UNSUP)


def serve(conn, disk):
    while True:
        magic, _flags, cmd, handle, off, length = struct.unpack(">IHHQQI", recv_exact(conn, 28))
        if magic != REQUEST_MAGIC:
            raise ConnectionError("bad request magic")
        err, payload = 0, b""
        if cmd == CMD_WRITE:
            data = recv_exact(conn, length)
            if off + length > disk.size:
                err = EINVAL
            else:
                disk.write(off, data)
        elif cmd == CMD_READ:
            if off + length > disk.size:
                err = EINVAL
            else:
                payload = disk.read(off, length)
        elif cmd == CMD_FLUSH:
            disk.flush()
        elif cmd == CMD_DISC:
            return "disconnect"
        else:
            err = EINVAL
        conn.sendall(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, err, handle) + (payload if not err else b""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("image")
    ap.add_argument("portfile")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", default=None)
    a = ap.parse_args()
    logf = open(a.log, "a", buffering=1) if a.log else sys.stderr

    def log(msg):
        print(f"lossy-nbd: {time.strftime('%H:%M:%S')} {msg}", file=logf)

    disk = Disk(a.image, random.Random(a.seed), log)
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    with open(a.portfile + ".tmp", "w") as f:
        f.write(f"{srv.getsockname()[1]}\n")
    os.rename(a.portfile + ".tmp", a.portfile)
    n = 0
    while True:
        conn, _ = srv.accept()
        n += 1
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        why = "connection %d ended" % n
        try:
            if handshake(conn, disk):
                why += " (%s)" % serve(conn, disk)
        except (ConnectionError, OSError) as e:
            why += " (%s)" % (e or "closed")
        finally:
            conn.close()
        disk.power_off(why)


if __name__ == "__main__":
    main()
