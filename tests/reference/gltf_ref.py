#!/usr/bin/env python3
"""Independent reference implementation of glTF 2.0 animation sampling.

Pure Python 3 standard library.  Written from the glTF 2.0 specification
(section 3.11 "Animations" and Appendix C "Animation Sampler Interpolation
Modes"); it shares no code with animtune and is used to cross-check
`animtune sample`.

Command line (prints exactly the JSON that `animtune sample --format json` prints):

    python3 gltf_ref.py MODEL --clip NAME_OR_INDEX --times T1,T2,... \
        [--interpolation authored|step|linear]

All arithmetic is done in float64 on the exact values stored in the file.
"""

from __future__ import annotations

import base64
import bisect
import json
import math
import os
import struct
import sys
import urllib.parse

# --------------------------------------------------------------------------
# File loading
# --------------------------------------------------------------------------

GLB_MAGIC = 0x46546C67  # "glTF"
CHUNK_JSON = 0x4E4F534A  # "JSON"
CHUNK_BIN = 0x004E4942  # "BIN\0"

COMPONENT_FORMATS = {
    5120: ("b", 1),  # BYTE
    5121: ("B", 1),  # UNSIGNED_BYTE
    5122: ("h", 2),  # SHORT
    5123: ("H", 2),  # UNSIGNED_SHORT
    5125: ("I", 4),  # UNSIGNED_INT
    5126: ("f", 4),  # FLOAT
}

TYPE_COMPONENTS = {
    "SCALAR": 1,
    "VEC2": 2,
    "VEC3": 3,
    "VEC4": 4,
    "MAT2": 4,
    "MAT3": 9,
    "MAT4": 16,
}

# matrix types: (columns, rows)
MATRIX_SHAPE = {"MAT2": (2, 2), "MAT3": (3, 3), "MAT4": (4, 4)}


class GltfError(Exception):
    pass


def _decode_data_uri(uri: str) -> bytes:
    header, sep, payload = uri.partition(",")
    if not sep:
        raise GltfError("malformed data URI")
    if header.endswith(";base64"):
        return base64.b64decode(payload)
    return urllib.parse.unquote_to_bytes(payload)


def _normalize_int(value: int, component_type: int) -> float:
    """glTF 2.0 spec, 3.11 "Animations" / 3.6.2: normalized integer decoding."""
    if component_type == 5120:
        return max(value / 127.0, -1.0)
    if component_type == 5121:
        return value / 255.0
    if component_type == 5122:
        return max(value / 32767.0, -1.0)
    if component_type == 5123:
        return value / 65535.0
    if component_type == 5125:
        # not allowed by the spec for normalized accessors; decode as unsigned
        return value / 4294967295.0
    raise GltfError(f"component type {component_type} cannot be normalized")


