#!/usr/bin/env python3
"""Write small glTF 2.0 files with tricky animation data for cross-checking samplers.

usage: python3 make_tricky.py OUTDIR

Every file is a self-contained .gltf (one buffer as a base64 data: URI).  Output is
deterministic (fixed seeds).  Files named tricky_*.gltf are valid glTF 2.0; files
named nonconformant_*.gltf deliberately break one rule that a lenient loader may
tolerate (a `matrix` node that is an animation target, byteStride on animation
data), and compare.py treats an outright rejection of those as "not comparable"
rather than a failure.

What is covered:
  * non-uniform key times and near-coincident keys (1e-4 s apart)
  * q / -q sign flips between consecutive rotation keys (exact -q, and nearby -q')
  * several channels on several nodes starting late / ending early
  * normalized integer outputs: byte / ubyte / short / ushort rotations (including
    -128 and -32768, which decode to -1), and ubyte / ushort / byte / short weights
  * sparse accessors: sparse values over bufferView data, an accessor without a
    bufferView plus sparse (also as a sampler input)
  * CUBICSPLINE on translation / rotation / scale / weights with non-trivial tangents
  * STEP, a single-key sampler, two channels sharing one input accessor
  * a node with a `matrix` (parent of animated nodes), a mesh with 2 morph targets
  * a clip whose first key time is > 0, an unnamed clip, a channel without target.node
  * accessors packed into shared bufferViews at non-zero byteOffsets
"""

from __future__ import annotations

import base64
import json
import math
import os
import random
import struct
import sys

FLOAT, BYTE, UBYTE, SHORT, USHORT, UINT = 5126, 5120, 5121, 5122, 5123, 5125
FMT = {FLOAT: "f", BYTE: "b", UBYTE: "B", SHORT: "h", USHORT: "H", UINT: "I"}
SIZE = {FLOAT: 4, BYTE: 1, UBYTE: 1, SHORT: 2, USHORT: 2, UINT: 4}
NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
INT_MAX = {BYTE: 127, UBYTE: 255, SHORT: 32767, USHORT: 65535}


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def flatten(elements):
    out = []
    for e in elements:
        if isinstance(e, (list, tuple)):
            out.extend(e)
        else:
            out.append(e)
    return out


