#!/usr/bin/python3
"""Crafted run, sweep and table files for tests/test-untrusted.sh and the
fuzz corpora (tests/fuzz/corpus-runfile, corpus-table): each one a valid file
written by cradle with one defect put in, by h5py where the defect is in the
data and by bytes where it is in HDF5's own structures (a variable-length
string's global heap object, an attribute message).

usage: make-untrusted.py RUN.h5 TABLE.h5 OUTDIR
       make-untrusted.py --sweep SWEEP.h5 OUTDIR   (the defects a resumed
       sweep output must be refused for, on a sweep output)
       (RUN.h5: a finished run file with at least one episode, e.g.
        `cradle run models/newton-cradle-5.yaml`; TABLE.h5: a reference
        table, e.g. data/restitution-gap.h5)

Writes OUTDIR/NAME.h5 for every NAME of RUN_DEFECTS and TABLE_DEFECTS and
prints their names. Deterministic: the same inputs give the same files.
"""
import os
import shutil
import struct
import sys

import h5py
import numpy as np


# ---- HDF5 structures by bytes (superblock 0, version 1 object headers: what
# cradle writes with HDF5's default file access) ------------------------------

def root_header(b):
    """Address of the root group's object header (superblock version 0)."""
    assert b[:8] == b"\x89HDF\r\n\x1a\n" and b[8] == 0, "superblock version 0 expected"
    return struct.unpack_from("<Q", b, 64)[0]


def header_messages(b, addr):
    """(type, offset of the message data, size) of every message of the v1
    object header at addr, continuation chunks followed."""
    assert b[addr] == 1, "version 1 object header expected"
    chunks = [(addr + 16, struct.unpack_from("<I", b, addr + 8)[0])]
    out = []
    k = 0
    while k < len(chunks):
        at, n = chunks[k]
        off = 0
        while n - off >= 8:
            t, ms = struct.unpack_from("<HH", b, at + off)
            d = at + off + 8
            if t == 0x10:
                chunks.append(struct.unpack_from("<QQ", b, d))
            out.append((t, d, ms))
            off += 8 + ms
        k += 1
    return out


def attribute(b, header, name):
    """Offset of the data (for a variable-length string: length, heap address,
    index) of attribute `name` in the object header at `header`."""
    for t, d, ms in header_messages(b, header):
        if t != 0x0C:
            continue
        ver = b[d]
        nlen, tlen, slen = struct.unpack_from("<HHH", b, d + 2)
        pad = (lambda n: (n + 7) & ~7) if ver == 1 else (lambda n: n)
        p = d + (9 if ver == 3 else 8)
        if b[p:p + nlen - 1] == name.encode():
            return p + pad(nlen) + pad(tlen) + pad(slen)
    raise KeyError(name)


def heap_object(b, ref):
    """Offset of the object header (index, refs, reserved, size) a
    variable-length reference at `ref` names in its global heap collection."""
    addr, idx = struct.unpack_from("<QI", b, ref + 4)
    assert b[addr:addr + 4] == b"GCOL"
    size = struct.unpack_from("<Q", b, addr + 8)[0]
    p = addr + 16
    while p + 16 <= addr + size:
        i, osize = struct.unpack_from("<H", b, p)[0], struct.unpack_from("<Q", b, p + 8)[0]
        if i == idx:
            return p
        p += osize if i == 0 else 16 + ((osize + 7) & ~7)
    raise KeyError(idx)


def free_space(b, ref):
    """Offset of the free-space object (index 0) of the collection `ref` names."""
    addr = struct.unpack_from("<Q", b, ref + 4)[0]
    size = struct.unpack_from("<Q", b, addr + 8)[0]
    p = addr + 16
    while p + 16 <= addr + size:
        i, osize = struct.unpack_from("<H", b, p)[0], struct.unpack_from("<Q", b, p + 8)[0]
        if i == 0:
            return p
        p += 16 + ((osize + 7) & ~7)
    raise KeyError("free space")


def edit_bytes(path, fn):
    b = bytearray(open(path, "rb").read())
    fn(b)
    open(path, "wb").write(bytes(b))


# ---- run files ------------------------------------------------------------------

def ep_row(f, **kw):
    e = f["episodes"][()]
    for k, v in kw.items():
        e[k][0] = v
    f["episodes"][...] = e


def replace(f, name, data):
    del f[name]
    f.create_dataset(name, data=data)


def rec_field(f, field, value, row=0):
    r = f["episode/0000/contacts"][()]
    r[field][row] = value
    f["episode/0000/contacts"][...] = r


def status_ref(b):
    return attribute(b, root_header(b), "status")


