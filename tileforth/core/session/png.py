"""PNG files from an RGB raster, with zlib and struct only (no imaging library): one IHDR (8-bit RGB,
no interlace), one IDAT of the rows each behind filter byte 0, IEND; every chunk with its CRC-32
(PNG specification, ISO/IEC 15948, sections 5 and 11)."""
from __future__ import annotations

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode(rgb: np.ndarray) -> bytes:
    """The PNG bytes of an (height, width, 3) uint8 image."""
    img = np.ascontiguousarray(rgb, dtype=np.uint8)
    if img.ndim != 3 or img.shape[2] != 3 or not img.shape[0] or not img.shape[1]:
        raise ValueError(f"a PNG is made of a (height, width, 3) image, not {img.shape}")
    h, w, _ = img.shape
    raw = np.concatenate([np.zeros((h, 1), np.uint8), img.reshape(h, w * 3)], axis=1).tobytes()
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8 bits, colour type 2 (RGB)
    return SIGNATURE + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")