class Builder:
    """Accumulates one binary buffer plus bufferViews, accessors, nodes, ..."""

    def __init__(self, generator_note: str):
        self.buf = bytearray()
        self.doc = {
            "asset": {"version": "2.0", "generator": "animtune tests/reference/make_tricky.py"},
            "extras": {"note": generator_note},
            "scene": 0,
            "scenes": [{"nodes": []}],
            "nodes": [],
            "bufferViews": [],
            "accessors": [],
            "animations": [],
        }

    # ------------------------------------------------------------ raw data

    def _align(self, n=4):
        while len(self.buf) % n:
            self.buf.append(0)

    def view(self, data: bytes, stride: int | None = None, target: int | None = None) -> int:
        self._align(4)
        bv = {"buffer": 0, "byteOffset": len(self.buf), "byteLength": len(data)}
        if stride is not None:
            bv["byteStride"] = stride
        if target is not None:
            bv["target"] = target
        self.buf.extend(data)
        self.doc["bufferViews"].append(bv)
        return len(self.doc["bufferViews"]) - 1

    @staticmethod
    def pack(values, ctype) -> bytes:
        return struct.pack("<%d%s" % (len(values), FMT[ctype]), *values)

    def accessor(
        self,
        elements,
        ctype=FLOAT,
        atype="SCALAR",
        normalized=False,
        minmax=False,
        view=None,
        byte_offset=0,
        count=None,
        sparse=None,
        no_view=False,
    ) -> int:
        """Add an accessor.  `elements`: floats for FLOAT, raw ints for integer types.

        view/byte_offset: place the accessor inside an existing bufferView.
        no_view: accessor without bufferView (all zeros) - needs `count` and `sparse`.
        sparse: (indices, index_ctype, values) applied over the base data.
        """
        n = NCOMP[atype]
        acc = {"componentType": ctype, "type": atype}
        if normalized:
            acc["normalized"] = True
        if no_view:
            acc["count"] = count
            base = [[0] * n for _ in range(count)]
        else:
            flat = flatten(elements)
            assert len(flat) % n == 0
            acc["count"] = len(flat) // n
            base = [flat[i * n : (i + 1) * n] for i in range(acc["count"])]
            if view is None:
                view = self.view(self.pack(flat, ctype))
            acc["bufferView"] = view
            if byte_offset:
                acc["byteOffset"] = byte_offset
        if sparse is not None:
            idx, ictype, vals = sparse
            assert list(idx) == sorted(set(idx)), "sparse indices must strictly increase"
            vflat = flatten(vals)
            iv = self.view(self.pack(list(idx), ictype))
            vv = self.view(self.pack(vflat, ctype))
            acc["sparse"] = {
                "count": len(idx),
                "indices": {"bufferView": iv, "componentType": ictype},
                "values": {"bufferView": vv},
            }
            for k, i in enumerate(idx):
                base[i] = vflat[k * n : (k + 1) * n]
        if minmax:
            if ctype == FLOAT:
                cols = [[f32(e[c]) for e in base] for c in range(n)]
            else:
                cols = [[e[c] for e in base] for c in range(n)]
            acc["min"] = [min(c) for c in cols]
            acc["max"] = [max(c) for c in cols]
        self.doc["accessors"].append(acc)
        return len(self.doc["accessors"]) - 1

    def shared_view(self, arrays):
        """Pack several (values, ctype) arrays into ONE bufferView; return (view, offsets)."""
        data = bytearray()
        offsets = []
        for values, ctype in arrays:
            while len(data) % 4:
                data.append(0)
            offsets.append(len(data))
            data.extend(self.pack(flatten(values), ctype))
        return self.view(bytes(data)), offsets

    def times(self, ts) -> int:
        return self.accessor([f32(t) for t in ts], FLOAT, "SCALAR", minmax=True)

    # ------------------------------------------------------------ scene graph

    def node(self, root=True, **props) -> int:
        self.doc["nodes"].append(props)
        idx = len(self.doc["nodes"]) - 1
        if root:
            self.doc["scenes"][0]["nodes"].append(idx)
        return idx

    def morph_mesh(self, weights=(0.25, 0.5)) -> int:
        """A one-triangle mesh with 2 morph targets."""
        pos = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
        t0 = [[0, 0, 0.5], [0, 0, 0], [0, 0, 0]]
        t1 = [[0, 0, 0], [0.5, 0.5, 0], [-0.5, 0, 0]]
        p = self.accessor([[float(v) for v in e] for e in pos], FLOAT, "VEC3", minmax=True)
        a = self.accessor([[float(v) for v in e] for e in t0], FLOAT, "VEC3", minmax=True)
        b = self.accessor([[float(v) for v in e] for e in t1], FLOAT, "VEC3", minmax=True)
        self.doc.setdefault("meshes", []).append(
            {
                "primitives": [{"attributes": {"POSITION": p}, "targets": [{"POSITION": a}, {"POSITION": b}]}],
                "weights": list(weights),
            }
        )
        return len(self.doc["meshes"]) - 1

    def clip(self, name=None):
        anim = {"channels": [], "samplers": []}
        if name is not None:
            anim["name"] = name
        self.doc["animations"].append(anim)
        return anim

    @staticmethod
    def channel(anim, node, path, input_acc, output_acc, interpolation="LINEAR"):
        anim["samplers"].append({"input": input_acc, "output": output_acc, "interpolation": interpolation})
        target = {"path": path}
        if node is not None:
            target["node"] = node
        anim["channels"].append({"sampler": len(anim["samplers"]) - 1, "target": target})

    def write(self, path):
        self._align(4)
        doc = dict(self.doc)
        doc["buffers"] = [
            {
                "byteLength": len(self.buf),
                "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(self.buf)).decode("ascii"),
            }
        ]
        if not doc["animations"]:
            del doc["animations"]
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


# ---------------------------------------------------------------- random data


