#!/usr/bin/env python3
"""Writes a copy of an ICU common data package (.dat) without the items drop.txt names.

    vendor/icu-data/filter.py RULES IN.dat OUT.dat

The package is ICU's "CmnD" format: a data header, then a table of contents (item count, then one
name offset and one data offset per item, both from the table's start, names sorted so ICU can
search them), the names, and the items, each starting on a 16-byte boundary. Items are copied as
they are; only the table changes.
"""

import fnmatch
import struct
import sys


def read_rules(path):
    """(pattern, keep) pairs in file order; the last pattern an item matches decides."""
    rules = []
    with open(path, encoding="utf-8") as text:
        for number, line in enumerate(text, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            keep = line.startswith("!")
            pattern = line[1:].strip() if keep else line
            if not pattern:
                sys.exit(f"{path}:{number}: '!' needs a pattern after it (an item to keep)")
            rules.append((pattern, keep))
    return rules


def dropped(name, rules):
    decision = False
    for pattern, keep in rules:
        if fnmatch.fnmatchcase(name, pattern):
            decision = not keep
    return decision


def read_package(data, path):
    if len(data) < 32 or data[2:4] != b"\xda\x27":
        sys.exit(f"{path}: not ICU data (no 0xda27 magic at its start)")
    header_size = struct.unpack_from("<H", data, 0)[0]
    if data[8] != 0 or data[12:16] != b"CmnD":
        sys.exit(f"{path}: not a little-endian ICU common data package (format {data[12:16]!r})")
    count = struct.unpack_from("<I", data, header_size)[0]
    table = header_size
    items = []
    for index in range(count):
        name_offset, data_offset = struct.unpack_from("<II", data, table + 4 + 8 * index)
        end_of_name = data.index(b"\0", table + name_offset)
        items.append([data[table + name_offset : end_of_name].decode("ascii"), table + data_offset])
    for index, item in enumerate(items):
        end = items[index + 1][1] if index + 1 < count else len(data)
        item.append(data[item[1] : end])
    return data[:header_size], [(name, body) for name, _, body in items]


def write_package(header, items):
    names = b"".join(name.encode("ascii") + b"\0" for name, _ in items)
    table_size = 4 + 8 * len(items)
    first_item = table_size + len(names)
    first_item += -(len(header) + first_item) % 16
    table = bytearray(struct.pack("<I", len(items)))
    name_offset, data_offset = table_size, first_item
    bodies = bytearray()
    for name, body in items:
        table += struct.pack("<II", name_offset, data_offset)
        name_offset += len(name) + 1
        padded = body + b"\0" * (-len(body) % 16)
        bodies += padded
        data_offset += len(padded)
    gap = b"\0" * (first_item - table_size - len(names))
    return bytes(header) + bytes(table) + names + gap + bytes(bodies)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    rules_path, in_path, out_path = sys.argv[1:]
    rules = read_rules(rules_path)
    with open(in_path, "rb") as source:
        data = source.read()
    header, items = read_package(data, in_path)
    prefix = items[0][0].split("/", 1)[0] + "/" if items else ""
    kept = [(name, body) for name, body in items if not dropped(name[len(prefix) :], rules)]
    for pattern, keep in rules:
        if not any(fnmatch.fnmatchcase(name[len(prefix) :], pattern) for name, _ in items):
            sys.exit(f"{rules_path}: '{pattern}' matches no item of {in_path}; ICU's data changed, so read the rule again")
    package = write_package(header, kept)
    with open(out_path, "wb") as target:
        target.write(package)
    print(
        f"icu-data: kept {len(kept)} of {len(items)} items, "
        f"{len(package) / 1e6:.1f} MB of {len(data) / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
