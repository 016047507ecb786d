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

/// A KTX2 file of plain UASTC blocks (`levels` mip levels of a `width × height` image, every
/// block `block`), laid out as Binomial's encoder writes it: header, level index, a 44-byte
/// data format descriptor, then the levels, smallest first, 16-byte aligned.
fn uastc_ktx2(width: u32, height: u32, levels: u32, block: [u8; 16]) -> Vec<u8> {
    let dfd_offset = 80 + 24 * levels as usize;
    let mut data_offset = (dfd_offset + 44).next_multiple_of(16);
    let mut index = vec![(0u64, 0u64); levels as usize];
    let mut payload = Vec::new();
    for level in (0..levels).rev() {
        let (w, h) = ((width >> level).max(1), (height >> level).max(1));
        let length = u64::from(w.div_ceil(4) * h.div_ceil(4)) * 16;
        index[level as usize] = (data_offset as u64, length);
        for _ in 0..length / 16 {
            payload.extend_from_slice(&block);
        }
        data_offset += length as usize;
    }
    let mut out = vec![0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, 0x0D, 0x0A, 0x1A, 0x0A];
    let words = [0, 1, width, height, 0, 0, 1, levels, 0, dfd_offset as u32, 44, 0, 0];
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&[0u8; 16]); // no supercompression global data
    for (offset, length) in index {
        for v in [offset, length, length] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    // Data format descriptor: colour model UASTC (166), BT.709, sRGB; 4×4 blocks of 16 bytes;
    // one 128-bit RGB sample.
    let dfd = [44u32, 0, 2 | (40 << 16), 166 | (1 << 8) | (2 << 16), 3 | (3 << 8), 16, 0, 127 << 16, 0, 0, u32::MAX];
    for w in dfd {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.resize((dfd_offset + 44).next_multiple_of(16), 0);
    out.extend_from_slice(&payload);
    out
}

fn set_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

fn set_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn ktx2_headers_that_lie_are_named_before_anything_is_decoded() {
    use decode::ktx2::{Ktx2Error, decode_rgba8, inspect};
    let good = uastc_ktx2(64, 32, 7, [0; 16]);
    let info = inspect(&good).expect("a well-formed header");
    assert_eq!((info.width, info.height, info.levels), (64, 32, 7));
    let full = decode_rgba8(&good, 1 << 16, 1 << 20).expect("decodes");
    assert_eq!((full.width, full.height, full.level, full.pixels.len()), (64, 32, 0, 64 * 32 * 4));
    // A device whose textures are at most 16 texels wide gets mip level 2 (16×8).
    let small = decode_rgba8(&good, 16, 1 << 20).expect("decodes");
    assert_eq!((small.width, small.height, small.level), (16, 8, 2));
    let error = |bytes: &[u8]| inspect(bytes).unwrap_err().to_string();
    let patched = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = good.clone();
        f(&mut bytes);
        bytes
    };

    // Truncations: every cut is refused (the last level ends the file).
    for cut in 0..good.len() {
        assert!(inspect(&good[..cut]).is_err(), "cut at {cut} of {} passed", good.len());
    }
    assert!(error(&good[..100]).contains("truncated"), "{}", error(&good[..100]));
    // Lying level sizes: a level longer than the file, one byte short, an inflated size that
    // UASTC cannot have, a level starting past the end.
    let e = error(&patched(&|b| set_u64(b, 80 + 8, 1 << 40)));
    assert!(e.contains("level 0") && e.contains("outside"), "{e}");
    let e = error(&patched(&|b| set_u64(b, 80 + 8, 64 * 32 - 16)));
    assert!(e.contains("level 0 (64×32)") && e.contains("needs 16 bytes per 4×4 block: 2048"), "{e}");
    let e = error(&patched(&|b| set_u64(b, 80 + 24 + 16, 1 << 33)));
    assert!(e.contains("level 1"), "{e}");
    let e = error(&patched(&|b| set_u64(b, 80, u64::MAX - 3)));
    assert!(e.contains("outside"), "{e}");
    // Huge dimensions: the level sizes cannot match, and the pixel limit refuses the image
    // before a byte of it is decoded.
    let e = error(&patched(&|b| set_u32(b, 20, 1 << 30)));
    assert!(e.contains("level 0"), "{e}");
    match decode_rgba8(&good, 1 << 16, 100) {
        Err(Ktx2Error::TooLarge { width: 64, height: 32, pixels: 2048, limit: 100 }) => {}
        other => panic!("{other:?}"),
    }
    // Fields outside what KHR_texture_basisu allows.
    for (at, value, expected) in [
        (12, 37, "vkFormat 37"),
        (28, 4, "pixelDepth 4"),
        (32, 6, "layerCount 6"),
        (36, 6, "faceCount 6"),
        (40, 0, "levelCount 0"),
        (40, 8, "levelCount 8: a 64×32 image has 1 to 7"),
        (44, 1, "not scheme 1"),
        (52, 48, "48-byte data format descriptor"),
    ] {
        let e = error(&patched(&|b| set_u32(b, at, value)));
        assert!(e.contains(expected), "field at {at} = {value}: {e}");
    }
    let dfd = 80 + 24 * 7;
    let e = error(&patched(&|b| set_u32(b, dfd + 12, 160 | (2 << 16))));
    assert!(e.contains("colour model 160"), "{e}");
    let e = error(&patched(&|b| set_u32(b, 64, 4096)));
    assert!(e.contains("supercompression global data"), "{e}");
}