def rand_unit_quat(rng):
    while True:
        q = [rng.gauss(0, 1) for _ in range(4)]
        n = math.sqrt(sum(v * v for v in q))
        if n > 1e-3:
            return [v / n for v in q]


def qdot(a, b):
    return sum(x * y for x, y in zip(a, b))


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]


def axis_angle(axis, angle):
    n = math.sqrt(sum(v * v for v in axis))
    s = math.sin(angle / 2) / n
    return [axis[0] * s, axis[1] * s, axis[2] * s, math.cos(angle / 2)]


def quat_chain(rng, n, max_step=1.2, min_abs_dot=0.15):
    """n rotations; successive ones differ by a bounded rotation; signs flipped at random.

    |dot| between neighbours stays away from 0 so that the shortest-path decision is
    unambiguous even in float32.
    """
    out = [rand_unit_quat(rng)]
    while len(out) < n:
        step = axis_angle([rng.gauss(0, 1) for _ in range(3)], rng.uniform(0.05, max_step))
        q = qmul(step, out[-1])
        if rng.random() < 0.5:
            q = [-v for v in q]
        if abs(qdot(q, out[-1])) < min_abs_dot:
            continue
        out.append(q)
    return [[f32(v) for v in q] for q in out]


def int_unit_quat(rng, q, nmax, unsigned=False):
    """Integer 4-vector with sum of squares == nmax**2 exactly, close to nmax*q.

    (Every integer is a sum of four squares; we search near the target.)  Decoded with
    the normalized-int rule (c / nmax) it is an exact unit quaternion.
    """
    target = nmax * nmax
    if unsigned:
        q = [abs(v) for v in q]
    base = [round(v * nmax) for v in q[:3]]
    spread = 2 if nmax < 300 else 60
    for attempt in range(2_000_000):
        r = spread + attempt // 2000
        abc = [b + rng.randint(-r, r) for b in base]
        if unsigned and any(v < 0 for v in abc):
            continue
        if any(abs(v) > nmax for v in abc):
            continue
        rest = target - sum(v * v for v in abc)
        if rest < 0:
            continue
        d = math.isqrt(rest)
        if d * d == rest:
            if q[3] < 0 and not unsigned:
                d = -d
            return abc + [d]
    raise RuntimeError("no integer quaternion found")


def int_quat_chain(rng, n, nmax, unsigned=False):
    """Chain of exact-unit integer quaternions (raw ints) with sign flips when signed."""
    out = []
    floats = quat_chain(rng, n, max_step=0.9, min_abs_dot=0.2)
    for q in floats:
        iq = int_unit_quat(rng, q, nmax, unsigned)
        if out:
            d = qdot(iq, out[-1]) / (nmax * nmax)
            if abs(d) < 0.15:
                iq = int_unit_quat(rng, out[-1], nmax, unsigned)  # keep the path well defined
        out.append(iq)
    return out


def vec3s(rng, n, lo=-2.0, hi=2.0):
    return [[f32(rng.uniform(lo, hi)) for _ in range(3)] for _ in range(n)]


def nonuniform_times(rng, start, n, near_pairs=1):
    """Increasing float32 times with irregular gaps and some 1e-4 s near-coincident pairs."""
    ts = [start]
    while len(ts) < n:
        if near_pairs and len(ts) > 1 and rng.random() < 0.35:
            nxt = ts[-1] + 1e-4
            near_pairs -= 1
        else:
            nxt = ts[-1] + rng.choice([0.013, 0.05, 0.1, 0.23, 0.4, 0.77]) * rng.uniform(0.5, 1.5)
        nxt = f32(nxt)
        if nxt > ts[-1]:
            ts.append(nxt)
    return [f32(t) for t in ts]