class Gltf:
    """A loaded glTF asset: JSON document plus the raw bytes of every buffer."""

    def __init__(self, path: str | None, doc: dict | None = None, buffers: list | None = None):
        self._accessor_cache: dict[int, list[tuple[float, ...]]] = {}
        if path is None:  # in-memory asset (self-tests)
            self.path, self.base_dir, self.json, self.buffers = None, ".", doc, list(buffers or [])
            return
        self.path = path
        self.base_dir = os.path.dirname(os.path.abspath(path))
        with open(path, "rb") as f:
            data = f.read()
        glb_bin = None
        if len(data) >= 12 and struct.unpack_from("<I", data, 0)[0] == GLB_MAGIC:
            self.json, glb_bin = self._parse_glb(data)
        else:
            self.json = json.loads(data.decode("utf-8"))
        self.buffers = []
        for i, buf in enumerate(self.json.get("buffers", [])):
            uri = buf.get("uri")
            if uri is None:
                if glb_bin is None or i != 0:
                    raise GltfError(f"buffer {i} has no uri and there is no GLB BIN chunk")
                raw = glb_bin
            elif uri.startswith("data:"):
                raw = _decode_data_uri(uri)
            else:
                rel = urllib.parse.unquote(uri)
                with open(os.path.join(self.base_dir, rel), "rb") as f:
                    raw = f.read()
            self.buffers.append(raw)

    @staticmethod
    def _parse_glb(data: bytes):
        magic, version, length = struct.unpack_from("<III", data, 0)
        if version != 2:
            raise GltfError(f"unsupported GLB version {version}")
        if length > len(data):
            raise GltfError("GLB length field exceeds file size")
        offset = 12
        doc = None
        bin_chunk = None
        while offset + 8 <= length:
            chunk_len, chunk_type = struct.unpack_from("<II", data, offset)
            body = data[offset + 8 : offset + 8 + chunk_len]
            if chunk_type == CHUNK_JSON and doc is None:
                doc = json.loads(body.decode("utf-8"))
            elif chunk_type == CHUNK_BIN and bin_chunk is None:
                bin_chunk = body
            offset += 8 + chunk_len
        if doc is None:
            raise GltfError("GLB has no JSON chunk")
        return doc, bin_chunk

    # ---------------------------------------------------------------- accessors

    def accessor(self, index: int) -> list[tuple[float, ...]]:
        """Return the accessor's elements as tuples of floats (normalized ints decoded)."""
        cached = self._accessor_cache.get(index)
        if cached is not None:
            return cached
        acc = self.json["accessors"][index]
        ctype = acc["componentType"]
        if ctype not in COMPONENT_FORMATS:
            raise GltfError(f"accessor {index}: bad componentType {ctype}")
        atype = acc["type"]
        ncomp = TYPE_COMPONENTS[atype]
        count = acc["count"]
        normalized = bool(acc.get("normalized", False))

        def convert(raw_values):
            if normalized and ctype != 5126:
                return tuple(_normalize_int(v, ctype) for v in raw_values)
            return tuple(float(v) for v in raw_values)

        if "bufferView" in acc:
            view = self.json["bufferViews"][acc["bufferView"]]
            buf = self.buffers[view["buffer"]]
            base = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
            elem_size, offsets = self._element_layout(atype, ctype)
            stride = view.get("byteStride") or elem_size
            fmt = "<" + COMPONENT_FORMATS[ctype][0]
            elements = []
            for i in range(count):
                start = base + i * stride
                raw = [struct.unpack_from(fmt, buf, start + o)[0] for o in offsets]
                elements.append(convert(raw))
        else:
            elements = [tuple(0.0 for _ in range(ncomp))] * count

        sparse = acc.get("sparse")
        if sparse:
            elements = list(elements)
            scount = sparse["count"]
            ind = sparse["indices"]
            ind_view = self.json["bufferViews"][ind["bufferView"]]
            ind_buf = self.buffers[ind_view["buffer"]]
            ind_base = ind_view.get("byteOffset", 0) + ind.get("byteOffset", 0)
            ifmt, isize = COMPONENT_FORMATS[ind["componentType"]]
            indices = [
                struct.unpack_from("<" + ifmt, ind_buf, ind_base + k * isize)[0] for k in range(scount)
            ]
            val = sparse["values"]
            val_view = self.json["bufferViews"][val["bufferView"]]
            val_buf = self.buffers[val_view["buffer"]]
            val_base = val_view.get("byteOffset", 0) + val.get("byteOffset", 0)
            elem_size, offsets = self._element_layout(atype, ctype)
            fmt = "<" + COMPONENT_FORMATS[ctype][0]
            for k, target in enumerate(indices):
                start = val_base + k * elem_size
                raw = [struct.unpack_from(fmt, val_buf, start + o)[0] for o in offsets]
                elements[target] = convert(raw)

        self._accessor_cache[index] = elements
        return elements

    @staticmethod
    def _element_layout(atype: str, ctype: int):
        """Byte size of one element and the byte offset of each component.

        Matrix columns are padded to 4-byte boundaries (spec 3.6.2.4 data alignment).
        """
        csize = COMPONENT_FORMATS[ctype][1]
        if atype in MATRIX_SHAPE:
            cols, rows = MATRIX_SHAPE[atype]
            col_bytes = rows * csize
            col_stride = (col_bytes + 3) // 4 * 4
            offsets = [c * col_stride + r * csize for c in range(cols) for r in range(rows)]
            return cols * col_stride, offsets
        n = TYPE_COMPONENTS[atype]
        return n * csize, [k * csize for k in range(n)]

    def accessor_scalars(self, index: int) -> list[float]:
        return [e[0] for e in self.accessor(index)]

    # ---------------------------------------------------------------- clips

    def animations(self) -> list[dict]:
        return self.json.get("animations", [])

    def clip_name(self, index: int) -> str:
        name = self.animations()[index].get("name")
        return name if name is not None else f"animation_{index}"

    def find_clip(self, key: str) -> int:
        anims = self.animations()
        for i in range(len(anims)):
            if anims[i].get("name") == key:
                return i
        for i in range(len(anims)):
            if anims[i].get("name") is None and key == f"animation_{i}":
                return i
        try:
            idx = int(key)
        except ValueError:
            raise GltfError(f"no clip named {key!r}") from None
        if 0 <= idx < len(anims):
            return idx
        raise GltfError(f"clip index {idx} out of range (the file has {len(anims)} clips)")


