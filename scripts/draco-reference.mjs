// Decode every KHR_draco_mesh_compression primitive of a .glb with Google's Draco decoder
// (draco3dgltf, the WebAssembly build gltf-transform uses; installed into .tools/ with
// @gltf-transform/cli by scripts/install-test-deps.sh), or a bare Draco stream with its full
// build (npm draco3d, installed beside it), and dump what it decoded, so
// crates/decode/tests/draco_reference.rs can compare animtune's decoder with it attribute by
// attribute.
//
// Usage: node scripts/draco-reference.mjs IN.glb OUT_DIR   (or IN.gltf, its buffer 0 a file)
//        node scripts/draco-reference.mjs IN.drc OUT_DIR   (a bare Draco stream)
// Writes OUT_DIR/index.json and, per primitive `m<mesh>p<prim>` (a bare stream: `stream`): the
// compressed stream (`.drc`), the triangle indices as little-endian u32 (`.idx`), and per
// attribute its values for every point in the accessor's component type, little-endian
// (`.<uniqueId>.bin`; a bare stream: `.a<index>.bin` in the attribute's own type, floats for
// types glTF has no accessor for).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', '.tools', 'package.json'));
const draco3d = require('draco3dgltf');

const [input, outDir] = process.argv.slice(2);
if (!input || !outDir) {
    console.error('usage: node scripts/draco-reference.mjs IN.glb OUT_DIR');
    process.exit(2);
}

const types = {
    5120: ['DT_INT8', Int8Array],
    5121: ['DT_UINT8', Uint8Array],
    5122: ['DT_INT16', Int16Array],
    5123: ['DT_UINT16', Uint16Array],
    5125: ['DT_UINT32', Uint32Array],
    5126: ['DT_FLOAT32', Float32Array],
};
const componentsOf = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };

const glb = fs.readFileSync(input);
const bare = glb.subarray(0, 5).toString('latin1') === 'DRACO';
// draco3dgltf decodes what glTF files hold (bitstream 2.2 meshes); Google's test streams also
// hold older bitstreams and point clouds, which its full build (npm `draco3d`) decodes.
const decoderModule = await (bare ? require('draco3d') : draco3d).createDecoderModule({});
if (bare) {
    bareStream(glb);
    process.exit(0);
}
let json = null;
let bin = null;
if (input.endsWith('.gltf')) {
    // A .gltf with its first buffer in a file beside it.
    json = JSON.parse(glb.toString('utf8'));
    bin = fs.readFileSync(path.join(path.dirname(input), json.buffers[0].uri));
} else {
    if (glb.readUInt32LE(0) !== 0x46546c67) throw new Error(`${input}: not a .glb, .gltf or Draco stream`);
    for (let at = 12; at + 8 <= glb.length;) {
        const length = glb.readUInt32LE(at);
        const type = glb.readUInt32LE(at + 4);
        const chunk = glb.subarray(at + 8, at + 8 + length);
        if (type === 0x4e4f534a) json = JSON.parse(chunk.toString('utf8'));
        else if (type === 0x004e4942) bin = chunk;
        at += 8 + length;
    }
}
if (!json || !bin) throw new Error(`${input}: no JSON or BIN chunk`);

fs.mkdirSync(outDir, { recursive: true });
const index = [];
for (const [m, mesh] of (json.meshes ?? []).entries()) {
    for (const [p, prim] of mesh.primitives.entries()) {
        const ext = prim.extensions?.KHR_draco_mesh_compression;
        if (!ext) continue;
        const view = json.bufferViews[ext.bufferView];
        if ((view.buffer ?? 0) !== 0) throw new Error('only the GLB buffer is read');
        const stream = bin.subarray(view.byteOffset ?? 0, (view.byteOffset ?? 0) + view.byteLength);
        const name = `m${m}p${p}`;
        fs.writeFileSync(path.join(outDir, `${name}.drc`), stream);

        const decoder = new decoderModule.Decoder();
        const buffer = new decoderModule.DecoderBuffer();
        buffer.Init(new Int8Array(stream.buffer, stream.byteOffset, stream.byteLength), stream.byteLength);
        const dracoMesh = new decoderModule.Mesh();
        const status = decoder.DecodeBufferToMesh(buffer, dracoMesh);
        if (!status.ok()) throw new Error(`${name}: draco3d: ${status.error_msg()}`);
        const points = dracoMesh.num_points();
        const faces = dracoMesh.num_faces();

        const indexBytes = faces * 3 * 4;
        const indexPtr = decoderModule._malloc(indexBytes);
        decoder.GetTrianglesUInt32Array(dracoMesh, indexBytes, indexPtr);
        const indices = new Uint32Array(decoderModule.HEAPU8.buffer, indexPtr, faces * 3).slice();
        decoderModule._free(indexPtr);
        fs.writeFileSync(path.join(outDir, `${name}.idx`), Buffer.from(indices.buffer));

        const attributes = [];
        for (const [semantic, uniqueId] of Object.entries(ext.attributes)) {
            const accessor = json.accessors[prim.attributes[semantic]];
            const [dataType, Array] = types[accessor.componentType];
            const components = componentsOf[accessor.type];
            const attribute = decoder.GetAttributeByUniqueId(dracoMesh, uniqueId);
            const count = points * components;
            const bytes = count * Array.BYTES_PER_ELEMENT;
            const ptr = decoderModule._malloc(bytes);
            const ok = decoder.GetAttributeDataArrayForAllPoints(dracoMesh, attribute, decoderModule[dataType], bytes, ptr);
            if (!ok) throw new Error(`${name} ${semantic}: draco3d could not read the attribute`);
            const values = new Array(decoderModule.HEAPU8.buffer, ptr, count).slice();
            decoderModule._free(ptr);
            const file = `${name}.${uniqueId}.bin`;
            fs.writeFileSync(path.join(outDir, file), Buffer.from(values.buffer));
            attributes.push({
                semantic,
                uniqueId,
                componentType: accessor.componentType,
                components,
                normalized: accessor.normalized ?? false,
                file,
            });
        }
        index.push({ mesh: m, primitive: p, name, points, faces, indexCount: prim.indices === undefined ? null : json.accessors[prim.indices].count, vertexCount: json.accessors[Object.values(prim.attributes)[0]].count, attributes });
        decoderModule.destroy(dracoMesh);
        decoderModule.destroy(buffer);
        decoderModule.destroy(decoder);
    }
}
fs.writeFileSync(path.join(outDir, 'index.json'), JSON.stringify(index, null, 1));
console.log(`${index.length} Draco primitives decoded by draco3d`);

