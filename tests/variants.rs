//! Files people have: every shared skinned model (and the built-in character) converted by an
//! independent encoder (gltf-transform) to Draco, meshopt (geometry *and* animation, with the
//! quaternion, exponential and octahedral filters), quantized and WebP-textured variants, then
//! opened with animtune's decoders and sampled against the original: every animated node of
//! every clip at 9 times, within the quantization's tolerance. (Their silhouettes are compared
//! on the GPU in `tests/render.rs`.)

use std::collections::HashMap;

use anim::{ExtensionStatus, Interpolation, InterpolationOverride, Model, NodePose, Property};
use animtune::cli::render::sample_pose;
use animtune::render::framing::{CpuPoser, drawn_nodes};
use devtools::variants::{self, Variant};

/// Worst differences between a variant's and its original's sampled local transforms.
#[derive(Debug, Default, Clone, Copy)]
struct Errors {
    /// Largest translation difference over the model's size (bounds diagonal of its
    /// translations), so one number fits metres and centimetres alike.
    translation_rel: f32,
    /// Largest rotation difference, radians.
    rotation_rad: f32,
    /// Largest scale difference over the largest scale component.
    scale: f32,
    /// Transforms compared.
    compared: usize,
}

/// Node of `variant` for each node of `original`: by name where names are unique, else by
/// index when both have the same node count (gltf-transform prunes unused nodes).
fn node_map(original: &Model, variant: &Model) -> Vec<Option<usize>> {
    let mut names: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, node) in variant.nodes().iter().enumerate() {
        if let Some(name) = &node.name {
            names.entry(name).or_default().push(i);
        }
    }
    original
        .nodes()
        .iter()
        .enumerate()
        .map(|(i, node)| match node.name.as_deref().and_then(|n| names.get(n)) {
            Some(found) if found.len() == 1 => Some(found[0]),
            _ if original.nodes().len() == variant.nodes().len() => Some(i),
            _ => None,
        })
        .collect()
}

/// Compare every animated node of every clip at 9 times (and, for tracks `exact_at_keys_only`
/// leaves out between keys, at their key times). Mesh nodes are left out unless
/// `mesh_nodes_kept` (variants that change only images keep them exactly).
fn compare(
    original: &Model,
    variant: &Model,
    keys_only: impl Fn(&anim::Track) -> bool,
    mesh_nodes_kept: bool,
) -> Errors {
    let map = node_map(original, variant);
    let mut errors = Errors::default();
    assert_eq!(original.clips().len(), variant.clips().len(), "clip count");
    for (c, clip) in original.clips().iter().enumerate() {
        let animated: Vec<usize> = clip.animated_nodes().into_iter().map(anim::NodeId::index).collect();
        // Rotation tracks compared only at their own key times: node → those times.
        let keys_only_nodes: HashMap<usize, &[f32]> = clip
            .tracks()
            .iter()
            .filter(|t| t.values.property() == Property::Rotation && keys_only(t))
            .map(|t| (t.node.index(), clip.timelines()[t.timeline].times_secs.as_slice()))
            .collect();
        let (start, end) = (clip.start_secs(), clip.end_secs());
        let mut times: Vec<f32> = (0..9).map(|i| start + (end - start) * i as f32 / 8.0).collect();
        for key_times in keys_only_nodes.values() {
            times.extend(key_times.iter().take(24));
        }
        let mut extent = 1e-6f32;
        let mut scale_extent = 1e-6f32;
        let mut samples = Vec::new();
        for &t in &times {
            let clip = Some(anim::ClipId::from_index(c));
            let a = NodePose::from(&sample_pose(original, clip, t, InterpolationOverride::Authored));
            let b = NodePose::from(&sample_pose(variant, clip, t, InterpolationOverride::Authored));
            for &n in &animated {
                extent = extent.max(a.translations[n].length());
                scale_extent = scale_extent.max(a.scales[n].abs().max_element());
            }
            samples.push((t, a, b));
        }
        for (t, a, b) in &samples {
            for &n in &animated {
                let Some(m) = map[n] else { continue };
                // A mesh node's own transform may absorb the dequantization of its mesh
                // (KHR_mesh_quantization's node transform, keys included): compared in world
                // space by `posed_bounds_error` instead.
                if original.nodes()[n].mesh.is_some() && !mesh_nodes_kept {
                    continue;
                }
                let dt = (a.translations[n] - b.translations[m]).length() / extent;
                let ds = (a.scales[n] - b.scales[m]).abs().max_element() / scale_extent;
                errors.translation_rel = errors.translation_rel.max(dt);
                errors.scale = errors.scale.max(ds);
                if keys_only_nodes.get(&n).is_none_or(|keys| keys.contains(t)) {
                    // Angle of the relative rotation, precise near zero (acos of a dot is not
                    // in f32).
                    let r = a.rotations[n].inverse() * b.rotations[m];
                    let dr = 2.0 * r.xyz().length().atan2(r.w.abs());
                    errors.rotation_rad = errors.rotation_rad.max(dr);
                }
                errors.compared += 1;
            }
        }
    }
    errors
}

