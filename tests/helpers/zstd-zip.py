"""A zstd zip writer and reader that is not zipfs: Python's own zipfile taught method 93 with python-zstandard
(libzstd), as Python 3.14's zipfile does natively and the zipfile-zstd package does for older ones. Debian's
python3 (3.11) has no zstd in zipfile; Debian's python3-zstandard gives libzstd (.ci/run installs it).

  zstd-zip.py write OUT NAME=PATH...   entries written as zstd (method 93) by zipfile, level 3
  zstd-zip.py read ZIP NAME            the entry's bytes to stdout (zipfile checks the CRC)
  zstd-zip.py methods ZIP              "NAME METHOD" per entry
  zstd-zip.py test ZIP                 every entry read and CRC-checked (zipfile.testzip), "ok" or the bad one
"""
import sys
import zipfile

import zstandard

ZSTD = 93
zipfile.compressor_names[ZSTD] = "zstd"
_check, _compressor, _decompressor = zipfile._check_compression, zipfile._get_compressor, zipfile._get_decompressor


def check(method):
    if method != ZSTD:
        _check(method)


def compressor(method, level=None):
    return zstandard.ZstdCompressor(level=3).compressobj() if method == ZSTD else _compressor(method, level)


def decompressor(method):
    return zstandard.ZstdDecompressor().decompressobj() if method == ZSTD else _decompressor(method)


zipfile._check_compression, zipfile._get_compressor, zipfile._get_decompressor = check, compressor, decompressor

command, archive, *rest = sys.argv[1:]
if command == "write":
    with zipfile.ZipFile(archive, "w") as zf:
        for spec in rest:
            name, path = spec.split("=", 1)
            info = zipfile.ZipInfo(name, (2026, 1, 2, 3, 4, 6))
            info.compress_type = ZSTD
            info.create_version = info.extract_version = 63  # as Python 3.14 writes zstd
            info.external_attr = 0o100644 << 16
            with open(path, "rb") as src, zf.open(info, "w") as dst:
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
elif command == "read":
    with zipfile.ZipFile(archive) as zf:
        sys.stdout.buffer.write(zf.read(rest[0]))
elif command == "methods":
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            print(info.filename, info.compress_type)
elif command == "test":
    with zipfile.ZipFile(archive) as zf:
        print(zf.testzip() or "ok")
