#!/usr/bin/env python3
"""Cross-check `animtune sample` against the independent reference in gltf_ref.py.

usage: python3 compare.py --animtune PATH [--models DIR] [--tricky-dir DIR]
                          [--no-models] [--no-tricky] [--max-report N]

For every animated .glb/.gltf under the models folder (default: ../shared/models
beside the workspace, searched recursively) and every generated tricky file, for
every clip and for each of the modes authored / step / linear, it samples many
times (every key time, 1 ulp before every key, midpoints and 1/3 points between
keys, -1, 0, past the end, and seeded random times; shuffled, some repeated) with
one animtune process per clip and mode (chunked if very long), computes the same
with the reference, and checks: same clip name, same node lists, same fields,
every number within 1e-4 absolute.

Prints one summary line per model and finally exactly one line `N passed, M failed`
(N, M count clip x mode comparisons).  Exits non-zero on any failure, after
printing the first mismatches.

Times are chosen as float32-representable values and printed with a round-trip
representation, so an implementation that parses times as f32 sees the very same
instants as the float64 reference.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep tests/reference free of __pycache__

import gltf_ref  # noqa: E402

TOL = 1e-4
MODES = ("authored", "step", "linear")
FIELDS = ("translation", "rotation", "scale", "weights")
MAX_TIMES_PER_CALL = 400
MAX_TIMES_PER_CLIP = 1500
MAX_NODE_SAMPLES = 120_000  # nodes x times, per clip and mode


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_prev(x: float) -> float:
    """The largest float32 strictly below float32 x."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    if x > 0:
        bits -= 1
    elif x < 0:
        bits += 1
    else:
        return -1.401298464324817e-45
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def fmt_time(t: float) -> str:
    return repr(float(t))