/// Largest difference between the posed bounds (CPU morph + skin, world frame) of the two
/// models over clip 0 (or the rest pose), over the bounds' diagonal.
fn posed_bounds_error(original: &Model, variant: &Model) -> f32 {
    let mut worst = 0.0f32;
    let clip = (!original.clips().is_empty()).then(|| anim::ClipId::from_index(0));
    let end = original.clips().first().map_or(0.0, anim::Clip::end_secs);
    for i in 0..5 {
        let t = end * i as f32 / 4.0;
        let bounds = |m: &Model| {
            let pose = sample_pose(m, clip, t, InterpolationOverride::Authored);
            CpuPoser::default().pose_bounds(m, &pose, &drawn_nodes(m))
        };
        let (a, b) = (bounds(original), bounds(variant));
        let size = (a.max - a.min).length().max(1e-6);
        worst = worst.max((a.min - b.min).abs().max_element() / size).max((a.max - b.max).abs().max_element() / size);
    }
    worst
}

/// Tolerances of each variant, from what the encoder keeps (gltf-transform 4.5 defaults):
/// draco and WebP leave animation untouched (exact up to f32 noise); quantize leaves keys as
/// floats; meshopt stores rotations as 16-bit quaternion-filtered shorts (about 2^-14.5 per
/// component, 1e-4 rad; the filter rebuilds the dropped component assuming unit length, so
/// `SimpleSkin`'s keys of (0, 0, 0.707, 0.707), 1.5e-4 short of unit, come back tilted by
/// 3e-4 rad: the tolerance is 4e-4) and translations and scales through the exponential filter with
/// 12-bit signed mantissas: half a step of 2^-11 of a vector's largest component, so at most
/// 2^-11 ≈ 4.9e-4 of the largest value.
fn tolerance(variant: Variant) -> Errors {
    match variant {
        Variant::Meshopt => Errors { translation_rel: 4.9e-4, rotation_rad: 4e-4, scale: 4.9e-4, compared: 0 },
        _ => Errors { translation_rel: 1e-5, rotation_rad: 1e-5, scale: 1e-5, compared: 0 },
    }
}

