//! The compressed-data decoders on hostile bytes: the meshopt codecs and filters with every
//! stride and mode, the Draco decoder (through its count pre-check), the KTX2 container checks
//! and the Basis Universal transcoder (`KHR_texture_basisu`), and whole files through the
//! importer with every decoder. The first byte picks the target, the next two the shape.
#![no_main]

use anim::import::{Decoder, DracoAttribute, DracoComponent, DracoPrimitive, Limits, MeshoptFilter, MeshoptMode, MeshoptView};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let &[selector, a, b, ref rest @ ..] = data else { return };
    let decoders = decode::Decoders;
    match selector % 4 {
        0 => {
            let mode = [MeshoptMode::Attributes, MeshoptMode::Triangles, MeshoptMode::Indices][usize::from(a % 3)];
            let filter = [MeshoptFilter::None, MeshoptFilter::Octahedral, MeshoptFilter::Quaternion, MeshoptFilter::Exponential]
                [usize::from((a / 3) % 4)];
            let byte_stride = match mode {
                MeshoptMode::Attributes => 4 * (1 + usize::from(b % 64)),
                _ => 2 + 2 * usize::from(b % 2),
            };
            let count = usize::from(a / 12) * 3 + 3;
            let view = MeshoptView { extension: "EXT_meshopt_compression", compressed: rest, count, byte_stride, mode, filter };
            let mut out = vec![0u8; count * byte_stride];
            let _ = decoders.decode_meshopt(&view, &mut out);
        }
        1 => {
            let attribute = DracoAttribute {
                semantic: "POSITION".to_owned(),
                unique_id: u32::from(b % 4),
                components: 3,
                component: DracoComponent::F32,
                normalized: false,
            };
            // Odd `a`: accessors that agree with the stream's header (as a real file's do,
            // up to the importer's limits), so real streams reach the decoder; even `a`:
            // accessors that disagree with it.
            let declared = decode::draco::declared_counts(rest).ok().flatten();
            let (vertex_count, index_count) = match declared {
                Some(counts) if a % 2 == 1 && counts.vertices <= 1 << 20 && counts.faces <= 1 << 20 => {
                    (counts.vertices as usize, Some(counts.faces as usize * 3))
                }
                _ => (usize::from(a) * 16, Some(usize::from(b) * 48)),
            };
            let primitive = DracoPrimitive { compressed: rest, attributes: vec![attribute], vertex_count, index_count };
            let _ = decoders.decode_draco(&primitive);
        }
        2 => {
            // A texture-size limit (the device's) and a pixel limit, as the renderer passes them.
            let max_side = 1u32 << (a % 14);
            let _ = decode::ktx2::decode_rgba8(rest, max_side, u64::from(b) << 12);
        }
        _ => {
            let _ = decode::load_slice(rest, None, &Limits::default());
        }
    }
});
