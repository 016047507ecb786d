//! `KHR_animation_pointer`, on hand-written files (the built-in character plus one animation
//! of pointer channels, written as .gltf + .bin): node transform pointers play exactly like
//! node channels, material / texture-transform / visibility pointers are sampled with the
//! STEP/LINEAR/CUBICSPLINE rules, printed by `sample` under "pointers", and drawn by `render`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// A folder with `pointers.gltf` + `pointers.bin`: the built-in character with an extra
/// animation "Pointers" (and "Hips by node", the same hips rotation as a node channel).
struct PointerFile {
    dir: PathBuf,
}

impl Drop for PointerFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl PointerFile {
    fn gltf(&self) -> PathBuf {
        self.dir.join("pointers.gltf")
    }
}

/// Append `values` (f32) or `bytes` to the binary and return a new accessor index.
fn push_accessor(json: &mut Value, bin: &mut Vec<u8>, bytes: &[u8], component: u32, ty: &str, count: usize) -> usize {
    bin.resize(bin.len().next_multiple_of(4), 0);
    let views = json["bufferViews"].as_array_mut().expect("views");
    views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
    let view = views.len() - 1;
    bin.extend_from_slice(bytes);
    let accessors = json["accessors"].as_array_mut().expect("accessors");
    accessors.push(json!({"bufferView": view, "componentType": component, "type": ty, "count": count}));
    accessors.len() - 1
}

fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn write_pointer_file(tag: &str) -> PointerFile {
    write_pointer_file_with(tag, |_| {})
}