# --------------------------------------------------------------------------
# Node rest transforms
# --------------------------------------------------------------------------


def quat_from_rotation_matrix(m):
    """m[row][col] orthonormal rotation matrix -> (x, y, z, w) unit quaternion."""
    trace = m[0][0] + m[1][1] + m[2][2]
    if trace > 0.0:
        s = math.sqrt(trace + 1.0) * 2.0
        w = 0.25 * s
        x = (m[2][1] - m[1][2]) / s
        y = (m[0][2] - m[2][0]) / s
        z = (m[1][0] - m[0][1]) / s
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = math.sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2.0
        w = (m[2][1] - m[1][2]) / s
        x = 0.25 * s
        y = (m[0][1] + m[1][0]) / s
        z = (m[0][2] + m[2][0]) / s
    elif m[1][1] > m[2][2]:
        s = math.sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2.0
        w = (m[0][2] - m[2][0]) / s
        x = (m[0][1] + m[1][0]) / s
        y = 0.25 * s
        z = (m[1][2] + m[2][1]) / s
    else:
        s = math.sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2.0
        w = (m[1][0] - m[0][1]) / s
        x = (m[0][2] + m[2][0]) / s
        y = (m[1][2] + m[2][1]) / s
        z = 0.25 * s
    n = math.sqrt(x * x + y * y + z * z + w * w)
    return [x / n, y / n, z / n, w / n]


def decompose_matrix(mat):
    """Column-major 4x4 (16 floats) -> (T, R, S); assumes no shear.

    A negative determinant is folded into the X scale.
    """
    cols = [mat[0:3], mat[4:7], mat[8:11]]
    t = [float(v) for v in mat[12:15]]
    scale = [math.sqrt(sum(c * c for c in col)) for col in cols]
    det = (
        cols[0][0] * (cols[1][1] * cols[2][2] - cols[2][1] * cols[1][2])
        - cols[1][0] * (cols[0][1] * cols[2][2] - cols[2][1] * cols[0][2])
        + cols[2][0] * (cols[0][1] * cols[1][2] - cols[1][1] * cols[0][2])
    )
    if det < 0:
        scale[0] = -scale[0]
    if any(s == 0.0 for s in scale):
        return t, [0.0, 0.0, 0.0, 1.0], scale
    # rotation matrix m[row][col]; column j = cols[j] / scale[j]
    m = [[cols[c][r] / scale[c] for c in range(3)] for r in range(3)]
    return t, quat_from_rotation_matrix(m), scale


def node_rest_trs(node: dict):
    if "matrix" in node:
        return decompose_matrix(node["matrix"])
    t = [float(v) for v in node.get("translation", [0.0, 0.0, 0.0])]
    r = [float(v) for v in node.get("rotation", [0.0, 0.0, 0.0, 1.0])]
    s = [float(v) for v in node.get("scale", [1.0, 1.0, 1.0])]
    return t, r, s


# --------------------------------------------------------------------------
# Interpolation (Appendix C)
# --------------------------------------------------------------------------


def lerp(a, b, s):
    return [a[i] + (b[i] - a[i]) * s for i in range(len(a))]