#[test]
fn every_variant_opens_and_samples_like_its_original() {
    let Some(tool) = variants::gltf_transform() else { return };
    if devtools::ci::shared_models("the variant tests").is_none() {
        return;
    }
    let limits = anim::import::Limits::default();
    let mut report = Vec::new();
    for (relative, variant) in variants::pairs() {
        let Some(source) = variants::source(relative) else { panic!("{relative} is missing") };
        let original = devtools::load(&source);
        let path = variants::variant(&tool, &source, variant);
        let loaded = decode::load_path(&path, &limits).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // The encoder really used the extension, and animtune decoded it.
        let used = loaded.extensions.iter().find(|e| e.name == variant.extension());
        let used = used.unwrap_or_else(|| panic!("{relative} {variant:?}: {} not used", variant.extension()));
        assert_eq!(used.status, ExtensionStatus::Decoded, "{relative} {variant:?}");
        let vertices =
            |m: &Model| m.meshes().iter().flat_map(|m| &m.primitives).map(|p| p.positions.len()).sum::<usize>();
        assert!(vertices(&loaded) > 0, "{relative} {variant:?}: no geometry");
        // gltf-transform's meshopt applies the quaternion filter to CUBICSPLINE rotation
        // outputs too, whose tangents are not unit quaternions and cannot survive it (the
        // filter rebuilds a unit quaternion): those tracks are exact only at their keys.
        let keys_only = |t: &anim::Track| variant == Variant::Meshopt && t.interpolation == Interpolation::CubicSpline;
        let errors = compare(&original, &loaded, keys_only, variant.textures());
        let limit = tolerance(variant);
        report.push(format!(
            "{relative} {variant:?}: {} transforms, translation {:.2e} (relative), rotation {:.2e} rad, scale {:.2e}",
            errors.compared, errors.translation_rel, errors.rotation_rad, errors.scale
        ));
        // (Two texture models have no node animation: a morph-weights-only and a static one.)
        let none_animated = original.clips().iter().all(|c| c.animated_nodes().is_empty());
        assert!(
            errors.compared > 0 || (variants::texture_model(relative) && none_animated),
            "{relative} {variant:?}: no animated node matched"
        );
        // Positions are quantized to 14 bits of the mesh's extent (2^-14 ≈ 6e-5), normals and
        // texture coordinates do not move the bounds.
        let bounds = posed_bounds_error(&original, &loaded);
        report.push(format!("    posed bounds differ by {bounds:.2e} of their diagonal"));
        assert!(bounds < 2e-4, "{relative} {variant:?}: posed bounds differ by {bounds:.2e} of their diagonal");
        assert!(
            errors.translation_rel <= limit.translation_rel
                && errors.rotation_rad <= limit.rotation_rad
                && errors.scale <= limit.scale,
            "{relative} {variant:?} samples differently from the original: {errors:?} (limit {limit:?})"
        );
    }
    println!("{}", report.join("\n"));
}

/// Per-channel mean absolute difference (0–255) and the PSNR over the colour channels between
/// two RGBA8 images of one size.
#[derive(Debug, Clone, Copy)]
struct PixelError {
    mean_abs: [f64; 4],
    psnr_db: f64,
}

fn pixel_error(a: &image::RgbaImage, b: &image::RgbaImage) -> PixelError {
    assert_eq!(a.dimensions(), b.dimensions(), "image sizes");
    let mut sum = [0f64; 4];
    let mut squared = 0f64;
    for (p, q) in a.pixels().zip(b.pixels()) {
        for (c, (total, (x, y))) in sum.iter_mut().zip(p.0.iter().zip(q.0)).enumerate() {
            let d = f64::from(*x) - f64::from(y);
            *total += d.abs();
            if c < 3 {
                squared += d * d;
            }
        }
    }
    let n = f64::from(a.width() * a.height());
    let mse = squared / (3.0 * n);
    PixelError { mean_abs: sum.map(|s| s / n), psnr_db: 10.0 * (255.0 * 255.0 / mse.max(1e-12)).log10() }
}

/// The base colour image of each material of a model, decoded to RGBA8 (PNG/JPEG by the
/// `image` crate, KTX2 by animtune's transcoder).
fn base_colour_images(model: &Model) -> Vec<(usize, image::RgbaImage)> {
    model
        .materials()
        .iter()
        .enumerate()
        .filter_map(|(m, material)| Some((m, &model.images[material.base_color_texture?.image])))
        .map(|(m, image)| {
            let rgba = if decode::ktx2::is_ktx2(&image.bytes) {
                let d = decode::ktx2::decode_rgba8(&image.bytes, u32::MAX, u64::MAX).expect("KTX2 transcodes");
                assert_eq!(d.level, 0, "level 0 decoded");
                image::RgbaImage::from_raw(d.width, d.height, d.pixels).expect("RGBA8")
            } else {
                image::load_from_memory(&image.bytes).expect("PNG/JPEG decodes").to_rgba8()
            };
            (m, rgba)
        })
        .collect()
}