// A bare Draco stream (Google's test data): every attribute, in its own data type where glTF
// has an accessor component type for it, else as floats.
function bareStream(stream) {
    const gltfType = { 1: 5120, 2: 5121, 3: 5122, 4: 5123, 6: 5125, 9: 5126 };
    const typeNames = ['INVALID', 'POSITION', 'NORMAL', 'COLOR', 'TEX_COORD', 'GENERIC'];
    const decoder = new decoderModule.Decoder();
    const buffer = new decoderModule.DecoderBuffer();
    buffer.Init(new Int8Array(stream.buffer, stream.byteOffset, stream.byteLength), stream.byteLength);
    const mesh = decoder.GetEncodedGeometryType(buffer) === decoderModule.TRIANGULAR_MESH;
    const geometry = mesh ? new decoderModule.Mesh() : new decoderModule.PointCloud();
    const status = mesh ? decoder.DecodeBufferToMesh(buffer, geometry) : decoder.DecodeBufferToPointCloud(buffer, geometry);
    if (!status.ok()) throw new Error(`${input}: draco3d: ${status.error_msg()}`);
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, 'stream.drc'), stream);
    const points = geometry.num_points();
    const faces = mesh ? geometry.num_faces() : 0;
    if (mesh) {
        const indexBytes = faces * 3 * 4;
        const indexPtr = decoderModule._malloc(indexBytes);
        decoder.GetTrianglesUInt32Array(geometry, indexBytes, indexPtr);
        const indices = new Uint32Array(decoderModule.HEAPU8.buffer, indexPtr, faces * 3).slice();
        decoderModule._free(indexPtr);
        fs.writeFileSync(path.join(outDir, 'stream.idx'), Buffer.from(indices.buffer));
    }
    const attributes = [];
    for (let i = 0; i < geometry.num_attributes(); i++) {
        const attribute = decoder.GetAttribute(geometry, i);
        const componentType = gltfType[attribute.data_type()] ?? 5126;
        const [dataType, Array] = types[componentType];
        const components = attribute.num_components();
        const count = points * components;
        const bytes = count * Array.BYTES_PER_ELEMENT;
        const ptr = decoderModule._malloc(bytes);
        const ok = decoder.GetAttributeDataArrayForAllPoints(geometry, attribute, decoderModule[dataType], bytes, ptr);
        if (!ok) throw new Error(`${input} attribute ${i}: draco3d could not read it`);
        const values = new Array(decoderModule.HEAPU8.buffer, ptr, count).slice();
        decoderModule._free(ptr);
        const uniqueId = attribute.unique_id();
        // Streams before bitstream 1.3 may repeat unique ids (Google's old encoders wrote 0).
        const file = `stream.a${i}.bin`;
        fs.writeFileSync(path.join(outDir, file), Buffer.from(values.buffer));
        attributes.push({
            semantic: `${typeNames[attribute.attribute_type() + 1] ?? 'GENERIC'}_${uniqueId}`,
            uniqueId,
            componentType,
            components,
            normalized: attribute.normalized(),
            file,
        });
    }
    const index = [{ mesh: 0, primitive: 0, name: 'stream', points, faces, indexCount: mesh ? faces * 3 : null, vertexCount: points, attributes }];
    fs.writeFileSync(path.join(outDir, 'index.json'), JSON.stringify(index, null, 1));
    decoderModule.destroy(geometry);
    decoderModule.destroy(buffer);
    decoderModule.destroy(decoder);
    console.log(`${mesh ? 'a mesh' : 'a point cloud'} of ${points} points decoded by draco3d`);
}