def slerp(q0, q1, s):
    """Spherical linear interpolation along the shortest path.

    If dot(q0, q1) < 0 the NEXT key q1 is negated.  Exact acos/sin formula; for a
    tiny angle a normalized lerp is used instead.
    """
    d = sum(q0[i] * q1[i] for i in range(4))
    if d < 0.0:
        q1 = [-v for v in q1]
        d = -d
    if d > 1.0:
        d = 1.0
    angle = math.acos(d)
    if angle < 1e-7:
        r = lerp(q0, q1, s)
        n = math.sqrt(sum(v * v for v in r))
        return [v / n for v in r] if n > 0 else r
    sin_a = math.sin(angle)
    w0 = math.sin((1.0 - s) * angle) / sin_a
    w1 = math.sin(s * angle) / sin_a
    return [w0 * q0[i] + w1 * q1[i] for i in range(4)]


def normalize4(q):
    n = math.sqrt(sum(v * v for v in q))
    if n == 0.0:
        return list(q)
    return [v / n for v in q]


class Sampler:
    """One animation sampler with its keys decoded.

    `values[k]` is the key value (for CUBICSPLINE data the middle of the triplet);
    `in_tan[k]` / `out_tan[k]` exist for CUBICSPLINE data only.
    """

    # On by default, as animtune does: rotation key values (not cubic tangents) are rescaled to
    # unit length on load. The spec requires unit rotation keys; quantized keys (normalized
    # BYTE/SHORT, e.g. 90/127) only approximate that, and Asset-Generator's SamplerType sets are
    # meant to play the same animation in float, byte and short. `--raw-rotation-keys` turns it off.
    normalize_rotation_keys = True

    def __init__(self, gltf: Gltf, sampler: dict, path: str):
        self.interpolation = sampler.get("interpolation", "LINEAR")
        self.path = path
        self.times = gltf.accessor_scalars(sampler["input"])
        out = gltf.accessor(sampler["output"])
        n = len(self.times)
        if n == 0:
            raise GltfError("sampler input accessor has no keys")
        cubic = self.interpolation == "CUBICSPLINE"
        per_key = 3 if cubic else 1
        if path == "weights":
            flat = [e[0] for e in out]
            if len(flat) % (n * per_key) != 0:
                raise GltfError("weights output count is not a multiple of the key count")
            self.width = len(flat) // (n * per_key)
            elems = [tuple(flat[i * self.width : (i + 1) * self.width]) for i in range(n * per_key)]
        else:
            self.width = {"translation": 3, "rotation": 4, "scale": 3}[path]
            elems = [tuple(e[: self.width]) for e in out]
            if len(elems) < n * per_key:
                raise GltfError("sampler output has too few elements")
        if cubic:
            self.in_tan = [list(elems[3 * k]) for k in range(n)]
            self.values = [list(elems[3 * k + 1]) for k in range(n)]
            self.out_tan = [list(elems[3 * k + 2]) for k in range(n)]
        else:
            self.values = [list(elems[k]) for k in range(n)]
            self.in_tan = self.out_tan = None
        if path == "rotation" and Sampler.normalize_rotation_keys:
            self.values = [normalize4(v) for v in self.values]

    def end_time(self) -> float:
        return max(self.times)

    def sample(self, t: float, mode: str = "authored"):
        interp = self.interpolation
        if mode == "step":
            interp = "STEP"
        elif mode == "linear":
            interp = "LINEAR"
        elif mode != "authored":
            raise GltfError(f"unknown interpolation override {mode!r}")
        times = self.times
        n = len(times)
        if n == 1 or t <= times[0]:
            return list(self.values[0])
        if t >= times[-1]:
            return list(self.values[-1])
        k = bisect.bisect_right(times, t) - 1  # times[k] <= t < times[k+1]
        if interp == "STEP":
            return list(self.values[k])
        t0, t1 = times[k], times[k + 1]
        dt = t1 - t0
        s = (t - t0) / dt
        v0, v1 = self.values[k], self.values[k + 1]
        if interp == "LINEAR":
            if self.path == "rotation":
                return slerp(v0, v1, s)
            return lerp(v0, v1, s)
        if interp == "CUBICSPLINE":
            b0 = self.out_tan[k]
            a1 = self.in_tan[k + 1]
            s2 = s * s
            s3 = s2 * s
            h00 = 2 * s3 - 3 * s2 + 1
            h10 = (s3 - 2 * s2 + s) * dt
            h01 = -2 * s3 + 3 * s2
            h11 = (s3 - s2) * dt
            r = [h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i] for i in range(len(v0))]
            if self.path == "rotation":
                r = normalize4(r)
            return r
        raise GltfError(f"unknown interpolation {interp!r}")


