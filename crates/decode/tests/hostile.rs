//! Hostile bytes into every decoder: no panic, no hang, errors for garbage. (The cargo-fuzz
//! target `fuzz/fuzz_targets/decoders.rs` runs the same for hours on nightly.)

use anim::import::{Decoder, DracoAttribute, DracoComponent, DracoPrimitive, MeshoptFilter, MeshoptMode, MeshoptView};

/// A small deterministic xorshift stream.
fn bytes(seed: &mut u64, n: usize) -> Vec<u8> {
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            (*seed >> 24) as u8
        })
        .collect()
}

#[test]
fn meshopt_codecs_refuse_garbage_without_panicking() {
    let mut seed = 0x9e37_79b9_7f4a_7c15;
    let mut refused = 0;
    let cases = 3000;
    for i in 0..cases {
        let mode = [MeshoptMode::Attributes, MeshoptMode::Triangles, MeshoptMode::Indices][i % 3];
        let filter = match mode {
            MeshoptMode::Attributes => {
                [MeshoptFilter::None, MeshoptFilter::Exponential, MeshoptFilter::Quaternion][i % 3]
            }
            _ => MeshoptFilter::None,
        };
        let byte_stride = match (mode, filter) {
            (_, MeshoptFilter::Quaternion) => 8,
            (MeshoptMode::Attributes, _) => 4 * (1 + i % 16),
            _ => 2 + 2 * (i % 2),
        };
        let count = 3 * (1 + i % 200);
        let mut data = bytes(&mut seed, i % 700);
        // Half the cases start with a valid header so the decoders get past it.
        if i % 2 == 0 && !data.is_empty() {
            data[0] = match mode {
                MeshoptMode::Attributes => 0xa0 | (i as u8 / 2 % 2),
                MeshoptMode::Triangles => 0xe1,
                MeshoptMode::Indices => 0xd1,
            };
        }
        let view =
            MeshoptView { extension: "EXT_meshopt_compression", compressed: &data, count, byte_stride, mode, filter };
        let mut out = vec![0u8; count * byte_stride];
        if decode::Decoders.decode_meshopt(&view, &mut out).is_err() {
            refused += 1;
        }
    }
    assert!(refused > cases * 9 / 10, "only {refused} of {cases} garbage streams refused");
}

#[test]
fn draco_refuses_garbage_and_lying_counts() {
    let mut seed = 0x2545_f491_4f6c_dd1d;
    let attribute = DracoAttribute {
        semantic: "POSITION".to_owned(),
        unique_id: 0,
        components: 3,
        component: DracoComponent::F32,
        normalized: false,
    };
    for i in 0..1500 {
        // A Draco 2.2 mesh header (sequential or edgebreaker), then garbage.
        let mut data = b"DRACO\x02\x02\x01".to_vec();
        data.push((i % 2) as u8);
        data.extend_from_slice(&[0, 0]);
        let n = i % 400;
        data.extend(bytes(&mut seed, n));
        let primitive = DracoPrimitive {
            compressed: &data,
            attributes: vec![attribute.clone()],
            vertex_count: 8 + i % 100,
            index_count: Some(3 * (4 + i % 50)),
        };
        assert!(decode::Decoders.decode_draco(&primitive).is_err(), "garbage case {i} decoded");
    }
    // A stream declaring a billion faces is refused from its header, before decoding.
    let mut data = b"DRACO\x02\x02\x01\x00\x00\x00".to_vec();
    data.extend_from_slice(&[0x80, 0x94, 0xeb, 0xdc, 0x03, 8]);
    let primitive =
        DracoPrimitive { compressed: &data, attributes: vec![attribute], vertex_count: 8, index_count: Some(36) };
    let error = decode::Decoders.decode_draco(&primitive).unwrap_err();
    assert!(error.contains("declares 1000000000 triangles"), "{error}");
}