def pick_times(clip: gltf_ref.Clip, seed_text: str) -> list[float]:
    rng = random.Random(zlib.crc32(seed_text.encode("utf-8")))
    keys = clip.key_times()
    end = clip.end
    times = set()
    for k in keys:
        times.add(f32(k))
        if k > 0:
            times.add(f32_prev(k))
    for a, b in zip(keys, keys[1:]):
        times.add(f32((a + b) / 2))
        times.add(f32(a + (b - a) / 3))
    times.update([-1.0, 0.0, f32(end + 0.5), f32(end * 2 + 1)])
    lo, hi = -0.1 * end - 0.05, 1.1 * end + 0.05
    randoms = [f32(rng.uniform(lo, hi)) for _ in range(20)]
    times.update(randoms)
    times = sorted(times)
    n_nodes = max(1, len(clip.nodes))
    limit = min(MAX_TIMES_PER_CLIP, max(40, MAX_NODE_SAMPLES // n_nodes))
    if len(times) > limit:
        # keep the edges and the random times, thin the rest evenly
        must = {-1.0, 0.0, f32(end + 0.5)} | set(randoms)
        rest = [t for t in times if t not in must]
        step = len(rest) / max(1, limit - len(must))
        rest = [rest[int(i * step)] for i in range(int(len(rest) / step))]
        times = sorted(must | set(rest))
    times = list(times)
    rng.shuffle(times)
    # a few repeats, in a different place: output order must follow the request
    times += [times[i] for i in rng.sample(range(len(times)), min(3, len(times)))]
    return times


def run_animtune(binary: str, model: str, clip_index: int, times: list[float], mode: str):
    """Returns (samples, clip name, error text or None)."""
    samples = []
    name = None
    for i in range(0, len(times), MAX_TIMES_PER_CALL):
        chunk = times[i : i + MAX_TIMES_PER_CALL]
        cmd = [
            binary,
            "sample",
            model,
            "--clip",
            str(clip_index),
            "--times=" + ",".join(fmt_time(t) for t in chunk),
            "--interpolation",
            mode,
            "--format",
            "json",
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return None, None, "animtune timed out"
        if proc.returncode != 0:
            return None, None, f"animtune exited {proc.returncode}: {proc.stderr.strip()[:400]}"
        try:
            doc = json.loads(proc.stdout)
        except json.JSONDecodeError as e:
            return None, None, f"animtune printed invalid JSON ({e}): {proc.stdout[:200]!r}"
        if not isinstance(doc, dict) or not isinstance(doc.get("samples"), list):
            return None, None, f"animtune JSON lacks 'samples': {proc.stdout[:200]!r}"
        name = doc.get("clip")
        samples.extend(doc["samples"])
    return samples, name, None


def is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class Mismatch:
    def __init__(self, model, clip, mode, time, node, field, got, want, note=""):
        self.model, self.clip, self.mode, self.time = model, clip, mode, time
        self.node, self.field, self.got, self.want, self.note = node, field, got, want, note

    def __str__(self):
        s = f"  {self.model} | clip {self.clip} | {self.mode} | t={self.time} | node {self.node} | {self.field}"
        s += f"\n      animtune:  {self.got}\n      reference: {self.want}"
        if self.note:
            s += f"\n      ({self.note})"
        return s


def close(a, b) -> bool:
    return is_number(a) and math.isfinite(a) and abs(a - b) <= TOL


def compare_clip(model_label, clip_label, mode, times, got_samples, got_name, ref, sign_free):
    """Return the list of mismatches for one clip x mode."""
    out = []

    def bad(t, node, field, got, want, note=""):
        out.append(Mismatch(model_label, clip_label, mode, t, node, field, got, want, note))

    if got_name != ref["clip"]:
        bad(None, None, "clip", got_name, ref["clip"])
    if len(got_samples) != len(ref["samples"]):
        bad(None, None, "samples", f"{len(got_samples)} samples", f"{len(ref['samples'])} samples")
        return out
    for gs, rs in zip(got_samples, ref["samples"]):
        t = rs["time"]
        if not isinstance(gs, dict) or not close(gs.get("time"), t):
            bad(t, None, "time", gs.get("time") if isinstance(gs, dict) else gs, t)
            continue
        gnodes = gs.get("nodes")
        if not isinstance(gnodes, list):
            bad(t, None, "nodes", gnodes, "a list")
            continue
        gidx = [n.get("node") if isinstance(n, dict) else n for n in gnodes]
        ridx = [n["node"] for n in rs["nodes"]]
        if gidx != ridx:
            bad(t, None, "node list", gidx, ridx)
            continue
        for gn, rn in zip(gnodes, rs["nodes"]):
            node = rn["node"]
            gk = sorted(k for k in gn if k != "node")
            rk = sorted(k for k in rn if k != "node")
            if gk != rk:
                bad(t, node, "fields", gk, rk)
                continue
            for field in rk:
                gv, rv = gn[field], rn[field]
                if not isinstance(gv, list) or len(gv) != len(rv):
                    bad(t, node, field, gv, rv, "wrong length")
                    continue
                if all(close(a, b) for a, b in zip(gv, rv)):
                    continue
                if field == "rotation" and (node in sign_free) and all(close(a, -b) for a, b in zip(gv, rv)):
                    continue  # rest rotation decomposed from a matrix: q and -q are the same
                diff = max((abs(a - b) if is_number(a) else math.inf) for a, b in zip(gv, rv))
                note = f"max abs diff {diff:.3g}"
                if field == "rotation":
                    note += "; " + rotation_triage(gv, rv)
                bad(t, node, field, gv, rv, note)
    return out


def rotation_triage(got, want) -> str:
    """Say how a rotation mismatch relates to the reference (to help triage)."""
    if not all(is_number(a) and math.isfinite(a) for a in got):
        return "not a finite quaternion"
    n = math.sqrt(sum(v * v for v in want))
    unit = [v / n for v in want] if n > 0 else list(want)
    if all(close(a, -b) for a, b in zip(got, want)):
        return "kind: SIGN - same rotation, opposite quaternion sign (q vs -q)"
    if all(close(a, b) for a, b in zip(got, unit)):
        return f"kind: NORM - equals the reference rescaled to unit length (reference |q| = {n:.6f})"
    if all(close(a, -b) for a, b in zip(got, unit)):
        return f"kind: SIGN+NORM - equals minus the reference rescaled to unit length (reference |q| = {n:.6f})"
    # angle between the two rotations
    gn = math.sqrt(sum(v * v for v in got)) or 1.0
    d = abs(sum(a * b for a, b in zip(got, unit))) / gn
    angle = 2 * math.degrees(math.acos(min(1.0, d)))
    return f"kind: VALUE - different rotation, {angle:.4g} deg apart"


def find_models(models_dir: str) -> list[str]:
    found = []
    for root, dirs, files in os.walk(models_dir):
        dirs.sort()
        for f in sorted(files):
            if f.lower().endswith((".gltf", ".glb")):
                found.append(os.path.join(root, f))
    return found


def matrix_nodes_without_animated_rotation(g: gltf_ref.Gltf, clip: gltf_ref.Clip) -> set[int]:
    nodes = g.json.get("nodes", [])
    animated = {n for n, p, _ in clip.channels if p == "rotation"}
    return {n for n in clip.nodes if "matrix" in nodes[n] and n not in animated}


def check_model(path, label, binary, pool, lenient=False):
    """Returns (passed, failed, mismatches, note)."""
    try:
        g = gltf_ref.Gltf(path)
        n_clips = len(g.animations())
    except Exception as e:  # the reference cannot read it: report, do not hide
        return 0, 1, [Mismatch(label, None, None, None, None, "load", None, None, f"reference failed: {e}")], ""
    if n_clips == 0:
        return 0, 0, [], "no animations"
    jobs = []
    for ci in range(n_clips):
        try:
            clip = gltf_ref.Clip(g, ci)
        except Exception as e:
            jobs.append((ci, None, None, None, e))
            continue
        times = pick_times(clip, f"{label}#{ci}")
        for mode in MODES:
            fut = pool.submit(run_animtune, binary, path, ci, times, mode)
            jobs.append((ci, clip, times, mode, fut))
    passed = failed = 0
    mismatches = []
    rejected = None
    for ci, clip, times, mode, fut in jobs:
        clip_label = f"{ci} ({g.clip_name(ci)!r})"
        if clip is None:
            failed += 1
            mismatches.append(Mismatch(label, clip_label, None, None, None, "load", None, None, f"reference failed: {fut}"))
            continue
        got, name, err = fut.result()
        if err is not None:
            if lenient:
                rejected = err
                continue
            failed += 1
            mismatches.append(Mismatch(label, clip_label, mode, None, None, "run", err, "JSON output"))
            continue
        ref = gltf_ref.sample_clip(g, ci, times, mode)
        sign_free = matrix_nodes_without_animated_rotation(g, clip)
        mm = compare_clip(label, clip_label, mode, times, got, name, ref, sign_free)
        if mm:
            failed += 1
            mismatches.extend(mm)
        else:
            passed += 1
    note = ""
    if rejected is not None:
        note = f"not comparable: animtune rejected this non-conformant file ({rejected[:160]})"
    return passed, failed, mismatches, note


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--animtune", required=True, help="path to the animtune binary")
    ap.add_argument("--models", default=None, help="models folder (default: ../shared/models beside the workspace)")
    ap.add_argument("--tricky-dir", default=None, help="folder of make_tricky.py output (default: generate into a temp dir)")
    ap.add_argument("--no-models", action="store_true", help="skip the models folder")
    ap.add_argument("--no-tricky", action="store_true", help="skip the tricky files")
    ap.add_argument("--max-report", type=int, default=12, help="mismatches to print (default 12)")
    ap.add_argument(
        "--raw-rotation-keys",
        action="store_true",
        help="triage aid: make the reference use rotation keys as decoded, without rescaling to unit length",
    )
    ap.add_argument("--jobs", type=int, default=2, help="concurrent animtune processes (default 2)")
    args = ap.parse_args(argv)

    gltf_ref.Sampler.normalize_rotation_keys = not args.raw_rotation_keys
    binary = os.path.abspath(args.animtune)
    if not os.path.isfile(binary):
        print(f"error: animtune binary not found: {binary}", file=sys.stderr)
        return 2

    targets = []  # (path, label, lenient)
    if not args.no_models:
        models_dir = args.models or os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "models"))
        if os.path.isdir(models_dir):
            for p in find_models(models_dir):
                targets.append((p, os.path.relpath(p, models_dir), False))
        elif args.models:
            print(f"error: models folder not found: {models_dir}", file=sys.stderr)
            return 2
        else:
            print(f"skipped: {models_dir} not found")

    tmp = None
    if not args.no_tricky:
        tricky = args.tricky_dir
        if tricky is None or not os.path.isdir(tricky) or not os.listdir(tricky):
            if tricky is None:
                tmp = tempfile.mkdtemp(prefix="animtune-tricky-")
                tricky = tmp
            rc = subprocess.run([sys.executable, os.path.join(HERE, "make_tricky.py"), tricky]).returncode
            if rc != 0:
                print("error: make_tricky.py failed", file=sys.stderr)
                return 2
        for p in find_models(tricky):
            name = os.path.basename(p)
            targets.append((p, "tricky/" + os.path.relpath(p, tricky), name.startswith("nonconformant_")))

    total_pass = total_fail = 0
    all_mm = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for path, label, lenient in targets:
                p, f, mm, note = check_model(path, label, binary, pool, lenient)
                total_pass += p
                total_fail += f
                all_mm.extend(mm)
                if note == "no animations":
                    print(f"{label}: no animations, skipped")
                    continue
                status = "ok" if f == 0 else "FAIL"
                line = f"{label}: {p + f} comparisons, {p} passed, {f} failed [{status}]"
                if mm:
                    line += f" ({len(mm)} mismatching values)"
                if note:
                    line += f" - {note}"
                print(line, flush=True)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    if all_mm:
        # at most 3 per model x clip x mode, so one broken clip does not hide the others
        shown = []
        per = {}
        for m in all_mm:
            key = (m.model, m.clip, m.mode)
            if per.get(key, 0) < 3 and len(shown) < args.max_report:
                per[key] = per.get(key, 0) + 1
                shown.append(m)
        kinds = {}
        for m in all_mm:
            k = m.note.split("kind: ")[1].split(" ")[0] if "kind: " in m.note else m.field.upper()
            kinds[k] = kinds.get(k, 0) + 1
        print("\nmismatching values by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
        print(f"{len(shown)} of {len(all_mm)} mismatching values (at most 3 per model/clip/mode):")
        for m in shown:
            print(m)
        print()
    print(f"{total_pass} passed, {total_fail} failed")
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