/// Level 0 of `ktx2` decoded by Binomial's own transcoder (`basisu -unpack`, the C++ reference
/// inside the encoder binary): ETC1S through its ETC1 output, UASTC through its ASTC output
/// (both lossless transcodes of the source blocks), as the PNG it writes.
fn reference_decode(basisu: &std::path::Path, ktx2: &[u8], uastc: bool, name: &str) -> image::RgbaImage {
    let dir = temp_path(&format!("unpack-{name}"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("t.ktx2"), ktx2).expect("write");
    let mut command = std::process::Command::new(basisu);
    command.current_dir(&dir).args(["-unpack", "-no_ktx", "-file", "t.ktx2"]);
    if !uastc {
        command.arg("-etc1_only");
    }
    let output = command.output().expect("run basisu");
    assert!(output.status.success(), "basisu -unpack: {}", String::from_utf8_lossy(&output.stdout));
    let png =
        dir.join(if uastc { "t_unpacked_rgb_ASTC_RGBA_0_0_0000.png" } else { "t_unpacked_rgb_ETC1_RGB_0_0_0000.png" });
    let image = image::open(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display())).to_rgba8();
    let _ = std::fs::remove_dir_all(&dir);
    image
}

/// `KHR_texture_basisu`: the base colour textures of the textured models, encoded by Binomial's
/// encoder to ETC1S (`BasisLZ`) and UASTC (Zstandard and plain), decode to the original image
/// within each codec's error, and exactly as Binomial's reference transcoder decodes them.
///
/// Tolerances, from measured values (basisu 1.15 defaults: ETC1S `-q 128`, UASTC level 2)
/// with margin. ETC1S, 4×4 blocks of one base colour per half-block and 2-bit intensity
/// selectors drawn from shared codebooks, reaches 34.6 dB (`CesiumMan`), 35.6 dB (Fox), 36.2 to
/// 57.3 dB on the smaller textures, and 29.8 dB with mean errors up to 6.6 per channel on
/// `AnimatedCube`'s high-contrast detail: at least 28 dB and at most 8. UASTC, a BC7/ASTC-class
/// 8-bit-per-pixel codec, reaches 42.4 dB (`AnimatedCube`, mean errors up to 1.6) to 64.9 dB:
/// at least 40 dB and at most 2. A decoding bug (swapped channels, misplaced blocks, a flipped
/// or shifted image, a wrong sRGB treatment) costs tens of dB; the exact check is the
/// comparison with Binomial's transcoder. Opaque sources stay opaque.
#[test]
fn ktx2_textures_decode_like_their_sources() {
    let Some(tool) = variants::gltf_transform() else { return };
    let Some(basisu) = variants::basisu() else { return };
    if devtools::ci::shared_models("the KTX2 textures").is_none() {
        return;
    }
    let mut report = Vec::new();
    let mut reference_checks = 0;
    for (relative, variant) in variants::pairs().into_iter().filter(|(_, v)| v.ktx2()) {
        let Some(source) = variants::source(relative) else { panic!("{relative} is missing") };
        let original = devtools::load(&source);
        let path = variants::variant(&tool, &source, variant);
        let loaded = decode::load_path(&path, &anim::import::Limits::default()).expect("loads");
        let originals = base_colour_images(&original);
        let decoded = base_colour_images(&loaded);
        assert!(!originals.is_empty(), "{relative}: no base colour texture");
        assert_eq!(originals.len(), decoded.len(), "{relative} {variant:?}: textured materials");
        for ((m, a), (_, b)) in originals.iter().zip(&decoded) {
            let e = pixel_error(a, b);
            report.push(format!(
                "{relative} {variant:?} material {m}: {}×{}, mean abs error R {:.2} G {:.2} B {:.2} A {:.2}, PSNR {:.1} dB",
                a.width(),
                a.height(),
                e.mean_abs[0],
                e.mean_abs[1],
                e.mean_abs[2],
                e.mean_abs[3],
                e.psnr_db
            ));
            let (min_psnr, max_mean) = if variant == Variant::Etc1s { (28.0, 8.0) } else { (40.0, 2.0) };
            assert!(e.psnr_db >= min_psnr, "{relative} {variant:?}: PSNR {:.1} dB < {min_psnr}", e.psnr_db);
            assert!(e.mean_abs.iter().all(|&x| x <= max_mean), "{relative} {variant:?}: mean errors {:?}", e.mean_abs);
            if a.pixels().all(|p| p.0[3] == 255) {
                assert!(b.pixels().all(|p| p.0[3] == 255), "{relative} {variant:?}: an opaque texture gained alpha");
            }
        }
        // Bit-exact against the reference transcoder: every ETC1S texture (cheap: ETC1 only),
        // and the UASTC ones of MorphPrimitivesTest (a full unpack of every format takes
        // seconds per 1024×1024 texture; these are 512×512).
        if variant == Variant::Etc1s || (variant == Variant::Uastc && relative.starts_with("MorphPrimitivesTest")) {
            for (m, ours) in &decoded {
                let Some(texture) = loaded.materials()[*m].base_color_texture else { continue };
                let name = format!("{variant:?}-{}", relative.replace('/', "-"));
                let reference =
                    reference_decode(&basisu, &loaded.images[texture.image].bytes, variant != Variant::Etc1s, &name);
                let e = pixel_error(&reference, ours);
                assert_eq!(e.mean_abs[..3], [0.0; 3], "{relative} {variant:?}: differs from Binomial's transcoder");
                reference_checks += 1;
            }
        }
    }
    println!("{}\n{reference_checks} textures identical to Binomial's reference transcoder", report.join("\n"));
    assert!(reference_checks >= 10, "only {reference_checks} reference comparisons");
}