def cubic_quat_ok(times, triplets):
    """The Hermite curve must keep away from the zero quaternion (normalization is stable)."""
    n = len(times)
    for k in range(n - 1):
        dt = times[k + 1] - times[k]
        v0, b0 = triplets[3 * k + 1], triplets[3 * k + 2]
        a1, v1 = triplets[3 * (k + 1)], triplets[3 * (k + 1) + 1]
        for j in range(0, 41):
            s = j / 40
            h = [2 * s**3 - 3 * s**2 + 1, (s**3 - 2 * s**2 + s) * dt, -2 * s**3 + 3 * s**2, (s**3 - s**2) * dt]
            p = [h[0] * v0[i] + h[1] * b0[i] + h[2] * v1[i] + h[3] * a1[i] for i in range(4)]
            if math.sqrt(sum(v * v for v in p)) < 0.35:
                return False
    return True


# ---------------------------------------------------------------- files


def make_keys(out_dir):
    """Irregular keys, sign flips, late/early channels, STEP, single key, shared input, matrix parent."""
    rng = random.Random(1001)
    b = Builder("irregular/near-coincident keys, q/-q flips, late/early channels, shared input")
    # parent with a matrix: rotation 30deg about Z, scale (2, 0.5, 1.5), translation (1, 2, 3)
    c, s = math.cos(math.pi / 6), math.sin(math.pi / 6)
    matrix = [2 * c, 2 * s, 0, 0, -0.5 * s, 0.5 * c, 0, 0, 0, 0, 1.5, 0, 1, 2, 3, 1]
    root = b.node(name="matrix_root", matrix=[f32(v) for v in matrix], children=[])
    kids = []
    n1 = b.node(root=False, name="irregular", translation=[0.5, -0.5, 0.25], rotation=[0, 0, 0.6, 0.8])
    n2 = b.node(root=False, name="late_step", rotation=[0.0, 0.7071068, 0.0, 0.7071068], scale=[3, 3, 3])
    n3 = b.node(root=False, name="shared_input")
    n4 = b.node(root=False, name="step_rot_cubic_pos", scale=[1, 2, 1])
    n5 = b.node(root=False, name="not_animated_in_clip0", translation=[9, 9, 9])
    kids = [n1, n2, n3, n4, n5]
    b.doc["nodes"][root]["children"] = kids

    anim = b.clip("irregular")
    # node 1: translation LINEAR on irregular times with near-coincident pairs
    t1 = nonuniform_times(rng, 0.0, 12, near_pairs=3)
    b.channel(anim, n1, "translation", b.times(t1), b.accessor(vec3s(rng, len(t1)), FLOAT, "VEC3"))
    # node 1: rotation LINEAR with q/-q flips, exact -q, and repeated keys
    tr = nonuniform_times(rng, 0.02, 10, near_pairs=2)
    qs = quat_chain(rng, len(tr))
    qs[4] = [-v for v in qs[3]]  # exact antipode of the previous key: no rotation at all
    qs[6] = list(qs[5])  # identical consecutive keys: tiny-angle fallback
    b.channel(anim, n1, "rotation", b.times(tr), b.accessor(qs, FLOAT, "VEC4"))
    # node 2: scale STEP starting late, ending early
    ts = [0.4, 0.4001, 0.55, 0.9, 1.1]
    b.channel(anim, n2, "scale", b.times(ts), b.accessor(vec3s(rng, len(ts), 0.1, 3.0), FLOAT, "VEC3"), "STEP")
    # node 2: translation with a single key (LINEAR)
    b.channel(anim, n2, "translation", b.times([0.7]), b.accessor([[f32(1.5), f32(-2.25), f32(0.125)]], FLOAT, "VEC3"))
    # node 3: translation + rotation sharing ONE input accessor, data packed in one bufferView
    tsh = [0.25, 0.31, 0.3101, 0.6, 0.9]
    shared_in = b.times(tsh)
    pos = vec3s(rng, len(tsh))
    rot = quat_chain(rng, len(tsh))
    view, offs = b.shared_view([(pos, FLOAT), (rot, FLOAT)])
    b.channel(anim, n3, "translation", shared_in, b.accessor(pos, FLOAT, "VEC3", view=view, byte_offset=offs[0]))
    b.channel(anim, n3, "rotation", shared_in, b.accessor(rot, FLOAT, "VEC4", view=view, byte_offset=offs[1]))
    # node 4: rotation STEP with sign flips; translation CUBICSPLINE ending last
    tstep = nonuniform_times(rng, 0.1, 6, near_pairs=1)
    b.channel(anim, n4, "rotation", b.times(tstep), b.accessor(quat_chain(rng, len(tstep)), FLOAT, "VEC4"), "STEP")
    tc = [0.0, 0.3, 0.3001, 1.0, 2.5]
    trip = []
    for _ in tc:
        trip += vec3s(rng, 3, -3, 3)
    b.channel(anim, n4, "translation", b.times(tc), b.accessor(trip, FLOAT, "VEC3"), "CUBICSPLINE")

    # clip 1: unnamed, includes a channel without target.node (must be ignored)
    anim2 = b.clip(None)
    t2 = [0.0, 0.5, 1.0]
    b.channel(anim2, n3, "scale", b.times(t2), b.accessor(vec3s(rng, 3, 0.5, 1.5), FLOAT, "VEC3"))
    b.channel(anim2, None, "rotation", b.times([0.0, 3.0]), b.accessor(quat_chain(rng, 2), FLOAT, "VEC4"))
    b.channel(anim2, n1, "rotation", b.times([0.2, 0.2001, 0.9]), b.accessor(quat_chain(rng, 3), FLOAT, "VEC4"))

    # clip 2: every key after t = 0 (first key at 0.75 s)
    anim3 = b.clip("late_start")
    tl = [0.75, 0.8, 1.3, 2.0]
    b.channel(anim3, n1, "translation", b.times(tl), b.accessor(vec3s(rng, 4), FLOAT, "VEC3"))
    b.channel(anim3, n5, "rotation", b.times(tl), b.accessor(quat_chain(rng, 4), FLOAT, "VEC4"))
    tl2 = [1.0, 1.6]
    b.channel(anim3, n2, "scale", b.times(tl2), b.accessor(vec3s(rng, 2, 0.2, 2), FLOAT, "VEC3"), "STEP")
    b.write(os.path.join(out_dir, "tricky_keys.gltf"))