# --------------------------------------------------------------------------
# Clip evaluation
# --------------------------------------------------------------------------


class Clip:
    def __init__(self, gltf: Gltf, index: int):
        self.gltf = gltf
        self.index = index
        self.name = gltf.clip_name(index)
        anim = gltf.animations()[index]
        samplers_json = anim["samplers"]
        # clip end: the largest input time of all the clip's samplers
        self.end = 0.0
        for s in samplers_json:
            times = gltf.accessor_scalars(s["input"])
            if times:
                self.end = max(self.end, max(times))
        self.channels = []  # (node, path, Sampler)
        for ch in anim["channels"]:
            target = ch["target"]
            node = target.get("node")
            if node is None:
                continue
            path = target["path"]
            if path not in ("translation", "rotation", "scale", "weights"):
                continue
            self.channels.append((node, path, Sampler(gltf, samplers_json[ch["sampler"]], path)))
        self.nodes = sorted({c[0] for c in self.channels})

    def key_times(self) -> list[float]:
        """Sorted union of every key time of every sampler of the clip."""
        anim = self.gltf.animations()[self.index]
        out = set()
        for s in anim["samplers"]:
            out.update(self.gltf.accessor_scalars(s["input"]))
        return sorted(out)

    def sample(self, t: float, mode: str = "authored") -> list[dict]:
        ct = min(max(t, 0.0), self.end)
        nodes_json = self.gltf.json.get("nodes", [])
        poses = {}
        for n in self.nodes:
            tr, r, s = node_rest_trs(nodes_json[n])
            poses[n] = {"node": n, "translation": tr, "rotation": r, "scale": s}
        for node, path, sampler in self.channels:
            poses[node][path] = sampler.sample(ct, mode)
        return [poses[n] for n in self.nodes]


def sample_clip(gltf: Gltf, clip_index: int, times: list[float], mode: str = "authored") -> dict:
    clip = Clip(gltf, clip_index)
    return {
        "clip": clip.name,
        "samples": [{"time": t, "nodes": clip.sample(t, mode)} for t in times],
    }


# --------------------------------------------------------------------------
# Self-test: hand-computed expectations from the spec (run with --self-test)
# --------------------------------------------------------------------------


def _approx(a, b, tol=1e-6):
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_approx(x, y, tol) for x, y in zip(a, b))
    return abs(a - b) <= tol


def _check(cond, what):
    if not cond:
        raise AssertionError(what)


def _mini_asset(accessors, views, data: bytes, extra=None):
    doc = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": len(data)}],
        "bufferViews": views,
        "accessors": accessors,
    }
    doc.update(extra or {})
    return Gltf(None, doc, [data])


