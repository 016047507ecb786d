#!/usr/bin/env python3
"""A "new export" of a GLB for the A/B screenshots: in clip CLIP, each listed left joint plays the
keys of its right twin (only those channels change). Usage: ab-variant.py IN.glb OUT.glb CLIP J1,J2"""
import json, struct, sys
src, dst, clip, joints = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(',')
data = open(src, 'rb').read()
jlen = struct.unpack_from('<I', data, 12)[0]
doc = json.loads(data[20:20+jlen])
rest = data[20+jlen:]
names = [n.get('name') for n in doc['nodes']]
anim = next(a for a in doc['animations'] if a.get('name') == clip)
other = {'LowerArm.L': 'LowerArm.R', 'Foot.L': 'Foot.R', 'UpperArm.L': 'UpperArm.R'}
for j in joints:
    node = names.index(j); twin = names.index(other[j])
    ch = next(c for c in anim['channels'] if c['target'].get('node') == node and c['target']['path'] == 'rotation')
    tw = next(c for c in anim['channels'] if c['target'].get('node') == twin and c['target']['path'] == 'rotation')
    ch['sampler'] = tw['sampler']   # the left joint now plays the right joint's keys
js = json.dumps(doc, separators=(',', ':')).encode()
js += b' ' * ((4 - len(js) % 4) % 4)
out = b'glTF' + struct.pack('<II', 2, 12 + 8 + len(js) + len(rest)) + struct.pack('<I', len(js)) + b'JSON' + js + rest
open(dst, 'wb').write(out)