def make_normalized(out_dir):
    """Normalized integer rotation and weights outputs."""
    rng = random.Random(2002)
    b = Builder("normalized integer outputs: byte/ubyte/short/ushort rotations and weights")
    mesh = b.morph_mesh()
    anim = b.clip("normalized")
    times5 = [0.0, 0.2, 0.5, 0.5001, 1.25]
    times_in = b.times(times5)

    # byte rotation (LINEAR) with an exact q/-q flip using -128 (decodes to exactly -1)
    n = b.node(name="rot_byte")
    q = int_quat_chain(rng, 5, 127)
    q[0] = int_unit_quat(rng, [0.8, 0.2, -0.3, 0.4795832], 127)
    q[1] = [127, 0, 0, 0]
    q[2] = [-128, 0, 0, 0]  # == -q[1] after decoding
    q[3] = int_unit_quat(rng, [-0.7, 0.5, 0.1, 0.5], 127)
    b.channel(anim, n, "rotation", times_in, b.accessor(q, BYTE, "VEC4", normalized=True))
    # short rotation (LINEAR) with -32768
    n = b.node(name="rot_short")
    q = int_quat_chain(rng, 6, 32767)
    q[2] = int_unit_quat(rng, [0.3, 0.2, 0.9, 0.2469818], 32767)
    q[3] = [0, 0, -32768, 0]  # decodes to exactly (0, 0, -1, 0)
    q[4] = int_unit_quat(rng, [0, 0.7071068, 0.7071068, 0.0], 32767)
    t6 = [0.0, 0.1, 0.35, 0.6, 0.6001, 1.0]
    b.channel(anim, n, "rotation", b.times(t6), b.accessor(q, SHORT, "VEC4", normalized=True))
    # ubyte rotation (STEP) and ushort rotation (LINEAR)
    n = b.node(name="rot_ubyte_step")
    b.channel(anim, n, "rotation", times_in, b.accessor(int_quat_chain(rng, 5, 255, True), UBYTE, "VEC4", normalized=True), "STEP")
    n = b.node(name="rot_ushort")
    b.channel(anim, n, "rotation", times_in, b.accessor(int_quat_chain(rng, 5, 65535, True), USHORT, "VEC4", normalized=True))
    # byte rotation CUBICSPLINE: values exact unit, tangents arbitrary small ints
    n = b.node(name="rot_byte_cubic")
    tcub = [0.1, 0.6, 1.1]
    for _ in range(100):
        vals = int_quat_chain(rng, 3, 127)
        trip = []
        for v in vals:
            trip += [[rng.randint(-40, 40) for _ in range(4)], v, [rng.randint(-40, 40) for _ in range(4)]]
        dec = [[max(c / 127, -1) for c in e] for e in trip]
        if cubic_quat_ok(tcub, dec):
            break
    b.channel(anim, n, "rotation", b.times(tcub), b.accessor(trip, BYTE, "VEC4", normalized=True), "CUBICSPLINE")

    # weights: mesh nodes, 2 morph targets each
    n = b.node(name="w_ubyte", mesh=mesh)
    b.channel(anim, n, "weights", times_in, b.accessor([[rng.randint(0, 255) for _ in range(2)] for _ in times5], UBYTE, "SCALAR", normalized=True))
    n = b.node(name="w_ushort_step", mesh=mesh, weights=[0.9, 0.1])
    w = [[rng.randint(0, 65535) for _ in range(2)] for _ in times5]
    w[0] = [0, 65535]
    b.channel(anim, n, "weights", times_in, b.accessor(w, USHORT, "SCALAR", normalized=True), "STEP")
    n = b.node(name="w_byte", mesh=mesh)
    w = [[rng.randint(-128, 127) for _ in range(2)] for _ in times5]
    w[1] = [-128, -127]  # both decode to -1.0
    b.channel(anim, n, "weights", times_in, b.accessor(w, BYTE, "SCALAR", normalized=True))
    n = b.node(name="w_short_cubic", mesh=mesh)
    tw = [0.0, 0.3, 0.3001, 0.8]
    trip = []
    for _ in tw:
        trip += [[rng.randint(-32768, 32767) for _ in range(2)] for _ in range(3)]
    b.channel(anim, n, "weights", b.times(tw), b.accessor(trip, SHORT, "SCALAR", normalized=True), "CUBICSPLINE")
    b.write(os.path.join(out_dir, "tricky_normalized.gltf"))