def _self_test_accessors():
    # normalized decoding (spec 3.11 table / 3.6.2): signed max(c/127,-1), unsigned c/255 ...
    _check(_normalize_int(-128, 5120) == -1.0 and _normalize_int(-127, 5120) == -1.0, "byte -128/-127")
    _check(_normalize_int(127, 5120) == 1.0 and _approx(_normalize_int(64, 5120), 64 / 127), "byte 127/64")
    _check(_normalize_int(255, 5121) == 1.0 and _normalize_int(0, 5121) == 0.0, "ubyte")
    _check(_normalize_int(-32768, 5122) == -1.0 and _normalize_int(32767, 5122) == 1.0, "short")
    _check(_normalize_int(65535, 5123) == 1.0, "ushort")

    # byteStride + bufferView/accessor byteOffset (interleaved VEC3 floats, stride 24)
    data = bytearray(8)  # bufferView starts at byte 8
    for i in range(3):
        data += struct.pack("<6f", i, i + 0.5, -i, 10 + i, 20 + i, 30 + i)
    views = [{"buffer": 0, "byteOffset": 8, "byteLength": len(data) - 8, "byteStride": 24}]
    accs = [
        {"bufferView": 0, "componentType": 5126, "type": "VEC3", "count": 3},
        {"bufferView": 0, "byteOffset": 12, "componentType": 5126, "type": "VEC3", "count": 3},
    ]
    g = _mini_asset(accs, views, bytes(data))
    _check(g.accessor(0) == [(0.0, 0.5, 0.0), (1.0, 1.5, -1.0), (2.0, 2.5, -2.0)], "strided accessor 0")
    _check(g.accessor(1) == [(10.0, 20.0, 30.0), (11.0, 21.0, 31.0), (12.0, 22.0, 32.0)], "strided accessor 1")

    # sparse over base data (normalized shorts), and no bufferView + sparse; MAT2 ubyte padding
    base = struct.pack("<4h", 0, 32767, -32767, 100)
    idx = struct.pack("<2B", 1, 3) + b"\0\0"
    vals = struct.pack("<2h", -32768, 16384)
    mat = bytes([1, 2, 0, 0, 3, 4, 0, 0])  # MAT2 ubyte: each column padded to 4 bytes
    data = base + idx + vals + mat
    views = [
        {"buffer": 0, "byteOffset": 0, "byteLength": 8},
        {"buffer": 0, "byteOffset": 8, "byteLength": 2},
        {"buffer": 0, "byteOffset": 12, "byteLength": 4},
        {"buffer": 0, "byteOffset": 16, "byteLength": 8},
    ]
    sparse = {"count": 2, "indices": {"bufferView": 1, "componentType": 5121}, "values": {"bufferView": 2}}
    accs = [
        {"bufferView": 0, "componentType": 5122, "normalized": True, "type": "SCALAR", "count": 4, "sparse": sparse},
        {"componentType": 5122, "normalized": True, "type": "SCALAR", "count": 5, "sparse": sparse},
        {"bufferView": 3, "componentType": 5121, "type": "MAT2", "count": 1},
    ]
    g = _mini_asset(accs, views, data)
    _check(_approx(g.accessor_scalars(0), [0.0, -1.0, -1.0, 16384 / 32767]), "sparse over base")
    _check(_approx(g.accessor_scalars(1), [0.0, -1.0, 0.0, 16384 / 32767, 0.0]), "sparse without bufferView")
    _check(g.accessor(2) == [(1.0, 2.0, 3.0, 4.0)], "MAT2 column padding")


