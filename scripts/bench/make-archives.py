#!/usr/bin/env python3
"""Builds the benchmark archives deterministically (fixed seeds) with Python's zipfile at level 6.

usage: make-archives.py OUT_DIR SCALE KIND...   (prints one path per kind)
kinds:
  source  about 5,000 text files of 1-20 KB (about 50 MB), deflated: a source tree
  media   a dozen files of 20-50 MB, alternately incompressible (stored) and text (deflated), plus notes.txt
  tiny    25,000 files of about 100 bytes
  office  an Office-like document: [Content_Types].xml first, XML parts, stored images
Sizes and counts scale with SCALE. Archives are cached by name; the .part suffix keeps half-written ones out.
"""
import os
import random
import sys
import zipfile

WORDS = b"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau return const function import export".split()
DATE = (2024, 1, 1, 0, 0, 0)


def text_block(rng, size):
    """Line-structured text that deflates about 4:1, like logs or source code."""
    out = bytearray()
    while len(out) < size:
        out += b" ".join(rng.choice(WORDS) for _ in range(rng.randrange(4, 14))) + b" %d\n" % rng.randrange(1 << 20)
    return bytes(out[:size])


def tiled(block, size):
    """A long text made of one block repeated: deflate's 32 KB window cannot tell, so the ratio holds."""
    return (block * (size // len(block) + 1))[:size]


def build(out_dir, name, fill):
    path = os.path.join(out_dir, name)
    if not os.path.exists(path):
        with zipfile.ZipFile(path + ".part", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
            fill(z)
        os.rename(path + ".part", path)
    return path


def add(z, name, data, method=zipfile.ZIP_DEFLATED):
    info = zipfile.ZipInfo(name, DATE)
    info.compress_type = method
    info.external_attr = 0o100644 << 16
    z.writestr(info, data)


def source(out_dir, scale):
    def fill(z):
        rng = random.Random(1)
        block = text_block(rng, 1 << 20)
        for i in range(int(5000 * scale)):
            size = rng.randrange(1024, 20 * 1024)
            start = rng.randrange(0, len(block) - size)
            add(z, f"src/module{i // 100:03}/file{i:05}.ts", block[start:start + size])
    return build(out_dir, f"source-{scale:g}.zip", fill)


def media(out_dir, scale):
    def fill(z):
        rng = random.Random(5)
        block = text_block(rng, 4 << 20)
        add(z, "notes.txt", b"release notes\n" * 20)
        for i in range(12):
            size = int(rng.randrange(20, 51) * 1024 * 1024 * scale)
            if i % 2 == 0:
                add(z, f"media/clip{i:02}.bin", rng.randbytes(size), zipfile.ZIP_STORED)
            else:
                add(z, f"media/track{i:02}.txt", tiled(block, size))
    return build(out_dir, f"media-{scale:g}.zip", fill)


def tiny(out_dir, scale):
    def fill(z):
        rng = random.Random(7)
        for i in range(int(25000 * scale)):
            add(z, f"tiny/{i // 1000:02}/item{i:05}.txt", text_block(rng, rng.randrange(60, 140)))
    return build(out_dir, f"tiny-{scale:g}.zip", fill)


def office(out_dir, scale):
    def fill(z):
        rng = random.Random(11)
        add(z, "[Content_Types].xml", b'<?xml version="1.0"?><Types>' + b'<Default Extension="xml"/>' * 20 + b"</Types>")
        add(z, "_rels/.rels", b"<Relationships>" + b"<Relationship/>" * 10 + b"</Relationships>")
        paragraphs = b"".join(b"<w:p><w:r><w:t>" + text_block(rng, 200) + b"</w:t></w:r></w:p>" for _ in range(int(20000 * scale)))
        add(z, "word/document.xml", b"<w:document><w:body>" + paragraphs + b"</w:body></w:document>")
        add(z, "word/styles.xml", b"<w:styles>" + b"<w:style/>" * 2000 + b"</w:styles>")
        for i in range(8):
            add(z, f"word/media/image{i}.png", rng.randbytes(int(400 * 1024 * scale)), zipfile.ZIP_STORED)
    return build(out_dir, f"office-{scale:g}.zip", fill)


if __name__ == "__main__":
    out_dir, scale, kinds = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    for kind in kinds:
        print(globals()[kind](out_dir, scale))