def make_cubic(out_dir):
    """CUBICSPLINE on T/R/S/weights with non-trivial tangents and irregular keys."""
    rng = random.Random(3003)
    b = Builder("CUBICSPLINE on translation/rotation/scale/weights with non-trivial tangents")
    mesh = b.morph_mesh((0.0, 0.0))
    anim = b.clip("cubic")
    n = b.node(name="cubic_trs", translation=[1, 1, 1])
    tt = nonuniform_times(rng, 0.05, 8, near_pairs=2)
    trip = []
    for _ in tt:
        trip += vec3s(rng, 3, -4, 4)
    b.channel(anim, n, "translation", b.times(tt), b.accessor(trip, FLOAT, "VEC3"), "CUBICSPLINE")
    ts = nonuniform_times(rng, 0.0, 6, near_pairs=1)
    trip = []
    for _ in ts:
        tan_in, val, tan_out = vec3s(rng, 1, -2, 2)[0], vec3s(rng, 1, 0.2, 2.5)[0], vec3s(rng, 1, -2, 2)[0]
        trip += [tan_in, val, tan_out]
    b.channel(anim, n, "scale", b.times(ts), b.accessor(trip, FLOAT, "VEC3"), "CUBICSPLINE")
    # rotation: include a key whose sign is flipped relative to its neighbour (no flipping for
    # cubic), tangents non-trivial; keep the curve away from the zero quaternion.
    tr = [0.0, 0.15, 0.4, 0.4001, 0.9, 1.6]
    for attempt in range(1000):
        qs = quat_chain(rng, len(tr), max_step=0.6, min_abs_dot=0.5)
        qs[2] = [-v for v in qs[2]]  # sign flip between keys 1 -> 2 and 2 -> 3
        trip = []
        for q in qs:
            ta = [f32(rng.uniform(-1.5, 1.5)) for _ in range(4)]
            tb = [f32(rng.uniform(-1.5, 1.5)) for _ in range(4)]
            trip += [ta, q, tb]
        if cubic_quat_ok(tr, trip):
            break
    else:
        raise RuntimeError("could not build a stable cubic rotation")
    b.channel(anim, n, "rotation", b.times(tr), b.accessor(trip, FLOAT, "VEC4"), "CUBICSPLINE")
    # weights (2 targets) float cubic
    nw = b.node(name="cubic_weights", mesh=mesh)
    tw = nonuniform_times(rng, 0.2, 5, near_pairs=1)
    trip = []
    for _ in tw:
        for _ in range(3):
            trip.append([f32(rng.uniform(-1, 1.5)), f32(rng.uniform(-1, 1.5))])
    b.channel(anim, nw, "weights", b.times(tw), b.accessor(trip, FLOAT, "SCALAR"), "CUBICSPLINE")
    # a second node: cubic translation with only two keys and huge tangents; plain LINEAR scale
    n2 = b.node(name="cubic_two_keys")
    b.channel(anim, n2, "translation", b.times([0.5, 0.5001]), b.accessor(
        [[f32(100.0), 0, 0], [1, 2, 3], [f32(-50.0), f32(7.0), 0], [0, f32(300.0), 0], [3, 2, 1], [0, 0, 0]], FLOAT, "VEC3"), "CUBICSPLINE")
    b.channel(anim, n2, "scale", b.times([0.0, 1.0]), b.accessor([[1, 1, 1], [2, 0.5, 1]], FLOAT, "VEC3"))
    b.write(os.path.join(out_dir, "tricky_cubic.gltf"))