#[test]
fn ktx2_garbage_is_refused_without_panicking() {
    let good = uastc_ktx2(32, 32, 6, [0x5a; 16]);
    let mut seed = 0x1234_5678_9abc_def1;
    let mut refused = 0;
    for i in 0..2000 {
        let mut data = good.clone();
        let flips = 1 + i % 6;
        for b in bytes(&mut seed, 3 * flips).chunks_exact(3) {
            let at = (usize::from(b[0]) << 8 | usize::from(b[1])) % data.len();
            data[at] ^= b[2] | 1;
        }
        if i % 3 == 0 {
            // Garbage after a valid identifier.
            data = good[..12].to_vec();
            data.extend(bytes(&mut seed, i % 400));
        }
        if decode::ktx2::decode_rgba8(&data, 4096, 1 << 20).is_err() {
            refused += 1;
        }
    }
    println!("{refused} of 2000 corrupted files refused");
    // Flips in block data decode (to other colours); flips in the header and index do not.
    assert!(refused > 800, "only {refused} of 2000 corrupted files refused");
}

/// A varint as Draco writes it (7 bits a byte, low first).
fn varint(mut value: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// The shape of the file that aborted the previous decoder (draco-oxide) with "memory allocation
/// of 4503599627370488 bytes failed": a well-formed sequential header over 1 triangle and 3
/// points whose rANS-coded payload then declares 2^49 − 1 symbols, a probability table of
/// 4.5 PB. Once where the connectivity's indices are entropy coded, once in a quantized position
/// attribute's values, each with the raw and the tagged symbol scheme. Each must come back as
/// a one-line error naming Draco, fast, without touching that memory.
#[test]
fn draco_huge_rans_table_is_a_one_line_error_not_an_abort() {
    let huge_symbols = (1u64 << 49) - 1;
    let mut streams = Vec::new();
    for scheme in [0u8, 1] {
        // Compressed connectivity: the indices' symbols are where the table is declared.
        let mut indices = b"DRACO\x02\x02\x01\x00\x00\x00".to_vec();
        indices.extend_from_slice(&[1, 3, 0, scheme, 5]);
        varint(huge_symbols, &mut indices);
        indices.extend_from_slice(&[0x55; 64]);
        streams.push(("indices", scheme, indices));
        // Raw connectivity (one byte per index), then one quantized float3 attribute whose
        // values are entropy coded.
        let mut attribute = b"DRACO\x02\x02\x01\x00\x00\x00".to_vec();
        attribute.extend_from_slice(&[1, 3, 1, 0, 1, 2]);
        attribute.extend_from_slice(&[1, 1, 0, 9, 3, 0, 0, 2]);
        attribute.extend_from_slice(&[0xfe, 1, scheme, 5]);
        varint(huge_symbols, &mut attribute);
        attribute.extend_from_slice(&[0x55; 64]);
        streams.push(("attribute", scheme, attribute));
    }
    let position = DracoAttribute {
        semantic: "POSITION".to_owned(),
        unique_id: 0,
        components: 3,
        component: DracoComponent::F32,
        normalized: false,
    };
    for (place, scheme, data) in &streams {
        let primitive = DracoPrimitive {
            compressed: data,
            attributes: vec![position.clone()],
            vertex_count: 3,
            index_count: Some(3),
        };
        let started = std::time::Instant::now();
        let error = decode::Decoders.decode_draco(&primitive).unwrap_err();
        println!("{place}, scheme {scheme}: {error} ({:?})", started.elapsed());
        assert!(error.starts_with("Draco") && error.contains("rANS"), "{place}, scheme {scheme}: {error}");
        assert!(!error.contains('\n'), "{place}, scheme {scheme}: not one line: {error}");
    }
}

/// Streams whose counts animtune's header reader leaves to the decoder (metadata before the
/// connectivity, an older bitstream with 32-bit counts) still cannot make it reserve what the
/// accessors do not hold: the decoder gets the accessors' counts as hard limits, so a billion
/// declared faces over a 3-index accessor is a one-line error, at once.
#[test]
fn draco_counts_the_header_reader_skips_are_held_to_the_accessors() {
    let position = DracoAttribute {
        semantic: "POSITION".to_owned(),
        unique_id: 0,
        components: 3,
        component: DracoComponent::F32,
        normalized: false,
    };
    // Bitstream 2.2 with the metadata flag: empty metadata (no attribute metadata, a geometry
    // metadata without entries or children), then a billion faces over 3 points.
    let mut with_metadata = b"DRACO\x02\x02\x01\x00\x00\x80".to_vec();
    with_metadata.extend_from_slice(&[0, 0, 0]);
    varint(1_000_000_000, &mut with_metadata);
    varint(3, &mut with_metadata);
    // Raw connectivity (method 1), then what would be the first indices.
    with_metadata.push(1);
    with_metadata.extend_from_slice(&[0; 64]);
    // Bitstream 2.1: fixed-width counts.
    let mut older = b"DRACO\x02\x01\x01\x00\x00\x00".to_vec();
    older.extend_from_slice(&1_000_000_000u32.to_le_bytes());
    older.extend_from_slice(&3u32.to_le_bytes());
    older.push(1);
    older.extend_from_slice(&[0; 64]);
    // Bitstream 2.1 declaring 1,000 faces whose 3,000 raw indices are all there: the stream
    // pays for them, the accessors do not.
    let mut paid = b"DRACO\x02\x01\x01\x00\x00\x00".to_vec();
    paid.extend_from_slice(&1000u32.to_le_bytes());
    paid.extend_from_slice(&3u32.to_le_bytes());
    paid.push(1);
    paid.extend((0..3000).map(|i| (i % 3) as u8));
    // The first two are refused because the stream is too short for what it declares (every
    // reservation is bounded by the stream's length), the third by the accessors' ceiling.
    for (name, stream, reason) in [
        ("metadata first", with_metadata, "Not enough data"),
        ("bitstream 2.1", older, "Not enough data"),
        ("2.1, indices present", paid, "1000 faces, over the caller's ceiling of 1"),
    ] {
        assert_eq!(decode::draco::declared_counts(&stream), Ok(None), "{name}: the header reader skips it");
        let primitive = DracoPrimitive {
            compressed: &stream,
            attributes: vec![position.clone()],
            vertex_count: 3,
            index_count: Some(3),
        };
        let started = std::time::Instant::now();
        let error = decode::Decoders.decode_draco(&primitive).unwrap_err();
        let elapsed = started.elapsed();
        println!("{name}: {error} ({elapsed:?})");
        assert!(error.starts_with("Draco") && !error.contains('\n') && error.contains(reason), "{name}: {error}");
        assert!(elapsed < std::time::Duration::from_millis(100), "{name}: took {elapsed:?}");
    }
}

/// Found by the `decoders` fuzz target (2026-12-02, second run): a 290-byte Draco 2.2 edgebreaker
/// stream (after the target's 3-byte prefix) whose multi-parallelogram prediction keeps
/// draco-core 2.3.3 busy for more than a minute (`compute_parallelogram_prediction` under
/// `decode_values`): no panic, no allocation, but no answer. Neither animtune's count checks nor
/// the decoder's limits bound that work, so the decoder runs on its own thread under a time budget
/// (5 s plus 20 µs per declared point and face) and the import answers with an error when it runs
/// out; the decoder's thread is left to finish on its own.
#[test]
fn draco_fuzz_timeout_multi_parallelogram_is_given_up_with_an_error() {
    let hex: String = [
        "010100445241434f02020101000000b203c00400be044306474717451d0aa60146223d130a3eb1017fdaf7a954bb5669",
        "6979bf78fab4aad56f8dd256cb9ff54d4b4b976a953edeb59ebe516f976a55abadf2ed69abbe3cca53fa68e9fbb5a93e",
        "55f52ef554fbe0dbdef5eda3a9f6d1fa1ac4f2ff5bf7276f534fd5d62efdba35d27d5dd3b65aa5b4aa4b95aa527d174a",
        "0ba5ada595f779536d3da50ff5bc41df6d6d95a7d547bf464f1f6ff7af6beb6955f354d7a590afcffa2d7fa21eedd6f5",
        "6fb26eddfed49a164595f23555aa4ad59a6a29ad6a5b5db700db03e6e04201ff00000400090300000309020001040404",
        "0002040904000302020100020000000000000000000000000000000067010000004da362011f5dca7a00000000000000",
        "0000003f0c",
    ]
    .concat();
    let input: Vec<u8> =
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0)).collect();
    let stream = &input[3..];
    let position = DracoAttribute {
        semantic: "POSITION".to_owned(),
        unique_id: 0,
        components: 3,
        component: DracoComponent::F32,
        normalized: false,
    };
    let counts = decode::draco::declared_counts(stream).ok().flatten();
    let (vertex_count, index_count) = counts.map_or((16, 0), |c| (c.vertices as usize, c.faces as usize * 3));
    let primitive =
        DracoPrimitive { compressed: stream, attributes: vec![position], vertex_count, index_count: Some(index_count) };
    let budget_secs = 5.0 + 20e-6 * (vertex_count as f64 + index_count as f64 / 3.0);
    let started = std::time::Instant::now();
    let outcome = decode::Decoders.decode_draco(&primitive);
    let took = started.elapsed().as_secs_f64();
    assert!(took < budget_secs + 2.0, "took {took} s against a budget of {budget_secs} s");
    let error = format!("{outcome:?}");
    assert!(
        error.starts_with("Err(") && error.contains("still decoding after"),
        "a looping stream is refused: {error}"
    );

    // A file of three such primitives, decoded in the background while the import goes on: the
    // first gives up within its budget and the others are not waited for (nor started), so the
    // import fails in one budget, not three.
    let three = [primitive.clone(), primitive.clone(), primitive];
    let started = std::time::Instant::now();
    let pending = decode::draco::start(&three, usize::MAX);
    let returned = started.elapsed().as_secs_f64();
    assert!(returned < 0.5, "start returned after {returned} s: it must not wait for the decoder");
    let outcomes = pending.wait();
    let took = started.elapsed().as_secs_f64();
    assert!(took < budget_secs + 2.0, "three looping primitives took {took} s against a budget of {budget_secs} s");
    assert_eq!(outcomes.len(), 3);
    let errors: Vec<String> = outcomes.into_iter().map(|o| o.err().unwrap_or_default()).collect();
    assert!(errors[0].contains("still decoding after"), "{errors:?}");
    assert!(errors[1..].iter().all(|e| e.contains("not decoded: an earlier Draco primitive failed")), "{errors:?}");
}

