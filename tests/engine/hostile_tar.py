#!/usr/bin/env python3
"""Writes to stdout a tar archive an attacker made, for
tests/engine/cp.sh (danaus cp - NAME:DIR): hostile_tar.py KIND."""
import io
import sys
import tarfile


def member(tar, name, kind=tarfile.REGTYPE, data=b"", link=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = 0o644
    if kind == tarfile.CHRTYPE:
        info.devmajor, info.devminor = 1, 3
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    tar.addfile(info, io.BytesIO(data) if info.size else None)


KINDS = {
    # a leading '/' and "./": below the directory
    "absolute": [("/abs", tarfile.REGTYPE, b"A\n", ""),
                 ("./rel", tarfile.REGTYPE, b"R\n", "")],
    "climb": [("../escape", tarfile.REGTYPE, b"x", "")],
    "climb-inside": [("d/../../../escape", tarfile.REGTYPE, b"x", "")],
    "hardlink-out": [("hl", tarfile.LNKTYPE, b"", "../../etc/motd")],
    "link-out": [("out", tarfile.SYMTYPE, b"", "../../etc")],
    # an absolute link is the container's own; what lies under it in the
    # archive is not written through it
    "through-link": [("s", tarfile.SYMTYPE, b"", "/etc"),
                     ("s/motd", tarfile.REGTYPE, b"pwned\n", "")],
    "devices": [("null", tarfile.CHRTYPE, b"", ""),
                ("p", tarfile.FIFOTYPE, b"", ""),
                ("kept", tarfile.REGTYPE, b"kept\n", "")],
    "hardlink": [("hf", tarfile.REGTYPE, b"H\n", ""),
                 ("hl", tarfile.LNKTYPE, b"", "hf")],
}

with tarfile.open(fileobj=sys.stdout.buffer, mode="w|",
                  format=tarfile.GNU_FORMAT) as out:
    for name, kind, data, link in KINDS[sys.argv[1]]:
        member(out, name, kind, data, link)
