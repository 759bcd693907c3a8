#!/usr/bin/env python3
"""Builds the benchmark archives deterministically (fixed seed) with Python's zipfile at level 6.

usage: make-archives.py OUT_DIR SCALE KIND...
kinds: media (a dozen 20-50 MB files, mixed compressible and incompressible, plus notes.txt)
"""
import os
import random
import sys
import zipfile

WORDS = b"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau".split()


def compressible(rng, size):
    """Log-like text: compresses about 4:1, like real text data."""
    out = bytearray()
    while len(out) < size:
        out += b" ".join(rng.choice(WORDS) for _ in range(12)) + b" %d\n" % rng.randrange(1 << 30)
    return bytes(out[:size])


def media(out_dir, scale):
    rng = random.Random(5)
    path = os.path.join(out_dir, f"media-{scale:g}.zip")
    if os.path.exists(path):
        return path
    with zipfile.ZipFile(path + ".part", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        z.writestr("notes.txt", b"release notes\n" * 20)
        for i in range(12):
            size = int(rng.randrange(20, 51) * 1024 * 1024 * scale)
            data = rng.randbytes(size) if i % 2 == 0 else compressible(rng, size)
            method = zipfile.ZIP_STORED if i % 2 == 0 else zipfile.ZIP_DEFLATED
            z.writestr(zipfile.ZipInfo(f"media/clip{i:02}.bin", (2024, 1, 1, 0, 0, 0)), data, method)
    os.rename(path + ".part", path)
    return path


if __name__ == "__main__":
    out_dir, scale, kinds = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    for kind in kinds:
        print(globals()[kind](out_dir, scale))