def _sampler_from(times, values, interpolation, path):
    """Build a Sampler straight from Python lists (float accessors)."""
    flat_t = struct.pack("<%df" % len(times), *times)
    flat_v = [c for v in values for c in (v if isinstance(v, (list, tuple)) else [v])]
    data = flat_t + struct.pack("<%df" % len(flat_v), *flat_v)
    width = {"translation": 3, "scale": 3, "rotation": 4}.get(path, 1)
    atype = {1: "SCALAR", 3: "VEC3", 4: "VEC4"}[width]
    views = [
        {"buffer": 0, "byteOffset": 0, "byteLength": len(flat_t)},
        {"buffer": 0, "byteOffset": len(flat_t), "byteLength": 4 * len(flat_v)},
    ]
    accs = [
        {"bufferView": 0, "componentType": 5126, "type": "SCALAR", "count": len(times)},
        {"bufferView": 1, "componentType": 5126, "type": atype, "count": len(flat_v) // width},
    ]
    g = _mini_asset(accs, views, data)
    return Sampler(g, {"input": 0, "output": 1, "interpolation": interpolation}, path)


def _self_test_interpolation():
    c45, s45 = math.cos(math.pi / 8), math.sin(math.pi / 8)  # half-angle of 45 degrees
    # STEP: value of the key at or before t; clamped outside
    smp = _sampler_from([1.0, 2.0, 4.0], [[1, 0, 0], [2, 0, 0], [3, 0, 0]], "STEP", "translation")
    for t, want in [(-5, 1), (0.5, 1), (1.0, 1), (1.999, 1), (2.0, 2), (3.9, 2), (4.0, 3), (9, 3)]:
        _check(_approx(smp.sample(t), [want, 0, 0]), f"STEP at {t}")
    # LINEAR translation: non-uniform segment
    smp = _sampler_from([1.0, 2.0, 4.0], [[1, 0, 0], [2, 0, 0], [3, 0, 0]], "LINEAR", "translation")
    _check(_approx(smp.sample(3.0), [2.5, 0, 0]), "LINEAR at 3.0")
    _check(_approx(smp.sample(1.25), [1.25, 0, 0]), "LINEAR at 1.25")
    # LINEAR rotation: identity -> -(90 deg about Z) must take the short way (negate the NEXT key)
    q90n = [0.0, 0.0, -math.sqrt(0.5), -math.sqrt(0.5)]
    smp = _sampler_from([0.0, 1.0], [[0, 0, 0, 1], q90n], "LINEAR", "rotation")
    _check(_approx(smp.sample(0.5), [0, 0, s45, c45], 1e-6), "slerp shortest path")
    _check(_approx(smp.sample(1.0), q90n, 1e-6), "slerp at the last key keeps the key's sign")
    # slerp is not nlerp: 1/4 of the way from identity to 180 deg about Z is 45 deg
    smp = _sampler_from([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 1, 0]], "LINEAR", "rotation")
    _check(_approx(smp.sample(0.25), [0, 0, s45, c45], 1e-6), "slerp constant angular speed")
    # q then exactly -q: no rotation in between (tiny-angle fallback after the flip)
    q = [0.5, 0.5, 0.5, 0.5]
    smp = _sampler_from([0.0, 1.0], [q, [-v for v in q]], "LINEAR", "rotation")
    _check(_approx(smp.sample(0.3), q, 1e-9), "q -> -q")
    # CUBICSPLINE scalar-like (translation x), dt = 2: p = 0.5*1 + 0.25*2 + 0.5*0 + (-0.25)*(-1)
    trip = [[9, 9, 9], [1, 0, 0], [2, 0, 0], [-1, 0, 0], [0, 0, 0], [9, 9, 9]]
    smp = _sampler_from([1.0, 3.0], trip, "CUBICSPLINE", "translation")
    _check(_approx(smp.sample(2.0), [1.25, 0, 0]), "cubic hand value")
    _check(_approx(smp.sample(3.0), [0, 0, 0]) and _approx(smp.sample(0.0), [1, 0, 0]), "cubic ends")
    _check(_approx(smp.sample(2.0, "step"), [1, 0, 0]), "step override on cubic data = middle value")
    _check(_approx(smp.sample(2.0, "linear"), [0.5, 0, 0]), "linear override on cubic data")
    # cubic rotation is normalized afterwards; zero tangents -> normalized average (no flip)
    trip = [[0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, math.sqrt(0.5), math.sqrt(0.5)], [0, 0, 0, 0]]
    smp = _sampler_from([0.0, 1.0], trip, "CUBICSPLINE", "rotation")
    _check(_approx(smp.sample(0.5), [0, 0, math.sin(math.pi / 8), math.cos(math.pi / 8)], 1e-6), "cubic rotation")
    # weights: 2 targets per key, cubic triplets are groups of 2 scalars
    smp = _sampler_from([0.0, 1.0], [0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0], "CUBICSPLINE", "weights")
    _check(smp.width == 2 and _approx(smp.sample(0.5), [0.5, 0.5]), "cubic weights")
    # single key
    smp = _sampler_from([0.5], [[7, 8, 9]], "LINEAR", "scale")
    _check(_approx(smp.sample(-1), [7, 8, 9]) and _approx(smp.sample(3), [7, 8, 9]), "single key")


def _self_test_matrix():
    # rotation 120 deg about (1,1,1)/sqrt3 (q = (.5,.5,.5,.5)), scale (2,3,4), translation (5,6,7)
    q = [0.5, 0.5, 0.5, 0.5]
    x, y, z, w = q
    rot = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    sc = [2.0, 3.0, 4.0]
    m = [rot[r][c] * sc[c] for c in range(3) for r in range(3)]
    mat = m[0:3] + [0] + m[3:6] + [0] + m[6:9] + [0] + [5, 6, 7, 1]
    t, r, s = decompose_matrix(mat)
    _check(_approx(t, [5, 6, 7]) and _approx(s, sc), "matrix T/S")
    _check(_approx(r, q, 1e-9) or _approx(r, [-v for v in q], 1e-9), "matrix R")