/// [`write_pointer_file`] with an edit of the JSON before it is written.
fn write_pointer_file_with(tag: &str, edit: impl FnOnce(&mut Value)) -> PointerFile {
    let glb = std::fs::read(devtools::ci::repo_root().join("assets/mannequin.glb")).expect("mannequin");
    let json_len = u32::from_le_bytes([glb[12], glb[13], glb[14], glb[15]]) as usize;
    let mut json: Value = serde_json::from_slice(&glb[20..20 + json_len]).expect("json");
    let bin_start = 20 + json_len + 8;
    let bin_len = u32::from_le_bytes(glb[20 + json_len..24 + json_len].try_into().expect("4 bytes")) as usize;
    let mut bin = glb[bin_start..bin_start + bin_len].to_vec();
    let mesh_node =
        json["nodes"].as_array().expect("nodes").iter().position(|n| n.get("mesh").is_some()).expect("mesh");

    let time = |bin: &mut Vec<u8>, json: &mut Value, t: &[f32]| {
        let a = push_accessor(json, bin, &floats(t), 5126, "SCALAR", t.len());
        json["accessors"][a]["min"] = json!([t[0]]);
        json["accessors"][a]["max"] = json!([t[t.len() - 1]]);
        a
    };
    let t2 = time(&mut bin, &mut json, &[0.0, 2.0]);
    let t3 = time(&mut bin, &mut json, &[0.0, 1.0, 2.0]);
    let hips = [0.0, 0.0, 0.0, 1.0, 0.0, 0.38268343, 0.0, 0.9238795, 0.0, 0.70710677, 0.0, 0.70710677];
    let hips = push_accessor(&mut json, &mut bin, &floats(&hips), 5126, "VEC4", 3);
    let colour =
        push_accessor(&mut json, &mut bin, &floats(&[1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0]), 5126, "VEC4", 2);
    let visible = push_accessor(&mut json, &mut bin, &[1, 0, 1], 5121, "SCALAR", 3);
    // Cubic offset: in-tangent, value, out-tangent per key (1 unit/s out of the first key).
    let offset = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0];
    let offset = push_accessor(&mut json, &mut bin, &floats(&offset), 5126, "VEC2", 6);
    let yfov = push_accessor(&mut json, &mut bin, &floats(&[0.5, 0.9]), 5126, "SCALAR", 2);
    let t1 = time(&mut bin, &mut json, &[0.0, 1.0]);
    let emissive = push_accessor(&mut json, &mut bin, &floats(&[0.0, 0.0, 0.0, 0.25, 0.0, 0.0]), 5126, "VEC3", 2);
    let strength = push_accessor(&mut json, &mut bin, &floats(&[4.0, 4.0]), 5126, "SCALAR", 2);
    let cutoff = push_accessor(&mut json, &mut bin, &floats(&[0.2, 0.9]), 5126, "SCALAR", 2);

    let pointer = |sampler: usize, pointer: String| json!({"sampler": sampler, "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": pointer}}}});
    let base = "/materials/0/pbrMetallicRoughness";
    let animation = json!({
        "name": "Pointers",
        "samplers": [
            {"input": t3, "output": hips, "interpolation": "LINEAR"},
            {"input": t2, "output": colour, "interpolation": "LINEAR"},
            {"input": t3, "output": visible, "interpolation": "STEP"},
            {"input": t2, "output": offset, "interpolation": "CUBICSPLINE"},
            {"input": t2, "output": yfov, "interpolation": "LINEAR"}
        ],
        "channels": [
            pointer(0, "/nodes/0/rotation".to_owned()),
            pointer(1, format!("{base}/baseColorFactor")),
            pointer(2, format!("/nodes/{mesh_node}/extensions/KHR_node_visibility/visible")),
            pointer(3, format!("{base}/baseColorTexture/extensions/KHR_texture_transform/offset")),
            pointer(4, "/cameras/0/perspective/yfov".to_owned())
        ]
    });
    let by_node = json!({
        "name": "Hips by node",
        "samplers": [{"input": t3, "output": hips, "interpolation": "LINEAR"}],
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]
    });
    // Emission from black to red (0.25 × strength 4) over the first second.
    let glow = json!({
        "name": "Emissive",
        "samplers": [
            {"input": t1, "output": emissive, "interpolation": "LINEAR"},
            {"input": t1, "output": strength, "interpolation": "LINEAR"}
        ],
        "channels": [
            pointer(0, "/materials/0/emissiveFactor".to_owned()),
            pointer(1, "/materials/0/extensions/KHR_materials_emissive_strength/emissiveStrength".to_owned())
        ]
    });
    let cut = json!({
        "name": "Cutoff",
        "samplers": [{"input": t1, "output": cutoff, "interpolation": "LINEAR"}],
        "channels": [pointer(0, "/materials/0/alphaCutoff".to_owned())]
    });
    json["animations"].as_array_mut().expect("animations").extend([animation, by_node, glow, cut]);
    json["extensionsUsed"] = json!([
        "KHR_animation_pointer",
        "KHR_node_visibility",
        "KHR_texture_transform",
        "KHR_materials_emissive_strength"
    ]);
    json["buffers"] = json!([{"byteLength": bin.len(), "uri": "pointers.bin"}]);
    edit(&mut json);

    let dir = std::env::temp_dir().join(format!("animtune-pointers-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("pointers.bin"), &bin).expect("write bin");
    std::fs::write(dir.join("pointers.gltf"), serde_json::to_vec_pretty(&json).expect("json")).expect("write gltf");
    PointerFile { dir }
}

fn animtune(args: &[&std::ffi::OsStr]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_animtune")).args(args).output().expect("run animtune")
}

fn sample_json(path: &Path, clip: &str, times: &str) -> Value {
    let output = animtune(&[
        "sample".as_ref(),
        path.as_os_str(),
        "--clip".as_ref(),
        clip.as_ref(),
        "--times".as_ref(),
        times.as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("sample json")
}

#[test]
fn node_pointers_play_like_node_channels() {
    let file = write_pointer_file("nodes");
    let model = devtools::load(&file.gltf());
    let pointers = model.find_clip("Pointers").expect("clip");
    let by_node = model.find_clip("Hips by node").expect("clip");
    let hips = anim::NodeId::from_index(0);
    let clip = model.clip(pointers).expect("clip");
    assert_eq!(clip.animated_nodes(), vec![hips], "the hips rotation pointer is a track of node 0");
    let a = sample_json(&file.gltf(), "Pointers", "0,0.5,1.25,2,-1,9");
    let b = sample_json(&file.gltf(), "Hips by node", "0,0.5,1.25,2,-1,9");
    for (x, y) in a["samples"].as_array().expect("samples").iter().zip(b["samples"].as_array().expect("samples")) {
        assert_eq!(x["nodes"], y["nodes"], "pointer and node channel disagree");
        assert!(y.get("pointers").is_none(), "a clip without pointers prints no \"pointers\" key");
    }
    // Three property tracks; the camera pointer is not read.
    assert_eq!(model.clip_pointer_tracks(pointers).len(), 3);
    assert!(model.clip_pointer_tracks(by_node).is_empty());
}

#[test]
fn property_pointers_sample_with_the_spec_rules() {
    let file = write_pointer_file("properties");
    let report = sample_json(&file.gltf(), "Pointers", "0.5,1.5,3");
    let samples = report["samples"].as_array().expect("samples");
    let value = |sample: usize, pointer_suffix: &str| -> Vec<f64> {
        let pointers = samples[sample]["pointers"].as_array().expect("pointers key");
        let p = pointers.iter().find(|p| p["pointer"].as_str().is_some_and(|s| s.ends_with(pointer_suffix)));
        p.expect("pointer")["value"].as_array().expect("value").iter().map(|v| v.as_f64().expect("number")).collect()
    };
    // LINEAR base colour from red to blue over 2 s.
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
    assert!(close(&value(0, "baseColorFactor"), &[0.75, 0.0, 0.25, 1.0]), "{:?}", value(0, "baseColorFactor"));
    assert!(close(&value(1, "baseColorFactor"), &[0.25, 0.0, 0.75, 1.0]));
    assert!(close(&value(2, "baseColorFactor"), &[0.0, 0.0, 1.0, 1.0]), "clamped after the last key");
    // STEP visibility: visible, hidden from 1 s, visible again from 2 s.
    assert_eq!(value(0, "visible"), [1.0]);
    assert_eq!(value(1, "visible"), [0.0]);
    assert_eq!(value(2, "visible"), [1.0]);
    // CUBICSPLINE offset: (0, 0) → (0.5, 0.5) with an out-tangent of (1, 0) per second over
    // 2 s: x gets the tangent term h10 · Δt · 1, y only h01 · 0.5.
    let s: f64 = 0.25;
    let h01 = -2.0 * s * s * s + 3.0 * s * s;
    let expected = [(s * s * s - 2.0 * s * s + s) * 2.0 * 1.0 + h01 * 0.5, h01 * 0.5];
    let offset = value(0, "offset");
    assert!(close(&offset, &expected), "{offset:?} vs {expected:?}");
}

#[test]
fn render_draws_animated_colour_and_visibility() {
    let file = write_pointer_file("render");
    let render = |time: &str| render_png_sized(&file, "Pointers", Some(time), 192);
    let Some(red) = render("0.1") else { return };
    let (Some(hidden), Some(blue)) = (render("1.5"), render("2.5")) else { return };
    // Mean colour of the pixels that differ from the background (top-left pixel).
    let mean = |image: &image::RgbaImage| {
        let background = image.get_pixel(0, 0).0;
        let mut sum = [0.0f64; 3];
        let mut count = 0.0f64;
        // The clip label sits in the bottom rows.
        for (_, _, p) in image.enumerate_pixels().filter(|(_, y, _)| *y < 160) {
            if p.0.iter().zip(background).any(|(a, b)| a.abs_diff(b) > 30) {
                for (total, &channel) in sum.iter_mut().zip(&p.0) {
                    *total += f64::from(channel);
                }
                count += 1.0;
            }
        }
        (sum.map(|s| s / count.max(1.0)), count)
    };
    let ((r, red_pixels), (b, blue_pixels), (_, hidden_pixels)) = (mean(&red), mean(&blue), mean(&hidden));
    println!("red {r:?} over {red_pixels}, blue {b:?} over {blue_pixels}, hidden: {hidden_pixels} pixels");
    assert!(r[0] > 2.0 * r[2] && b[2] > 2.0 * b[0], "base colour pointer not drawn: {r:?} then {b:?}");
    assert!(red_pixels > 1000.0 && blue_pixels > 1000.0, "the character is drawn");
    assert!(hidden_pixels < 1.0, "hidden by KHR_node_visibility at 1.5 s: {hidden_pixels} pixels");
}

/// A statically hidden node (`KHR_node_visibility`) hides itself and its descendants; the
/// renderer leaves its mesh out.
#[test]
fn static_visibility_hides_nodes_and_their_descendants() {
    let file = write_pointer_file_with("static", |json| {
        let mesh_node = json["nodes"].as_array().expect("nodes").iter().position(|n| n.get("mesh").is_some());
        let mesh_node = mesh_node.expect("mesh node");
        json["nodes"][0]["extensions"] = json!({"KHR_node_visibility": {"visible": false}});
        json["nodes"][mesh_node]["extensions"] = json!({"KHR_node_visibility": {"visible": false}});
    });
    let model = devtools::load(&file.gltf());
    let visible = animtune::render::animated::AnimatedProperties::rest(&model).node_visible;
    let descendants_of_hips: Vec<usize> = (1..model.nodes().len())
        .filter(|&n| {
            let parent = |p: anim::NodeId| model.hierarchy.parent(p);
            std::iter::successors(parent(anim::NodeId::from_index(n)), |&p| parent(p)).any(|p| p.index() == 0)
        })
        .collect();
    assert!(descendants_of_hips.len() > 10, "the hips have descendants");
    assert!(!visible[0] && descendants_of_hips.iter().all(|&n| !visible[n]), "hidden with the hips: {visible:?}");
    let Some(image) = render_png_sized(&file, "Hips by node", None, 128) else { return };
    let background = image.get_pixel(0, 0).0;
    let drawn = image.enumerate_pixels().filter(|(_, y, p)| *y < 100 && p.0 != background).count();
    assert_eq!(drawn, 0, "the hidden mesh was drawn");
}

/// `animtune render FILE --clip CLIP [--time TIME]` at `size`×`size` pixels without the ground
/// (no time: the middle of the clip); `None` after [`devtools::ci::skip`] without a GPU adapter.
fn render_png_sized(file: &PointerFile, clip: &str, time: Option<&str>, size: u32) -> Option<image::RgbaImage> {
    let out = file.dir.join(format!("{clip}-{}-{size}.png", time.unwrap_or("mid")));
    let size = format!("{size}x{size}");
    let gltf = file.gltf();
    let mut args: Vec<&std::ffi::OsStr> = vec!["render".as_ref(), gltf.as_os_str(), "--clip".as_ref(), clip.as_ref()];
    if let Some(time) = time {
        args.extend::<[&std::ffi::OsStr; 2]>(["--time".as_ref(), time.as_ref()]);
    }
    args.extend::<[&std::ffi::OsStr; 5]>([
        "--size".as_ref(),
        size.as_ref(),
        "--no-ground".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let output = animtune(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("no GPU adapter") {
        devtools::ci::skip(&format!("no GPU adapter: {stderr}"));
        return None;
    }
    assert!(output.status.success(), "{stderr}");
    Some(image::open(&out).expect("png").to_rgba8())
}

/// [`render_png_sized`] at 160×160 and time `time`.
fn render_png(file: &PointerFile, clip: &str, time: &str) -> Option<image::RgbaImage> {
    render_png_sized(file, clip, Some(time), 160)
}

/// Mean RGB of the pixels that differ from the background (top-left pixel) above the clip
/// label, and their count.
fn model_pixels(image: &image::RgbaImage) -> ([f64; 3], usize) {
    model_pixels_within(image, image)
}

/// Mean RGB of `image` over the pixels of `mask` that differ from its background, and their count.
fn model_pixels_within(image: &image::RgbaImage, mask: &image::RgbaImage) -> ([f64; 3], usize) {
    let background = mask.get_pixel(0, 0).0;
    let mut sum = [0.0f64; 3];
    let mut count = 0;
    for ((_, y, m), p) in mask.enumerate_pixels().zip(image.pixels()) {
        if y < 130 && m.0.iter().zip(background).any(|(a, b)| a.abs_diff(b) > 30) {
            for (total, &channel) in sum.iter_mut().zip(&p.0) {
                *total += f64::from(channel);
            }
            count += 1;
        }
    }
    (sum.map(|s| s / count.max(1) as f64), count)
}

/// A dark material glows with its static emissive factor (green), and the emissive factor and
/// strength pointers animate its emission from black (t = 0) to red (t = 1: 0.25 × 4).
#[test]
fn render_draws_static_and_animated_emission() {
    let file = write_pointer_file_with("emissive", |json| {
        json["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"] = json!([0.05, 0.05, 0.05, 1.0]);
        json["materials"][0]["emissiveFactor"] = json!([0.0, 1.0, 0.0]);
    });
    let Some(green) = render_png(&file, "Hips by node", "0") else { return };
    let (Some(dark), Some(red)) = (render_png(&file, "Emissive", "0"), render_png(&file, "Emissive", "1")) else {
        return;
    };
    // The same clip (no motion) frames t = 0 and t = 1 alike: compare them on the red pixels.
    let ((g, green_pixels), (d, dark_pixels), (r, red_pixels)) =
        (model_pixels(&green), model_pixels_within(&dark, &red), model_pixels(&red));
    println!("static {g:?} over {green_pixels}, t=0 {d:?} over {dark_pixels}, t=1 {r:?} over {red_pixels}");
    assert!(green_pixels > 1000 && red_pixels > 1000, "the character is drawn");
    // Dark material, black emission: every channel low.
    assert!(d.iter().all(|&c| c < 110.0), "t = 0 (emission black) is dark: {d:?}");
    // Static green emission saturates green only (the mean includes anti-aliased edges).
    assert!(g[1] > 225.0 && g[0] < 110.0 && g[2] < 110.0, "static emissive factor glows green: {g:?}");
    // Animated red emission (0.25 × strength 4 = 1): red saturates, green and blue stay as at t = 0.
    assert!(r[0] > 225.0, "emission red at t = 1: {r:?}");
    assert!((r[1] - d[1]).abs() < 3.0 && (r[2] - d[2]).abs() < 3.0, "only red changes: {d:?} -> {r:?}");
}

/// alphaMode MASK: a base colour alpha of 0.5 under the authored cutoff 0.6 is not drawn; the
/// alphaCutoff pointer lowers the cutoff to 0.2 (drawn, opaque) and raises it to 0.9 (cut out).
#[test]
fn render_cuts_out_masked_alpha_with_an_animated_cutoff() {
    let file = write_pointer_file_with("mask", |json| {
        json["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"] = json!([1.0, 1.0, 1.0, 0.5]);
        json["materials"][0]["alphaMode"] = json!("MASK");
        json["materials"][0]["alphaCutoff"] = json!(0.6);
    });
    let Some(authored) = render_png(&file, "Hips by node", "0") else { return };
    let (Some(low), Some(high)) = (render_png(&file, "Cutoff", "0"), render_png(&file, "Cutoff", "1")) else {
        return;
    };
    let (authored_pixels, low_pixels, high_pixels) =
        (model_pixels(&authored).1, model_pixels(&low).1, model_pixels(&high).1);
    println!("cutoff 0.6: {authored_pixels} pixels, 0.2: {low_pixels}, 0.9: {high_pixels}");
    assert_eq!(authored_pixels, 0, "alpha 0.5 below the cutoff 0.6 is cut out");
    assert!(low_pixels > 1000, "alpha 0.5 above the animated cutoff 0.2 is drawn: {low_pixels}");
    assert_eq!(high_pixels, 0, "alpha 0.5 below the animated cutoff 0.9 is cut out");
}

/// alphaMode OPAQUE ignores the base colour alpha (alpha 0.5 draws exactly as alpha 1); BLEND
/// blends it over the background.
#[test]
fn render_ignores_alpha_when_opaque_and_blends_it_when_blend() {
    let with = |tag: &str, mode: &str, alpha: f32| {
        write_pointer_file_with(tag, |json| {
            json["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"] = json!([1.0, 1.0, 1.0, alpha]);
            json["materials"][0]["alphaMode"] = json!(mode);
        })
    };
    let (solid, half, blend) = (with("solid", "OPAQUE", 1.0), with("half", "OPAQUE", 0.5), with("blend", "BLEND", 0.5));
    let Some(solid) = render_png(&solid, "Hips by node", "0") else { return };
    let (Some(half), Some(blend)) = (render_png(&half, "Hips by node", "0"), render_png(&blend, "Hips by node", "0"))
    else {
        return;
    };
    assert!(solid == half, "OPAQUE alpha 0.5 must draw as alpha 1");
    // Distance from the background, summed over the opaque model's pixels: alpha 0.5 blended in
    // linear light is about 0.73 of it in sRGB; 1 would be opaque.
    let background = solid.get_pixel(0, 0).0;
    let distance = |image: &image::RgbaImage| -> f64 {
        let mask = solid
            .enumerate_pixels()
            .map(|(_, y, p)| y < 130 && p.0.iter().zip(background).any(|(a, b)| a.abs_diff(b) > 30));
        mask.zip(image.pixels())
            .filter(|(m, _)| *m)
            .map(|(_, p)| p.0.iter().zip(background).take(3).map(|(a, b)| f64::from(a.abs_diff(b))).sum::<f64>())
            .sum()
    };
    let ratio = distance(&blend) / distance(&solid);
    println!("BLEND alpha 0.5: {ratio:.3} of the opaque model's distance from the background");
    assert!(ratio > 0.4 && ratio < 0.9, "BLEND alpha 0.5 shows the background through: {ratio}");
}

/// The emissive texture (sRGB, here two texels: red, blue) multiplies the emissive factor, read
/// through its own `KHR_texture_transform` (the character has no texture coordinates: every
/// vertex reads (0, 0), moved by the offset onto one texel's centre).
#[test]
fn render_draws_the_emissive_texture_through_its_transform() {
    let mut png = Vec::new();
    let texels = image::RgbaImage::from_raw(2, 1, vec![255, 0, 0, 255, 0, 0, 255, 255]).expect("2x1");
    texels.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png).expect("png");
    let uri = format!("data:image/png;base64,{}", devtools::gltf::base64(&png));
    let with_offset = |tag: &str, u: f32| {
        write_pointer_file_with(tag, |json| {
            json["images"] = json!([{"uri": uri}]);
            json["textures"] = json!([{"source": 0}]);
            let material = &mut json["materials"][0];
            material["pbrMetallicRoughness"]["baseColorFactor"] = json!([0.05, 0.05, 0.05, 1.0]);
            material["emissiveFactor"] = json!([1.0, 1.0, 1.0]);
            material["emissiveTexture"] =
                json!({"index": 0, "extensions": {"KHR_texture_transform": {"offset": [u, 0.5]}}});
        })
    };
    let (red, blue) = (with_offset("emissive-red", 0.25), with_offset("emissive-blue", 0.75));
    let (Some(red), Some(blue)) = (render_png(&red, "Hips by node", "0"), render_png(&blue, "Hips by node", "0"))
    else {
        return;
    };
    let ((r, red_pixels), (b, blue_pixels)) = (model_pixels(&red), model_pixels(&blue));
    println!("red texel {r:?} over {red_pixels}, blue texel {b:?} over {blue_pixels}");
    assert!(red_pixels > 1000 && blue_pixels > 1000, "the character is drawn");
    assert!(r[0] > 225.0 && r[1] < 110.0 && r[2] < 110.0, "red texel emitted: {r:?}");
    assert!(b[2] > 225.0 && b[0] < 110.0 && b[1] < 110.0, "blue texel emitted: {b:?}");
}