RUN_DEFECTS = {
    # item 1: the /episodes row says 1 body and 1 contact, the datasets hold more
    "ep-short-record": lambda f: ep_row(f, body_count=1, contact_count=1),
    # the /episodes row says more bodies than /episode/0000 holds
    "ep-long-record": lambda f: ep_row(f, body_count=f["episodes"][0]["body_count"] + 1),
    "ep-mass-longer": lambda f: replace(f, "episode/0000/mass",
                                        np.append(f["episode/0000/mass"][()], [1.0, 1.0])),
    "ep-velocity-rank": lambda f: replace(f, "episode/0000/velocity_after",
                                          f["episode/0000/velocity_after"][()].ravel()),
    "ep-group-missing": lambda f: f.__delitem__("episode/0000"),
    "ep-count-huge": lambda f: ep_row(f, contact_count=2 ** 62),
    # item 4: values no run writes
    "ep-velocity-nan": lambda f: f["episode/0000/velocity_after"].__setitem__(0, np.nan),
    "ep-velocity-huge": lambda f: f["episode/0000/velocity_before"].__setitem__(0, 1e300),
    "ep-mass-zero": lambda f: f["episode/0000/mass"].__setitem__(1, 0.0),
    "ep-mass-tiny": lambda f: f["episode/0000/mass"].__setitem__(1, 1e-300),
    "ep-normal-zero": lambda f: f["episode/0000/normal"].__setitem__(0, 0.0),
    "ep-impulse-inf": lambda f: rec_field(f, "impulse", np.inf),
    "ep-contact-index": lambda f: rec_field(f, "contact", 10 ** 6),
    "ep-body-outside": lambda f: rec_field(f, "body_a", 10 ** 6),
    "ep-bodies-unsorted": lambda f: f["episode/0000/bodies"].__setitem__(
        slice(None), f["episode/0000/bodies"][()][[1, 0] + list(range(2, f["episode/0000/bodies"].shape[0]))]),
    "ep-reference-record": lambda f: ep_row(f, reference_record=99),
    "ep-T-minus-zero": lambda f: ep_row(f, T_minus=0.0),
    "contacts-law-negative": lambda f: f["contacts"].__setitem__(
        0, tuple(-1.0 if n == "K" else v for n, v in zip(f["contacts"].dtype.names, f["contacts"][0]))),
    "model-dim": lambda f: f["model"].attrs.__setitem__("dim", np.int64(7)),
    "format-version": lambda f: f.attrs.__setitem__("format_version", np.int64(99)),
    "format-version-old": lambda f: f.attrs.__setitem__("format_version", np.int64(1)),
    "format-version-string": lambda f: f.attrs.__setitem__("format_version", "2"),
}

# item 3: HDF5's own structures, by bytes (the status attribute's string)
RUN_BYTE_DEFECTS = {
    # the heap object claims more bytes than the reference: H5HG_read copied
    # the heap's size into a buffer of the reference's
    "heap-object-larger": lambda b: struct.pack_into("<Q", b, heap_object(b, status_ref(b)) + 8, 4000),
    # an index beyond the collection's object table
    "heap-index": lambda b: struct.pack_into("<I", b, status_ref(b) + 12, 0xFFFF0),
    # a free-space object of size 0: HDF5's parse of the collection never ends
    "heap-free-zero": lambda b: struct.pack_into("<Q", b, free_space(b, status_ref(b)) + 8, 0),
    # the collection claims 4 GB
    "heap-collection-size": lambda b: struct.pack_into(
        "<Q", b, struct.unpack_from("<Q", b, status_ref(b) + 4)[0] + 8, 2 ** 32),
    # the string's length 2^31 - 1 bytes
    "heap-string-length": lambda b: struct.pack_into("<I", b, status_ref(b), 0x7FFFFFFF),
    # the attribute message's dataspace runs past the message
    "attr-sizes": lambda b: struct.pack_into("<H", b, attr_message(b, "status") + 6, 0x7FF8),
}


def attr_message(b, name):
    """Offset of the attribute message `name` of the root group (its data)."""
    for t, d, ms in header_messages(b, root_header(b)):
        if t == 0x0C:
            nlen = struct.unpack_from("<H", b, d + 2)[0]
            p = d + (9 if b[d] == 3 else 8)
            if b[p:p + nlen - 1] == name.encode():
                return d
    raise KeyError(name)


# ---- sweep outputs and tables ---------------------------------------------------

def error_without_nul(f):
    """A failed point whose error text fills its 256-byte slot: no NUL."""
    e = f["error"][()]
    e[3] = b"x" * 256
    f["error"][...] = e