def _self_test_files():
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        # the same asset as .gltf + external .bin (percent-encoded URI), data: URI, and .glb
        times = struct.pack("<3f", 0.0, 0.5, 2.0)
        vals = struct.pack("<9f", 0, 0, 0, 1, 2, 3, -1, -2, -3)
        data = times + vals
        doc = {
            "asset": {"version": "2.0"},
            "nodes": [{"translation": [1, 1, 1]}, {"name": "anim"}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 12},
                {"buffer": 0, "byteOffset": 12, "byteLength": 36},
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "type": "SCALAR", "count": 3, "min": [0], "max": [2]},
                {"bufferView": 1, "componentType": 5126, "type": "VEC3", "count": 3},
            ],
            "animations": [
                {"channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}],
                 "samplers": [{"input": 0, "output": 1}]}
            ],
        }
        with open(os.path.join(tmp, "my data.bin"), "wb") as f:
            f.write(data)
        d1 = dict(doc, buffers=[{"byteLength": len(data), "uri": "my%20data.bin"}])
        d2 = dict(doc, buffers=[{"byteLength": len(data), "uri": "data:application/gltf-buffer;base64,"
                                 + base64.b64encode(data).decode()}])
        d3 = dict(doc, buffers=[{"byteLength": len(data)}])
        for name, d in (("ext.gltf", d1), ("uri.gltf", d2)):
            with open(os.path.join(tmp, name), "w") as f:
                json.dump(d, f)
        js = json.dumps(d3).encode()
        js += b" " * (-len(js) % 4)
        bin_ = data + b"\0" * (-len(data) % 4)
        glb = struct.pack("<III", GLB_MAGIC, 2, 12 + 8 + len(js) + 8 + len(bin_))
        glb += struct.pack("<II", len(js), CHUNK_JSON) + js + struct.pack("<II", len(bin_), CHUNK_BIN) + bin_
        with open(os.path.join(tmp, "bin.glb"), "wb") as f:
            f.write(glb)
        want = {
            "clip": "animation_0",
            "samples": [
                {"time": 0.25, "nodes": [{"node": 1, "translation": [0.5, 1.0, 1.5],
                                          "rotation": [0.0, 0.0, 0.0, 1.0], "scale": [1.0, 1.0, 1.0]}]},
                {"time": -1.0, "nodes": [{"node": 1, "translation": [0.0, 0.0, 0.0],
                                          "rotation": [0.0, 0.0, 0.0, 1.0], "scale": [1.0, 1.0, 1.0]}]},
            ],
        }
        for name in ("ext.gltf", "uri.gltf", "bin.glb"):
            g = Gltf(os.path.join(tmp, name))
            got = sample_clip(g, g.find_clip("0"), [0.25, -1.0])
            _check(got == want, f"{name}: {got}")


def self_test() -> int:
    _self_test_accessors()
    _self_test_interpolation()
    _self_test_matrix()
    _self_test_files()
    print("gltf_ref self-test: ok")
    return 0


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

USAGE = (
    "usage: gltf_ref.py MODEL --clip NAME_OR_INDEX --times T1,T2,... "
    "[--interpolation authored|step|linear] [--format json]"
)


def parse_args(argv):
    # Hand-rolled so that negative times ("--times -1,0.5") are accepted.
    opts = {"clip": None, "times": None, "interpolation": "authored", "format": "json"}
    model = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        if a.startswith("--"):
            key, eq, val = a[2:].partition("=")
            if key not in opts:
                raise SystemExit(f"unknown option --{key}\n{USAGE}")
            if not eq:
                i += 1
                if i >= len(argv):
                    raise SystemExit(f"--{key} needs a value\n{USAGE}")
                val = argv[i]
            opts[key] = val
        elif model is None:
            model = a
        else:
            raise SystemExit(f"unexpected argument {a!r}\n{USAGE}")
        i += 1
    if model is None or opts["clip"] is None or opts["times"] is None:
        raise SystemExit(USAGE)
    if opts["interpolation"] not in ("authored", "step", "linear"):
        raise SystemExit(f"unsupported --interpolation {opts['interpolation']!r}")
    if opts["format"] != "json":
        raise SystemExit("only --format json is supported")
    times = [float(x) for x in opts["times"].split(",") if x.strip() != ""]
    return model, opts["clip"], times, opts["interpolation"]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--self-test"]:
        return self_test()
    model, clip_key, times, mode = parse_args(argv)
    try:
        gltf = Gltf(model)
        idx = gltf.find_clip(clip_key)
        result = sample_clip(gltf, idx, times, mode)
    except (GltfError, OSError, KeyError, IndexError, ValueError, struct.error) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