/// Hostile KTX2 data from a real encoder: small ETC1S (`BasisLZ`), UASTC+Zstandard and plain
/// UASTC files (a 64×64 corner of Fox's texture, with mips) truncated at every byte and
/// corrupted at random give errors, never a panic or a hang; inside a glTF, a KTX2 header that
/// lies about its size is refused at import naming the image, and the pixel limit refuses a
/// texture before it is decoded.
#[test]
fn hostile_ktx2_data_gives_errors() {
    let Some(tool) = variants::gltf_transform() else { return };
    let Some(basisu) = variants::basisu() else { return };
    let Some(dir) = devtools::ci::shared_models("the hostile KTX2 data") else { return };
    let fox = devtools::load(&dir.join("Fox/Fox.glb"));
    let texture = image::load_from_memory(&fox.images[0].bytes).expect("Fox's PNG").to_rgba8();
    let corner = image::imageops::crop_imm(&texture, 512, 512, 64, 64).to_image();
    let work = temp_path("hostile-ktx2");
    std::fs::create_dir_all(&work).expect("temp dir");
    corner.save(work.join("corner.png")).expect("write PNG");
    for (name, flags) in
        [("etc1s", &[][..]), ("uastc", &["-uastc"][..]), ("uastc-raw", &["-uastc", "-ktx2_no_zstandard"][..])]
    {
        let out = work.join(format!("{name}.ktx2"));
        let status = std::process::Command::new(&basisu)
            .args(["-ktx2", "-mipmap"])
            .args(flags)
            .arg("-file")
            .arg(work.join("corner.png"))
            .arg("-output_file")
            .arg(&out)
            .output()
            .expect("run basisu");
        assert!(status.status.success(), "basisu {name}: {}", String::from_utf8_lossy(&status.stdout));
        let good = std::fs::read(&out).expect("read KTX2");
        let decoded = decode::ktx2::decode_rgba8(&good, 4096, 1 << 20).expect("the encoder's file decodes");
        let decoded = image::RgbaImage::from_raw(64, 64, decoded.pixels).expect("64×64");
        let e = pixel_error(&corner, &decoded);
        assert!(e.psnr_db > 30.0, "{name}: {e:?}");
        for cut in 0..good.len() {
            assert!(decode::ktx2::decode_rgba8(&good[..cut], 4096, 1 << 20).is_err(), "{name}: cut at {cut} decoded");
        }
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut refused = 0;
        for i in 0..300 {
            let mut mutated = good.clone();
            for _ in 0..(1 + i % 4) {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let at = (rng as usize) % mutated.len();
                mutated[at] ^= (rng >> 40) as u8 | 1;
            }
            refused += usize::from(decode::ktx2::decode_rgba8(&mutated, 4096, 1 << 20).is_err());
        }
        println!("{name}: {} bytes, PSNR {:.1} dB, {refused} of 300 corrupted files refused", good.len(), e.psnr_db);
    }
    let _ = std::fs::remove_dir_all(&work);

    // Inside a glTF: the importer reads the KTX2 header (through the decoder) and refuses lies
    // and oversized images naming the image, before anything is transcoded.
    let path = variants::variant(&tool, &dir.join("CesiumMan/CesiumMan.glb"), Variant::Etc1s);
    let bytes = std::fs::read(&path).expect("read");
    let at = bytes.windows(12).position(decode::ktx2::is_ktx2).expect("an embedded KTX2 image");
    let limits = anim::import::Limits::default();
    let mut huge = bytes.clone();
    huge[at + 20..at + 24].copy_from_slice(&(1u32 << 20).to_le_bytes());
    let error = decode::load_slice(&huge, None, &limits).unwrap_err().to_string();
    assert!(error.contains("image 0") && error.contains("image pixels = 1073741824 exceeds"), "{error}");
    let mut lying = bytes.clone();
    lying[at + 80 + 8..at + 80 + 16].copy_from_slice(&(1u64 << 32).to_le_bytes());
    let error = decode::load_slice(&lying, None, &limits).unwrap_err().to_string();
    assert!(error.contains("image 0") && error.contains("KTX2: level 0") && error.contains("outside"), "{error}");
    let strict = anim::import::Limits { max_image_pixels: 1 << 19, ..limits };
    let error = decode::load_slice(&bytes, None, &strict).unwrap_err().to_string();
    assert!(error.contains("image pixels") && error.contains("1048576") && error.contains("524288"), "{error}");
}