def make_sparse(out_dir):
    """Sparse accessors: over base data, without bufferView, as sampler input."""
    rng = random.Random(4004)
    b = Builder("sparse accessors")
    mesh = b.morph_mesh()
    anim = b.clip("sparse")
    # translation output: base data + sparse (ubyte indices)
    n = b.node(name="sparse_over_base")
    t = [0.0, 0.1, 0.2, 0.35, 0.5, 0.5001, 0.8]
    base = vec3s(rng, len(t))
    b.channel(anim, n, "translation", b.times(t), b.accessor(
        base, FLOAT, "VEC3", sparse=([1, 4, 6], UBYTE, vec3s(rng, 3, 5, 9))))
    # scale output: no bufferView (zeros) + sparse setting most elements (ushort indices)
    ts = [0.05, 0.3, 0.6, 0.61, 0.9]
    b.channel(anim, n, "scale", b.times(ts), b.accessor(
        None, FLOAT, "VEC3", no_view=True, count=5, sparse=([0, 1, 3, 4], USHORT, vec3s(rng, 4, 0.5, 2))), "STEP")
    # input accessor without bufferView + sparse (key 0 stays 0.0)
    n2 = b.node(name="sparse_input")
    times = [0.0, f32(0.3), f32(0.7), f32(1.2)]
    tin = b.accessor(None, FLOAT, "SCALAR", no_view=True, count=4, minmax=True,
                     sparse=([1, 2, 3], UINT, times[1:]))
    b.channel(anim, n2, "translation", tin, b.accessor(vec3s(rng, 4), FLOAT, "VEC3"))
    # rotation with sparse values over a quaternion chain (uint indices)
    qs = quat_chain(rng, 5)
    # the sparse value replaces key 2 by its antipode (a sign flip hidden in sparse data)
    b.channel(anim, n2, "rotation", b.times([0.0, 0.25, 0.5, 0.75, 1.0]), b.accessor(
        qs, FLOAT, "VEC4", sparse=([2], UINT, [[-v for v in qs[2]]])))
    # weights: normalized short with sparse normalized values; accessors share a bufferView
    nw = b.node(name="sparse_weights", mesh=mesh)
    tw = [0.0, 0.4, 0.4001, 1.0]
    wbase = [[rng.randint(-32768, 32767) for _ in range(2)] for _ in tw]
    wnorm = [[rng.randint(0, 65535) for _ in range(2)] for _ in tw]
    view, offs = b.shared_view([(wbase, SHORT), (wnorm, USHORT)])
    b.channel(anim, nw, "weights", b.times(tw), b.accessor(
        wbase, SHORT, "SCALAR", normalized=True, view=view, byte_offset=offs[0],
        sparse=([0, 3, 5], UBYTE, [-32768, 12345, 32767])))
    nw2 = b.node(name="ushort_weights_offset", mesh=mesh)
    b.channel(anim, nw2, "weights", b.times(tw), b.accessor(
        wnorm, USHORT, "SCALAR", normalized=True, view=view, byte_offset=offs[1]))
    b.write(os.path.join(out_dir, "tricky_sparse.gltf"))