def table_disagrees(f):
    t = f["table"][()]
    t[5, 0] *= 1.5
    f["table"][...] = t


def fixed_value_nan(f):
    f.create_dataset("reference/fixed_quantity", data=np.array([b"m2/m1"], "S32"))
    f.create_dataset("reference/fixed_value", data=np.array([np.nan]))


def huge_table(f):
    """A /table of 61 x 2e7 doubles (9.8 GB), chunked and never written: the
    file stays small, the reader must refuse it before allocating."""
    del f["table"]
    f.create_dataset("table", shape=(f["done"].shape[0], 20_000_000), dtype="f8",
                     chunks=(1, 1024), fillvalue=np.nan)


TABLE_DEFECTS = {
    # item 2: /done longer than the table (read whole into points + 1 bytes)
    "done-longer": lambda f: replace(f, "done", np.ones(f["done"].shape[0] + 100, np.int8)),
    "done-shorter": lambda f: replace(f, "done", np.ones(f["done"].shape[0] - 1, np.int8)),
    "done-value": lambda f: f["done"].__setitem__(0, 7),
    "error-longer": lambda f: replace(f, "error", np.array([b"e"] * (f["error"].shape[0] + 50), "S256")),
    "error-no-nul": error_without_nul,
    "columns-shorter": lambda f: replace(f, "columns", f["columns"][:-5]),
    "inputs-text-shape": lambda f: replace(f, "inputs/text", f["inputs/text"][:-1]),
    "table-rank": lambda f: replace(f, "table", f["table"][()].ravel()),
    "table-huge": huge_table,
    # item 8: /table disagrees with its own /inputs/text
    "table-disagrees": table_disagrees,
    "bound-shorter": lambda f: replace(f, "reference/bound", f["reference/bound"][:-1]),
    "bound-negative": lambda f: f["reference/bound"].__setitem__(2, -1.0),
    # the declaration of what the axes are (docs/tables.md, "Impact configurations")
    "quantity-longer": lambda f: f.create_dataset("reference/quantity",
                                                  data=np.array([b"e", b"m2/m1"], "S32")),
    "fixed-value-nan": fixed_value_nan,
    "fixed-value-missing": lambda f: f.create_dataset("reference/fixed_quantity",
                                                      data=np.array([b"m2/m1"], "S32")),
    "kind-other": lambda f: f.attrs.__setitem__("kind", "cradle frobnicator"),
    "sweep-version": lambda f: f.attrs.__setitem__("format_version", np.int64(9)),
    "points-attr": lambda f: f.attrs.__setitem__("points", np.int64(5)),
}


def kind_ref(b):
    return attribute(b, root_header(b), "kind")


TABLE_BYTE_DEFECTS = {
    "table-heap-free-zero": lambda b: struct.pack_into("<Q", b, free_space(b, kind_ref(b)) + 8, 0),
    "table-heap-object-larger": lambda b: struct.pack_into(
        "<Q", b, heap_object(b, kind_ref(b)) + 8, 3000),
    "table-heap-index": lambda b: struct.pack_into("<I", b, kind_ref(b) + 12, 0x10000),
}


def make(src, out, name, edit, by_bytes):
    path = os.path.join(out, name + ".h5")
    shutil.copyfile(src, path)
    if by_bytes:
        edit_bytes(path, edit)
    else:
        with h5py.File(path, "r+") as f:
            edit(f)
    print(name)


SWEEP_DEFECTS = ("done-longer", "done-shorter", "error-longer", "columns-shorter",
                 "inputs-text-shape", "table-rank", "table-huge", "kind-other", "sweep-version")
SWEEP_BYTE_DEFECTS = ("table-heap-free-zero", "table-heap-index", "table-heap-object-larger")


def main():
    if sys.argv[1] == "--sweep":
        sweep, out = sys.argv[2:4]
        os.makedirs(out, exist_ok=True)
        for name in SWEEP_DEFECTS:
            make(sweep, out, name, TABLE_DEFECTS[name], False)
        for name in SWEEP_BYTE_DEFECTS:
            make(sweep, out, name, TABLE_BYTE_DEFECTS[name], True)
        return
    run, table, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    for name, edit in RUN_DEFECTS.items():
        make(run, out, name, edit, False)
    for name, edit in RUN_BYTE_DEFECTS.items():
        make(run, out, name, edit, True)
    for name, edit in TABLE_DEFECTS.items():
        make(table, out, name, edit, False)
    for name, edit in TABLE_BYTE_DEFECTS.items():
        make(table, out, name, edit, True)


if __name__ == "__main__":
    main()