/// The decoders with every file's Draco primitives decoded in parallel, however small.
struct ParallelDraco;

impl anim::import::Decoder for ParallelDraco {
    fn supports(&self, extension: &str) -> bool {
        decode::Decoders.supports(extension)
    }

    fn decode_meshopt(&self, view: &anim::import::MeshoptView<'_>, out: &mut [u8]) -> Result<(), String> {
        decode::Decoders.decode_meshopt(view, out)
    }

    fn decode_draco(&self, primitive: &anim::import::DracoPrimitive<'_>) -> Result<anim::import::DecodedDraco, String> {
        decode::Decoders.decode_draco(primitive)
    }

    fn decode_draco_all(
        &self,
        primitives: &[anim::import::DracoPrimitive<'_>],
    ) -> Vec<Result<anim::import::DecodedDraco, String>> {
        decode::draco::decode_all(primitives, 0)
    }
}

/// Draco primitives decoded in parallel (what large files get) give the same model as decoded
/// one after another: `RobotExpressive`'s 19 primitives, and a corrupted copy fails the same way.
#[test]
fn parallel_draco_decoding_gives_the_same_model() {
    use anim::import::Decoder as _;
    let Some(tool) = variants::gltf_transform() else { return };
    let Some(source) = variants::source("RobotExpressive/RobotExpressive.glb") else {
        devtools::ci::shared_models("the parallel Draco test");
        return;
    };
    let path = variants::variant(&tool, &source, Variant::Draco);
    let limits = anim::import::Limits::default();
    let sequential = decode::load_path(&path, &limits).expect("loads");
    let parallel = anim::import::load_path_with(&path, &limits, &ParallelDraco).expect("loads in parallel");
    assert!(sequential.meshes().iter().map(|m| m.primitives.len()).sum::<usize>() >= 19);
    assert!(sequential == parallel, "the parallel decode differs");
    assert!(ParallelDraco.supports("KHR_draco_mesh_compression"));
    // The last primitive's stream cut short: the same error either way.
    let bytes = std::fs::read(&path).expect("read");
    let json_len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("json");
    let last = json["meshes"].as_array().and_then(|m| m.last()).expect("a mesh")["primitives"]
        .as_array()
        .and_then(|p| p.last())
        .expect("a primitive")["extensions"]["KHR_draco_mesh_compression"]["bufferView"]
        .as_u64()
        .expect("a Draco view") as usize;
    let view = &json["bufferViews"][last];
    let start = 20 + json_len + 8 + view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let mut broken = bytes.clone();
    broken[start + 11..start + view["byteLength"].as_u64().expect("length") as usize].fill(0xff);
    let a = decode::load_slice(&broken, None, &limits).map(|_| ()).unwrap_err().to_string();
    let b = anim::import::load_slice_with(&broken, None, &limits, &ParallelDraco).map(|_| ()).unwrap_err().to_string();
    assert_eq!(a, b);
}

/// Without a decoder (the pure core alone) a file that requires compression is refused naming
/// the extension, and with the decoders it opens.
#[test]
fn compressed_files_need_the_decoders() {
    let Some(tool) = variants::gltf_transform() else { return };
    let Some(source) = variants::source("assets/mannequin.glb") else { return };
    for variant in [Variant::Draco, Variant::Meshopt] {
        let path = variants::variant(&tool, &source, variant);
        let error = anim::import::load_path(&path).unwrap_err().to_string();
        assert!(error.contains(variant.extension()), "{error}");
        decode::load_path(&path, &anim::import::Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Truncated and corrupted compressed data is refused with an error naming the object (never a
/// panic), and the decoded sizes obey the limits before anything is decoded.
#[test]
fn hostile_compressed_data_gives_errors() {
    let Some(tool) = variants::gltf_transform() else { return };
    let Some(source) = variants::source("RiggedSimple/RiggedSimple.glb") else { return };
    let limits = anim::import::Limits::default();
    for variant in [Variant::Draco, Variant::Meshopt] {
        let path = variants::variant(&tool, &source, variant);
        let bytes = std::fs::read(&path).expect("read");
        let mut failures = 0;
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for i in 0..400 {
            let mut mutated = bytes.clone();
            // Flip bytes in the binary chunk, where the compressed streams are.
            let json_len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
            let start = 20 + json_len + 8;
            for _ in 0..(1 + i % 8) {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let at = start + (rng as usize) % (bytes.len() - start);
                mutated[at] ^= (rng >> 32) as u8 | 1;
            }
            if decode::load_slice(&mutated, None, &limits).is_err() {
                failures += 1;
            }
        }
        // Most corruptions are caught (a flip in a texture or a don't-care byte may load).
        println!("{variant:?}: {failures} of 400 corrupted files refused");
        assert!(failures > 40, "{variant:?}: only {failures} of 400 corrupted files were refused");
        // Truncations at every 97th byte.
        for cut in (0..bytes.len()).step_by(97) {
            assert!(decode::load_slice(&bytes[..cut], None, &limits).is_err(), "{variant:?} cut at {cut} loaded");
        }
        // A vertex limit below the file's refuses it before decoding.
        let strict = anim::import::Limits { max_total_vertices: 10, ..limits };
        let error = decode::load_slice(&bytes, None, &strict).unwrap_err().to_string();
        assert!(error.contains("exceeds the limit"), "{error}");
    }
}

fn animtune(args: &[&std::ffi::OsStr]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_animtune")).args(args).output().expect("run animtune")
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("animtune-formats-{}-{name}", std::process::id()))
}

/// `info` lists every extension with what was done: decoded compression, appearance-only
/// extensions loaded with a warning even when required, unknown required ones refused.
#[test]
fn info_lists_extensions_and_loads_appearance_only_ones() {
    let Some(dir) = devtools::ci::shared_models("the extension listing") else { return };
    let source = dir.join("SimpleSkin/embedded/SimpleSkin.gltf");
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(&source).expect("read")).expect("json");
    json["extensionsUsed"] = serde_json::json!(["KHR_materials_clearcoat", "KHR_lights_punctual"]);
    json["extensionsRequired"] = serde_json::json!(["KHR_materials_clearcoat"]);
    let path = temp_path("appearance.gltf");
    std::fs::write(&path, serde_json::to_vec(&json).expect("json")).expect("write");
    let output = animtune(&["info".as_ref(), path.as_os_str()]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}{}", String::from_utf8_lossy(&output.stderr));
    assert!(text.contains("KHR_materials_clearcoat (required): warning: ignored: appearance only"), "{text}");
    assert!(text.contains("KHR_lights_punctual: warning: ignored"), "{text}");

    json["extensionsUsed"] = serde_json::json!(["VENDOR_made_up_geometry"]);
    json["extensionsRequired"] = serde_json::json!(["VENDOR_made_up_geometry"]);
    std::fs::write(&path, serde_json::to_vec(&json).expect("json")).expect("write");
    let output = animtune(&["info".as_ref(), path.as_os_str()]);
    let _ = std::fs::remove_file(&path);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("requires unsupported extension VENDOR_made_up_geometry"), "{error}");

    let Some(tool) = variants::gltf_transform() else { return };
    let draco = variants::variant(&tool, &dir.join("Fox/Fox.glb"), Variant::Draco);
    let output = animtune(&["info".as_ref(), draco.as_os_str(), "--format".as_ref(), "json".as_ref()]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("info json");
    assert_eq!(report["extensions"][0]["name"], "KHR_draco_mesh_compression", "{report}");
    assert_eq!(report["extensions"][0]["status"], "decoded", "{report}");
    assert_eq!(report["extensions"][0]["required"], true, "{report}");

    let Some(_) = variants::basisu() else { return };
    let ktx2 = variants::variant(&tool, &dir.join("Fox/Fox.glb"), Variant::Uastc);
    let output = animtune(&["info".as_ref(), ktx2.as_os_str(), "--format".as_ref(), "json".as_ref()]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("info json");
    let basisu = report["extensions"].as_array().and_then(|e| e.iter().find(|e| e["name"] == "KHR_texture_basisu"));
    let basisu = basisu.unwrap_or_else(|| panic!("KHR_texture_basisu not listed: {report}"));
    assert_eq!((&basisu["status"], &basisu["required"]), (&"decoded".into(), &true.into()), "{report}");
}

/// Random bytes named .glb say they are neither GLB nor JSON (not "expected ident at line 1").
#[test]
fn random_bytes_are_named_as_not_gltf() {
    let path = temp_path("random.glb");
    std::fs::write(&path, [0x8b_u8, 0x1f, 0x00, 0x13, 0x77, 0xe2, 0x41, 0x05]).expect("write");
    let output = animtune(&["info".as_ref(), path.as_os_str()]);
    let _ = std::fs::remove_file(&path);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("neither GLB (wrong magic) nor JSON") && error.contains("8b 1f 00 13"), "{error}");
}

/// `bench` divides by distinct joint nodes: two skins over the same two joints are 2 joints,
/// not 4 (a file with 59 skins over 18 joints reported 1062).
#[test]
fn bench_counts_each_shared_joint_once() {
    let Some(dir) = devtools::ci::shared_models("the bench joint count") else { return };
    let file = dir.join("glTF-Asset-Generator/Animation_Skin/Animation_Skin_07.gltf");
    let output = animtune(&["bench".as_ref(), file.as_os_str(), "--format".as_ref(), "json".as_ref()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("bench json");
    assert_eq!(report["joints"], 2, "{report}");
}

/// Negative times are taken wherever a time is (they clamp to the clip's start).
#[test]
fn render_takes_negative_times() {
    let out = temp_path("negative.png");
    let output = animtune(&[
        "render".as_ref(),
        "--time".as_ref(),
        "-3".as_ref(),
        "--ghost".as_ref(),
        "-0.5".as_ref(),
        "--size".as_ref(),
        "64x48".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let _ = std::fs::remove_file(&out);
    assert!(!stderr.contains("unexpected argument"), "{stderr}");
    if stderr.contains("no GPU adapter") {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{stderr}");
        return;
    }
    assert!(output.status.success(), "{stderr}");
}