def make_nonconformant(out_dir):
    """Rules a lenient loader may tolerate: animated matrix node, byteStride on animation data."""
    rng = random.Random(5005)
    b = Builder("NON-CONFORMANT on purpose: an animated node with a matrix")
    c, s = math.cos(0.7), math.sin(0.7)
    # rotation about Y by 0.7 rad, scale (1.5, 2, 0.5), translation (4, 5, 6)
    matrix = [1.5 * c, 0, -1.5 * s, 0, 0, 2, 0, 0, 0.5 * s, 0, 0.5 * c, 0, 4, 5, 6, 1]
    n = b.node(name="matrix_target", matrix=[f32(v) for v in matrix])
    anim = b.clip("matrix_target")
    b.channel(anim, n, "translation", b.times([0.0, 1.0]), b.accessor(vec3s(rng, 2), FLOAT, "VEC3"))
    b.write(os.path.join(out_dir, "nonconformant_matrix_target.gltf"))

    b = Builder("NON-CONFORMANT on purpose: interleaved animation outputs with byteStride")
    n = b.node(name="strided")
    t = [0.0, 0.4, 1.0]
    pos = vec3s(rng, 3)
    scl = vec3s(rng, 3, 0.5, 2)
    inter = []
    for p, q in zip(pos, scl):
        inter += p + q
    view = b.view(Builder.pack(inter, FLOAT), stride=24)
    anim = b.clip("strided")
    tin = b.times(t)
    b.channel(anim, n, "translation", tin, b.accessor(pos, FLOAT, "VEC3", view=view))
    b.channel(anim, n, "scale", tin, b.accessor(scl, FLOAT, "VEC3", view=view, byte_offset=12))
    b.write(os.path.join(out_dir, "nonconformant_strided.gltf"))


def verify(path):
    """Self-check a written file with the reference loader.

    Rotation keys must be unit quaternions (so that normalizing or not cannot matter)
    and neighbouring keys must not be close to perpendicular in 4D (|dot| >= 0.1), where
    the shortest-path choice would hinge on float rounding.
    """
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.dont_write_bytecode = True
    import gltf_ref

    g = gltf_ref.Gltf(path)
    for ai in range(len(g.animations())):
        clip = gltf_ref.Clip(g, ai)
        for node, prop, smp in clip.channels:
            if prop != "rotation":
                continue
            for q in smp.values:
                n = math.sqrt(sum(v * v for v in q))
                assert abs(n - 1) < 1e-6, f"{path}: non-unit rotation key {q} (node {node})"
            for q0, q1 in zip(smp.values, smp.values[1:]):
                d = abs(qdot(q0, q1))
                assert d >= 0.1, f"{path}: ambiguous shortest path, |dot| = {d} (node {node})"


def main(argv):
    if len(argv) != 1:
        print("usage: make_tricky.py OUTDIR", file=sys.stderr)
        return 2
    out_dir = argv[0]
    os.makedirs(out_dir, exist_ok=True)
    make_keys(out_dir)
    make_normalized(out_dir)
    make_cubic(out_dir)
    make_sparse(out_dir)
    make_nonconformant(out_dir)
    for name in sorted(os.listdir(out_dir)):
        if name.endswith(".gltf") and (name.startswith("tricky_") or name.startswith("nonconformant_")):
            verify(os.path.join(out_dir, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