/// Found by the `decoders` fuzz target (7 December 2026, after ~900,000 inputs on each of two
/// workers): a valid triangle index stream with the octahedral filter asked for at a 2-byte
/// stride made the filter's component size 0 and its shift overflow (a panic). The importer
/// never asks for that (filters are for attributes, octahedral at stride 4 or 8), but the decoder
/// answers it with an error of its own.
#[test]
fn meshopt_filter_on_indices_is_an_error_not_an_overflow() {
    let compressed = [
        0xe1, 0x51, 0xb7, 0x2e, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf6, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xa4, 0xf4, 0x2b, 0x90, 0xff, 0x03, 0x00, 0x00, 0xff, 0x01, 0x00, 0x79, 0x00, 0xff, 0x02, 0x89, 0x00,
        0xff, 0x02, 0x89, 0x44, 0x0a,
    ];
    let view = MeshoptView {
        extension: "EXT_meshopt_compression",
        compressed: &compressed,
        count: 18,
        byte_stride: 2,
        mode: MeshoptMode::Triangles,
        filter: MeshoptFilter::Octahedral,
    };
    let mut out = vec![0u8; 18 * 2];
    let error = decode::Decoders.decode_meshopt(&view, &mut out).expect_err("a filter on indices");
    assert!(error.contains("filter applies to attributes"), "{error}");
    // The same stream without the filter decodes: the error is the filter's, not the stream's.
    let unfiltered = MeshoptView { filter: MeshoptFilter::None, ..view };
    decode::Decoders.decode_meshopt(&unfiltered, &mut out).expect("the index stream itself is valid");
}
