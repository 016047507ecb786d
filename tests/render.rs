//! GPU renderer tests, headless (lavapipe in CI): animation changes the image, the GPU coverage
//! matches a CPU-skinned reference, morph targets move the surface, several poses per frame,
//! and golden images (of the shared sample models only: the generated mannequin still changes,
//! so it is checked by silhouette tests instead).
//!
//! Regenerate the golden images with `UPDATE_GOLDEN=1 cargo test --test render` and commit
//! `tests/golden/*.png`. Without a GPU adapter or without `../shared/models` these tests print
//! "skipped" and pass, except under `CI=true`, where they fail.

use std::path::PathBuf;

use anim::{ClipId, InterpolationOverride, Model, SoaPose};
use animtune::cli::render::{RenderArgs, framed_camera, render_image, sample_pose};
use animtune::render::framing::CpuPoser;
use animtune::render::{
    Aabb, CrowdView, GpuContext, InstanceDesc, OrbitCamera, RenderError, Renderer, ViewDesc, Viewport,
};
use devtools::ci::{repo_root, skip};
use glam::{Mat4, Vec2, Vec3};
use image::GenericImageView as _;

/// Clear colour of the coverage tests: pure magenta, which no test model uses.
const MASK_CLEAR: wgpu::Color = wgpu::Color { r: 1.0, g: 0.0, b: 1.0, a: 1.0 };

/// A model from `../shared/models`, or `None` (skipped) when the folder is missing.
fn shared_model(relative: &str) -> Option<Model> {
    Some(devtools::load(&devtools::ci::shared_model_path(relative)?))
}

/// The default character, when it has been generated.
fn mannequin() -> Option<Model> {
    let path = repo_root().join("assets/mannequin.glb");
    if !path.exists() {
        println!("no assets/mannequin.glb: mannequin case skipped");
        return None;
    }
    Some(anim::import::load_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// A headless GPU, or `None` (skipped) when there is no adapter at all.
fn gpu() -> Option<GpuContext> {
    match GpuContext::new_headless() {
        Ok(ctx) => Some(ctx),
        Err(error @ RenderError::NoAdapter { .. }) => {
            skip(&error.to_string());
            None
        }
        Err(error) => panic!("GPU device: {error}"),
    }
}

fn clip_index(model: &Model, name: &str) -> ClipId {
    model.find_clip(name).unwrap_or_else(|| panic!("clip {name} not found"))
}

/// Render one view of `poses` (first solid, the rest ghosts) with the mask clear colour and no ground.
fn render_masked(
    ctx: &GpuContext,
    model: &Model,
    poses: &[&SoaPose],
    camera: OrbitCamera,
    size: u32,
) -> image::RgbaImage {
    let mut renderer = Renderer::new(&ctx.device);
    renderer.clear_color = MASK_CLEAR;
    let gpu = renderer.upload(ctx, model).expect("upload");
    let instances = poses
        .iter()
        .enumerate()
        .map(|(i, p)| if i == 0 { InstanceDesc::solid(p) } else { InstanceDesc::ghost(p) })
        .collect();
    let view = ViewDesc {
        viewport: Viewport { x: 0, y: 0, width: size, height: size },
        camera,
        instances,
        ground: false,
        skeleton: false,
        selected_joint: None,
        lines: &[],
    };
    renderer.render_to_image(ctx, model, &gpu, &[view], size, size).expect("render")
}

/// Pixels that are not the (magenta) background.
fn coverage(image: &image::RgbaImage) -> Vec<bool> {
    image
        .pixels()
        .map(|p| {
            let [r, g, b, _] = p.0;
            (255 - i32::from(r)) + i32::from(g) + (255 - i32::from(b)) > 150
        })
        .collect()
}

/// CPU reference: the core's morph + skin job, projected with the same camera, rasterized by
/// pixel centres.
fn cpu_coverage(model: &Model, pose: &SoaPose, clip_from_world: Mat4, size: u32) -> Vec<bool> {
    let mut mask = vec![false; (size * size) as usize];
    let nodes = animtune::render::framing::drawn_nodes(model);
    let half = size as f32 * 0.5;
    let mut poser = CpuPoser::default();
    poser.for_each_posed_primitive(model, pose, &nodes, |primitive, positions| {
        let screen: Vec<Option<Vec2>> = positions
            .iter()
            .map(|&p| {
                let clip = clip_from_world * p.extend(1.0);
                (clip.w > 1e-6).then(|| Vec2::new((clip.x / clip.w + 1.0) * half, (1.0 - clip.y / clip.w) * half))
            })
            .collect();
        for triangle in animtune::render::framing::triangle_list_indices(primitive).chunks_exact(3) {
            let [Some(a), Some(b), Some(c)] = [0, 1, 2].map(|i| screen[triangle[i] as usize]) else { continue };
            let area = (b - a).perp_dot(c - a);
            if area.abs() < 1e-12 {
                continue;
            }
            let min = a.min(b).min(c).max(Vec2::ZERO);
            let max = a.max(b).max(c).min(Vec2::splat(size as f32 - 1.0));
            for y in (min.y.floor() as u32)..=(max.y.ceil().max(0.0) as u32).min(size - 1) {
                for x in (min.x.floor() as u32)..=(max.x.ceil().max(0.0) as u32).min(size - 1) {
                    let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                    let w0 = (b - a).perp_dot(p - a) / area;
                    let w1 = (c - b).perp_dot(p - b) / area;
                    let w2 = (a - c).perp_dot(p - c) / area;
                    if w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0 {
                        mask[(y * size + x) as usize] = true;
                    }
                }
            }
        }
    });
    mask
}

fn iou(a: &[bool], b: &[bool]) -> (f64, usize) {
    let intersection = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let union = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    (intersection as f64 / union.max(1) as f64, union)
}

/// Camera framing the given poses' CPU-skinned bounds.
fn camera_for(model: &Model, poses: &[&SoaPose]) -> OrbitCamera {
    let nodes = animtune::render::framing::drawn_nodes(model);
    let mut poser = CpuPoser::default();
    let mut bounds = Aabb::EMPTY;
    for pose in poses {
        bounds.union(&poser.pose_bounds(model, pose, &nodes));
    }
    let mut camera = OrbitCamera { yaw_rad: 0.6, pitch_rad: 0.22, ..OrbitCamera::default() };
    camera.frame(&bounds, 1.0, 1.02);
    camera
}

/// The GPU silhouette of `pose` matches the CPU-skinned reference.
fn assert_coverage_matches_cpu(ctx: &GpuContext, name: &str, model: &Model, pose: &SoaPose) {
    const SIZE: u32 = 384;
    let camera = camera_for(model, &[pose]);
    let image = render_masked(ctx, model, &[pose], camera, SIZE);
    let gpu_mask = coverage(&image);
    let cpu_mask = cpu_coverage(model, pose, camera.clip_from_world(1.0), SIZE);
    let (iou, union) = iou(&gpu_mask, &cpu_mask);
    println!("{name}: coverage IoU {iou:.4} over {union} pixels");
    assert!(union > 2000, "{name}: silhouette too small ({union} pixels)");
    assert!(iou >= 0.97, "{name}: GPU coverage differs from the CPU-skinned reference (IoU {iou:.4})");
}

/// Two times of a clip render differently inside the silhouette.
fn assert_times_differ(ctx: &GpuContext, name: &str, model: &Model, clip: ClipId, times: [f32; 2]) {
    let poses = times.map(|t| sample_pose(model, Some(clip), t, InterpolationOverride::Authored));
    let camera = camera_for(model, &[&poses[0], &poses[1]]);
    let images = poses.each_ref().map(|p| render_masked(ctx, model, &[p], camera, 256));
    let masks = images.each_ref().map(coverage);
    let silhouette = masks[0].iter().zip(&masks[1]).filter(|(a, b)| **a || **b).count();
    let changed = images[0]
        .pixels()
        .zip(images[1].pixels())
        .zip(masks[0].iter().zip(&masks[1]))
        .filter(|((p, q), (a, b))| (**a || **b) && p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > 40))
        .count();
    println!("{name}: {changed} of {silhouette} silhouette pixels changed between t={times:?}");
    assert!(silhouette > 1000, "{name}: nothing drawn");
    assert!(changed * 20 > silhouette, "{name}: the animation barely changes the image ({changed}/{silhouette})");
}

#[test]
fn cesium_man_two_times_differ_inside_silhouette() {
    let Some(model) = shared_model("CesiumMan/CesiumMan.glb") else { return };
    let Some(ctx) = gpu() else { return };
    assert_times_differ(&ctx, "CesiumMan", &model, ClipId::from_index(0), [0.3, 0.9]);
}

#[test]
fn mannequin_two_times_differ_inside_silhouette() {
    let Some(model) = mannequin() else { return };
    let Some(ctx) = gpu() else { return };
    let walk = clip_index(&model, "Walk");
    assert_times_differ(&ctx, "mannequin", &model, walk, [0.1, 0.4]);
}

#[test]
fn cesium_man_coverage_matches_cpu_skinning() {
    let Some(model) = shared_model("CesiumMan/CesiumMan.glb") else { return };
    let Some(ctx) = gpu() else { return };
    for time in [0.25, 1.1] {
        let pose = sample_pose(&model, Some(ClipId::from_index(0)), time, InterpolationOverride::Authored);
        assert_coverage_matches_cpu(&ctx, &format!("CesiumMan t={time}"), &model, &pose);
    }
}

#[test]
fn mannequin_coverage_matches_cpu_skinning() {
    let Some(model) = mannequin() else { return };
    let Some(ctx) = gpu() else { return };
    for clip in ["Walk", "Jump"] {
        let pose = sample_pose(&model, Some(clip_index(&model, clip)), 0.45, InterpolationOverride::Authored);
        assert_coverage_matches_cpu(&ctx, &format!("mannequin {clip}"), &model, &pose);
    }
}

#[test]
fn recursive_skeletons_84_skins_match_cpu_skinning() {
    let Some(model) = shared_model("RecursiveSkeletons/RecursiveSkeletons.glb") else { return };
    let Some(ctx) = gpu() else { return };
    assert!(model.skins().len() >= 84, "{} skins", model.skins().len());
    let clip = (!model.clips().is_empty()).then(|| ClipId::from_index(0));
    let pose = sample_pose(&model, clip, 0.5, InterpolationOverride::Authored);
    assert_coverage_matches_cpu(&ctx, "RecursiveSkeletons", &model, &pose);
}

#[test]
fn eight_influences_from_joints_1_are_skinned_on_the_gpu() {
    let Some(mut model) = shared_model("CesiumMan/CesiumMan.glb") else { return };
    let Some(ctx) = gpu() else { return };
    // Move influences 2 and 3 of every vertex into JOINTS_1/WEIGHTS_1: the same skinning, now
    // only right when the shader reads the second set.
    let mut moved = 0;
    for primitive in model.primitives_mut() {
        if primitive.joints.len() != 1 || primitive.weights.len() != 1 {
            continue;
        }
        let mut joints1 = Vec::with_capacity(primitive.joints[0].len());
        let mut weights1 = Vec::with_capacity(primitive.weights[0].len());
        for (joints, weights) in primitive.joints[0].iter_mut().zip(primitive.weights[0].iter_mut()) {
            joints1.push([joints[2], joints[3], 0, 0]);
            weights1.push(glam::Vec4::new(weights.z, weights.w, 0.0, 0.0));
            moved += usize::from(weights.z > 0.0);
            joints[2] = 0;
            joints[3] = 0;
            weights.z = 0.0;
            weights.w = 0.0;
        }
        primitive.joints.push(joints1);
        primitive.weights.push(weights1);
    }
    assert!(moved > 100, "CesiumMan has vertices with 3+ influences ({moved})");
    let pose = sample_pose(&model, Some(ClipId::from_index(0)), 0.6, InterpolationOverride::Authored);
    assert_coverage_matches_cpu(&ctx, "CesiumMan with JOINTS_1", &model, &pose);
}

#[test]
fn morph_cube_weights_move_the_surface() {
    let Some(model) = shared_model("AnimatedMorphCube/AnimatedMorphCube.glb") else { return };
    let Some(ctx) = gpu() else { return };
    let mut poses = [model.rest_pose(), model.rest_pose()];
    assert!(poses[0].weights().len() >= 2, "the cube has two morph targets");
    poses[0].weights_mut().fill(0.0);
    poses[1].weights_mut().fill(0.0);
    poses[1].weights_mut()[0] = 1.0;
    let camera = camera_for(&model, &[&poses[0], &poses[1]]);
    let images = poses.each_ref().map(|p| render_masked(&ctx, &model, &[p], camera, 256));
    let masks = images.each_ref().map(coverage);
    let moved = masks[0].iter().zip(&masks[1]).filter(|(a, b)| a != b).count();
    let shaded = images[0].pixels().zip(images[1].pixels()).filter(|(p, q)| p != q).count();
    println!("morph cube: coverage changed on {moved} pixels, colour on {shaded}");
    assert!(moved > 200, "the morph does not move the silhouette ({moved} pixels)");
    // And the morphed silhouette is where the CPU morph puts it.
    for (index, pose) in poses.iter().enumerate() {
        assert_coverage_matches_cpu(&ctx, &format!("morph cube pose {index}"), &model, pose);
    }
}

#[test]
fn ghost_overlay_draws_a_second_translucent_pose() {
    let Some(model) = shared_model("CesiumMan/CesiumMan.glb") else { return };
    let Some(ctx) = gpu() else { return };
    let solid = sample_pose(&model, Some(ClipId::from_index(0)), 0.3, InterpolationOverride::Authored);
    let ghost = sample_pose(&model, Some(ClipId::from_index(0)), 0.9, InterpolationOverride::Authored);
    let camera = camera_for(&model, &[&solid, &ghost]);
    let alone = coverage(&render_masked(&ctx, &model, &[&solid], camera, 256));
    let together = render_masked(&ctx, &model, &[&solid, &ghost], camera, 256);
    let with_ghost = coverage(&together);
    let ghost_only = alone.iter().zip(&with_ghost).filter(|(a, b)| !**a && **b).count();
    assert!(ghost_only > 200, "the ghost adds no pixels ({ghost_only})");
    // Translucent: where only the ghost is, the magenta background still shows through.
    let see_through = together
        .pixels()
        .zip(alone.iter().zip(&with_ghost))
        .filter(|(p, (a, b))| !**a && **b && p.0[0] > 90 && p.0[2] > 90)
        .count();
    assert!(see_through * 2 > ghost_only, "ghost is not translucent ({see_through}/{ghost_only})");
}

#[test]
fn compare_renders_two_labelled_split_viewports() {
    let Some(model) = shared_model("CesiumMan/CesiumMan.glb") else { return };
    let Some(ctx) = gpu() else { return };
    let args = RenderArgs {
        model: None,
        clip: Some("0".to_owned()),
        time: Some(0.7),
        interpolation: InterpolationOverride::Authored,
        size: (320, 160),
        out: PathBuf::new(),
        skeleton: true,
        compare: Some((InterpolationOverride::Step, InterpolationOverride::Cubic)),
        ghost: None,
        joint: None,
        no_ground: false,
        layers: Vec::new(),
        mask_heat: false,
        blend_space: None,
        at: None,
        limits: animtune::cli::LimitArgs::default(),
    };
    let image = render_image(&ctx, &model, &args).expect("render");
    assert_eq!(image.dimensions(), (320, 160));
    // Each half shows the character (bright pixels near its centre) and a white label top-left.
    for half in 0..2u32 {
        let x0 = half * 160;
        let bright = (0..160u32)
            .flat_map(|y| (x0..x0 + 160).map(move |x| (x, y)))
            .filter(|&(x, y)| image.get_pixel(x, y).0[..3].iter().all(|&c| c > 170))
            .count();
        assert!(bright > 100, "viewport {half} looks empty ({bright} bright pixels)");
        let label = (4..16u32)
            .flat_map(|y| (x0 + 4..x0 + 40).map(move |x| (x, y)))
            .filter(|&(x, y)| image.get_pixel(x, y).0 == [255, 255, 255, 255]);
        assert!(label.count() > 20, "viewport {half} has no label");
    }
    // Step and cubic differ at t = 0.7.
    let left = image.view(0, 20, 160, 120).to_image();
    let right = image.view(160, 20, 160, 120).to_image();
    let differ = left.pixels().zip(right.pixels()).filter(|(a, b)| a != b).count();
    assert!(differ > 50, "step and cubic halves are identical");
}

#[test]
fn cli_render_writes_a_png_of_the_requested_size() {
    let Some(model) = devtools::ci::shared_model_path("CesiumMan/CesiumMan.glb") else { return };
    let Some(_) = gpu() else { return };
    let out = std::env::temp_dir().join(format!("animtune-render-test-{}.png", std::process::id()));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_animtune"))
        .arg("render")
        .arg(&model)
        .args(["--clip", "0", "--time", "0.4", "--size", "200x120", "--skeleton", "--out"])
        .arg(&out)
        .output()
        .expect("run animtune");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.starts_with("wrote "), "{stdout}");
    let image = image::open(&out).expect("a PNG was written").to_rgba8();
    let _ = std::fs::remove_file(&out);
    assert_eq!(image.dimensions(), (200, 120));

    // Bad arguments fail with a message, before any GPU work.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_animtune"))
        .arg("render")
        .arg(&model)
        .args(["--compare", "linear,wobbly"])
        .output()
        .expect("run animtune");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("wobbly"));
}

#[test]
fn camera_framing_contains_the_animated_character() {
    let Some(model) = shared_model("CesiumMan/CesiumMan.glb") else { return };
    let camera = framed_camera(&model, Some(ClipId::from_index(0)), &[InterpolationOverride::Authored], 1.0);
    let clip_from_world = camera.clip_from_world(1.0);
    let nodes = animtune::render::framing::drawn_nodes(&model);
    let mut poser = CpuPoser::default();
    for i in 0..=8 {
        let pose = sample_pose(
            &model,
            Some(ClipId::from_index(0)),
            model.clips()[0].end_secs() * i as f32 / 8.0,
            InterpolationOverride::Authored,
        );
        poser.for_each_posed_primitive(&model, &pose, &nodes, |_, positions| {
            for &p in positions {
                let clip = clip_from_world * p.extend(1.0);
                let ndc = Vec3::new(clip.x, clip.y, clip.z) / clip.w;
                assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0 && (0.0..=1.0).contains(&ndc.z), "clipped: {ndc}");
            }
        });
    }
}

/// Compare with `tests/golden/NAME.png` (or write it under `UPDATE_GOLDEN=1`): a pixel differs
/// when a channel is off by more than 24; at most 1% of the pixels may differ (software and
/// hardware rasterizers disagree slightly on edges).
fn check_golden(name: &str, image: &image::RgbaImage) {
    let path = repo_root().join("tests/golden").join(format!("{name}.png"));
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("create tests/golden");
        image.save(&path).expect("write golden");
        println!("updated {}", path.display());
        return;
    }
    let golden = image::open(&path)
        .unwrap_or_else(|e| {
            panic!("{}: {e}; create it with `UPDATE_GOLDEN=1 cargo test --test render` and commit it", path.display())
        })
        .to_rgba8();
    assert_eq!(golden.dimensions(), image.dimensions(), "{name}: size changed");
    let differing = golden
        .pixels()
        .zip(image.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 24))
        .count();
    let budget = (golden.width() * golden.height()) as usize / 100;
    if differing > budget {
        let actual = path.with_extension("actual.png");
        let _ = image.save(&actual);
        panic!(
            "{name}: {differing} pixels differ from {} (budget {budget}); actual image written to {}. \
             If the change is intended: `UPDATE_GOLDEN=1 cargo test --test render`",
            path.display(),
            actual.display()
        );
    }
}

fn golden_view<'a>(model: &Model, pose: &'a SoaPose, skeleton: bool) -> ViewDesc<'a> {
    let mut camera = camera_for(model, &[pose]);
    camera.distance *= 1.1;
    ViewDesc {
        viewport: Viewport { x: 0, y: 0, width: 256, height: 256 },
        camera,
        instances: vec![InstanceDesc::solid(pose)],
        ground: true,
        skeleton,
        selected_joint: model.skins().first().and_then(|s| s.joints.get(s.joints.len() / 2)).copied(),
        lines: &[],
    }
}

fn render_golden_case(ctx: &GpuContext, name: &str, model: &Model, pose: &SoaPose, skeleton: bool) {
    let mut renderer = Renderer::new(&ctx.device);
    let gpu = renderer.upload(ctx, model).expect("upload");
    let image =
        renderer.render_to_image(ctx, model, &gpu, &[golden_view(model, pose, skeleton)], 256, 256).expect("render");
    check_golden(name, &image);
}

#[test]
fn golden_images_match() {
    let Some(cesium) = shared_model("CesiumMan/CesiumMan.glb") else { return };
    let Some(cube) = shared_model("AnimatedMorphCube/AnimatedMorphCube.glb") else { return };
    let Some(ctx) = gpu() else { return };
    let pose = sample_pose(&cesium, Some(ClipId::from_index(0)), 0.5, InterpolationOverride::Authored);
    render_golden_case(&ctx, "cesium_man_t0.5_skeleton", &cesium, &pose, true);
    let mut pose = cube.rest_pose();
    pose.weights_mut().fill(0.0);
    pose.weights_mut()[0] = 0.7;
    render_golden_case(&ctx, "morph_cube_w0.7", &cube, &pose, false);
}

#[test]
fn missing_adapter_error_says_what_to_install() {
    let message = RenderError::NoAdapter { detail: "no adapters".to_owned() }.to_string();
    assert!(message.contains("mesa-vulkan-drivers"), "{message}");
    assert!(message.contains("no GPU adapter"), "{message}");
}

/// The instanced crowd path (one draw for every instance, palettes read at instance × stride on
/// the GPU) draws the same picture as drawing each placed pose on its own.
#[test]
fn instanced_crowd_matches_drawing_each_instance() {
    let (Some(ctx), Some(model)) = (gpu(), mannequin()) else { return };
    let mut crowd = animtune::crowd::Crowd::new(&model, 6, 21);
    for _ in 0..30 {
        crowd.update(&model, 1.0 / 60.0);
    }
    let bounds = crowd.bounds();
    let mut camera = OrbitCamera { yaw_rad: 0.4, pitch_rad: 0.5, ..OrbitCamera::default() };
    camera.frame(&bounds, 1.0, 1.05);
    camera.distance *= 0.6;
    let size = 256;
    let viewport = Viewport { x: 0, y: 0, width: size, height: size };
    let mut renderer = Renderer::new(&ctx.device);
    renderer.clear_color = MASK_CLEAR;
    let gpu_model = renderer.upload(&ctx, &model).expect("upload");
    let view = CrowdView {
        viewport,
        camera,
        instances: crowd.len() as u32,
        palettes: crowd.palettes(),
        palette_stride: crowd.palette_stride() as u32,
        node_worlds: crowd.node_worlds(),
        node_slots: crowd.node_slots(),
        weights: crowd.weights(),
        ground: false,
        ground_radius: 1.0,
    };
    let target = animtune::render::RenderTarget::new(&ctx.device, size, size).expect("target");
    renderer.render_crowd(&ctx, &model, &gpu_model, &view, &target);
    let instanced = animtune::render::readback::read_rgba8(&ctx.device, &ctx.queue, target.texture()).expect("read");

    let poses: Vec<SoaPose> = (0..crowd.len()).map(|i| crowd.pose(&model, i).expect("pose")).collect();
    let separate = ViewDesc {
        viewport,
        camera,
        instances: poses.iter().map(InstanceDesc::solid).collect(),
        ground: false,
        skeleton: false,
        selected_joint: None,
        lines: &[],
    };
    let reference = renderer.render_to_image(&ctx, &model, &gpu_model, &[separate], size, size).expect("render");
    let (a, b) = (coverage(&instanced), coverage(&reference));
    let (overlap, union) = iou(&a, &b);
    let covered = a.iter().filter(|&&c| c).count();
    assert!(covered > 1500, "the crowd covers the view: {covered} pixels");
    assert!(overlap > 0.99, "instanced vs separate draws: IoU {overlap:.4} over {union} pixels");
    // Not six copies of one instance: the instances' palettes differ.
    let stride = crowd.palette_stride();
    assert_ne!(crowd.palettes()[..stride], crowd.palettes()[stride..2 * stride]);
}

/// The deviation heatmap paints the skinned mesh through the skin weights: all joints hot reads
/// red, all cold reads blue, and the normal colours come back without heat.
#[test]
fn joint_heat_paints_the_skinned_mesh() {
    let (Some(ctx), Some(model)) = (gpu(), mannequin()) else { return };
    let pose = model.rest_pose();
    let camera = camera_for(&model, &[&pose]);
    let mut renderer = Renderer::new(&ctx.device);
    renderer.clear_color = MASK_CLEAR;
    let gpu_model = renderer.upload(&ctx, &model).expect("upload");
    let mut mean_colour = |heat: Option<&[f32]>| -> [f64; 3] {
        let view = ViewDesc {
            viewport: Viewport { x: 0, y: 0, width: 128, height: 128 },
            camera,
            instances: vec![InstanceDesc { joint_heat: heat, ..InstanceDesc::solid(&pose) }],
            ground: false,
            skeleton: false,
            selected_joint: None,
            lines: &[],
        };
        let image = renderer.render_to_image(&ctx, &model, &gpu_model, &[view], 128, 128).expect("render");
        let mask = coverage(&image);
        let mut sum = [0.0f64; 3];
        let mut count = 0.0;
        for (pixel, covered) in image.pixels().zip(&mask) {
            if *covered {
                for (total, &channel) in sum.iter_mut().zip(&pixel.0) {
                    *total += f64::from(channel);
                }
                count += 1.0;
            }
        }
        assert!(count > 500.0, "the mannequin covers the view");
        sum.map(|s| s / count)
    };
    let hot = vec![1.0; model.nodes().len()];
    let cold = vec![0.0; model.nodes().len()];
    let [hr, hg, hb] = mean_colour(Some(&hot));
    let [cr, cg, cb] = mean_colour(Some(&cold));
    let plain = mean_colour(None);
    assert!(hr > 1.5 * hg && hr > 1.5 * hb, "hot is red: {hr:.0} {hg:.0} {hb:.0}");
    assert!(cb > 1.5 * cr && cb > cg, "cold is blue: {cr:.0} {cg:.0} {cb:.0}");
    assert!((plain[0] - hr).abs() > 20.0 || (plain[2] - hb).abs() > 20.0, "no heat, normal colours: {plain:?}");
}

/// World-space overlay lines (collider wireframes) are drawn over the scene where they project.
#[test]
fn overlay_lines_draw_where_they_project() {
    let (Some(ctx), Some(model)) = (gpu(), mannequin()) else { return };
    let pose = model.rest_pose();
    let camera = camera_for(&model, &[&pose]);
    let mut lines = Vec::new();
    let centre = camera.target;
    animtune::render::overlay::push_capsule_wireframe(
        centre - Vec3::Y * 0.3,
        centre + Vec3::Y * 0.3,
        0.15,
        [0.0, 1.0, 0.0, 1.0],
        &mut lines,
    );
    // One segment behind the eye is clipped, not drawn mirrored.
    lines.push(animtune::render::overlay::OverlayLine {
        from: camera.eye() + camera.eye_direction() * 2.0,
        to: camera.eye() + camera.eye_direction() * 3.0,
        color: [1.0, 0.0, 0.0, 1.0],
    });
    let mut renderer = Renderer::new(&ctx.device);
    renderer.clear_color = wgpu::Color::BLACK;
    let gpu_model = renderer.upload(&ctx, &model).expect("upload");
    let view = ViewDesc {
        viewport: Viewport { x: 0, y: 0, width: 128, height: 128 },
        camera,
        instances: Vec::new(),
        ground: false,
        skeleton: false,
        selected_joint: None,
        lines: &lines,
    };
    let image = renderer.render_to_image(&ctx, &model, &gpu_model, &[view], 128, 128).expect("render");
    let green = |p: &image::Rgba<u8>| p.0[1] > 150 && p.0[0] < 80;
    let count = image.pixels().filter(|p| green(p)).count();
    assert!(count > 100, "the wireframe drew: {count} green pixels");
    let (mut min, mut max) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
    for (x, y, p) in image.enumerate_pixels() {
        if green(p) {
            min = min.min(Vec2::new(x as f32, y as f32));
            max = max.max(Vec2::new(x as f32, y as f32));
        }
    }
    let middle = (min + max) * 0.5;
    assert!(middle.distance(Vec2::splat(64.0)) < 8.0, "centred on the camera target: {middle}");
    assert!(max.y - min.y > max.x - min.x, "an upright capsule is taller than wide: {min} {max}");
    assert_eq!(image.pixels().filter(|p| p.0[0] > 150 && p.0[1] < 80).count(), 0, "behind the eye: not drawn");
}

/// Mean absolute difference per colour channel (0–255) and PSNR between two renders, over the
/// pixels both cover (the lit, textured surface).
fn colour_error(a: &image::RgbaImage, b: &image::RgbaImage, mask_a: &[bool], mask_b: &[bool]) -> ([f64; 3], f64) {
    let mut sum = [0f64; 3];
    let mut squared = 0f64;
    let mut n = 0f64;
    for ((p, q), covered) in a.pixels().zip(b.pixels()).zip(mask_a.iter().zip(mask_b).map(|(x, y)| *x && *y)) {
        if !covered {
            continue;
        }
        n += 1.0;
        for (total, (x, y)) in sum.iter_mut().zip(p.0.iter().zip(q.0)) {
            let d = f64::from(*x) - f64::from(y);
            *total += d.abs();
            squared += d * d;
        }
    }
    let mse = squared / (3.0 * n.max(1.0));
    (sum.map(|s| s / n.max(1.0)), 10.0 * (255.0 * 255.0 / mse.max(1e-12)).log10())
}

/// Largest mean colour difference per channel (0–255) and lowest PSNR of a re-textured
/// variant's render against its original's, over the surface both draw (192×192, clip 0 near
/// 40%). Measured: ETC1S 35.0 dB with means up to 3.58 (`AnimatedCube`'s high-contrast
/// texture), 38.1 to 53.4 dB with means up to 1.78 on the others; UASTC 48.3 dB and 0.70
/// (`AnimatedCube`) to lossless; WebP (gltf-transform's default quality, `CesiumMan` and Fox)
/// 41.7 and 45.9 dB, up to 1.15. The limits leave about 3 dB and 1.4× of margin for other
/// encoder versions; a texture drawn flipped, with swapped channels, untextured or from the
/// wrong mip falls far below them (red and blue swapped in the KTX2 decoder: 16.5 dB, means of
/// 27 on `CesiumMan`).
fn colour_tolerance(variant: devtools::variants::Variant) -> (f64, f64) {
    use devtools::variants::Variant;
    match variant {
        Variant::Etc1s => (5.0, 32.0),
        Variant::Webp => (2.5, 37.0),
        _ => (1.0, 44.0),
    }
}

/// Every Draco, meshopt, quantized and WebP variant of the shared skinned models (made by
/// gltf-transform, see `devtools::variants`) renders the silhouette of its original:
/// clip 0 at its key nearest 40% of its length (gltf-transform's meshopt passes CUBICSPLINE
/// rotation tangents through the quaternion filter, which cannot keep them, so between keys
/// the built-in character's cubic clips differ; see tests/variants.rs), the same camera,
/// silhouette overlap (intersection over union) ≥ 0.97.
#[test]
fn compressed_variants_render_like_their_originals() {
    let Some(tool) = devtools::variants::gltf_transform() else { return };
    if devtools::ci::shared_models("the variant silhouettes").is_none() {
        return;
    }
    let Some(ctx) = gpu() else { return };
    let limits = anim::import::Limits::default();
    let mut worst = (1.0f64, String::new());
    for (relative, variant) in devtools::variants::pairs() {
        let Some(source) = devtools::variants::source(relative) else { panic!("{relative} is missing") };
        let original = devtools::load(&source);
        let path = devtools::variants::variant(&tool, &source, variant);
        let loaded = decode::load_path(&path, &limits).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let clip = (!original.clips().is_empty()).then(|| ClipId::from_index(0));
        let time = original.clips().first().map_or(0.0, |c| {
            let target = c.start_secs() + (c.end_secs() - c.start_secs()) * 0.4;
            let keys = c.timelines().first().map_or(&[][..], |t| t.times_secs.as_slice());
            keys.iter().copied().min_by(|a, b| (a - target).abs().total_cmp(&(b - target).abs())).unwrap_or(target)
        });
        let pose_a = sample_pose(&original, clip, time, InterpolationOverride::Authored);
        let pose_b = sample_pose(&loaded, clip, time, InterpolationOverride::Authored);
        let camera = camera_for(&original, &[&pose_a]);
        let image_a = render_masked(&ctx, &original, &[&pose_a], camera, 192);
        let image_b = render_masked(&ctx, &loaded, &[&pose_b], camera, 192);
        let (a, b) = (coverage(&image_a), coverage(&image_b));
        let (overlap, union) = iou(&a, &b);
        println!("{relative} {variant:?}: silhouette IoU {overlap:.4} over {union} pixels");
        assert!(union > 500, "{relative} {variant:?}: nothing drawn ({union} pixels)");
        assert!(overlap >= 0.97, "{relative} {variant:?}: silhouette IoU {overlap:.4} against the original");
        if variant.textures() {
            let (mean_abs, psnr_db) = colour_error(&image_a, &image_b, &a, &b);
            println!("    texture colours: mean abs difference {mean_abs:.2?} (0-255), PSNR {psnr_db:.1} dB");
            let (max_mean, min_psnr) = colour_tolerance(variant);
            assert!(
                mean_abs.iter().all(|&x| x <= max_mean) && psnr_db >= min_psnr,
                "{relative} {variant:?}: texture colours differ from the original render: mean {mean_abs:.2?}, {psnr_db:.1} dB"
            );
        }
        if overlap < worst.0 {
            worst = (overlap, format!("{relative} {variant:?}"));
        }
    }
    println!("lowest IoU: {:.4} ({})", worst.0, worst.1);
}

/// Regression: `render --compare` on the GL backend left the left viewport empty (the MSAA
/// resolve blit honoured the last view's scissor). Both halves show the character on every
/// backend lavapipe/llvmpipe offer: Vulkan and GL.
#[test]
fn compare_fills_both_viewports_on_vulkan_and_gl() {
    let Some(_) = gpu() else { return };
    for backend in ["vulkan", "gl"] {
        let out = std::env::temp_dir().join(format!("animtune-compare-{backend}-{}.png", std::process::id()));
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_animtune"))
            .env("WGPU_BACKEND", backend)
            .args(["render", "--clip", "Walk", "--time", "0.4", "--compare", "linear,cubic", "--size", "320x160"])
            .arg("--out")
            .arg(&out)
            .output()
            .expect("run animtune");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{backend}: {stdout}{}", String::from_utf8_lossy(&output.stderr));
        assert!(stdout.to_lowercase().contains(&format!("({backend}")), "{backend} was not used: {stdout}");
        let image = image::open(&out).expect("a PNG was written").to_rgba8();
        let _ = std::fs::remove_file(&out);
        for half in 0..2u32 {
            let lit = (20..140u32)
                .flat_map(|y| (half * 160 + 4..half * 160 + 156).map(move |x| (x, y)))
                .filter(|&(x, y)| {
                    image.get_pixel(x, y).0[3] == 255 && image.get_pixel(x, y).0[..3].iter().any(|&c| c > 40)
                })
                .count();
            println!("{backend}: viewport {half} has {lit} lit pixels");
            assert!(lit > 3000, "{backend}: viewport {half} is empty ({lit} lit pixels)");
        }
    }
}

/// Regression (Stork, Parrot, Flamingo: bodies authored around the origin lost their legs to
/// the grid): the ground sits at the lowest point the model reaches, so a character moved half
/// its height below y = 0 is drawn whole, pixel for pixel as without the ground.
#[test]
fn ground_never_hides_a_model_below_the_origin() {
    let (Some(ctx), Some(mut model)) = (gpu(), mannequin()) else { return };
    let roots = model.scene_roots();
    for &root in &roots {
        let mut rest = model[root].rest;
        rest.translation.y -= 0.9;
        model.set_node_rest(root, rest);
    }
    let walk = clip_index(&model, "Walk");
    let pose = sample_pose(&model, Some(walk), 0.3, InterpolationOverride::Authored);
    let mut renderer = Renderer::new(&ctx.device);
    renderer.clear_color = MASK_CLEAR;
    let gpu_model = renderer.upload(&ctx, &model).expect("upload");
    assert!(gpu_model.ground_height < -0.85, "ground at {}", gpu_model.ground_height);
    let camera = camera_for(&model, &[&pose]);
    let view = |ground| ViewDesc {
        viewport: Viewport { x: 0, y: 0, width: 192, height: 192 },
        camera,
        instances: vec![InstanceDesc::solid(&pose)],
        ground,
        skeleton: false,
        selected_joint: None,
        lines: &[],
    };
    let bare = renderer.render_to_image(&ctx, &model, &gpu_model, &[view(false)], 192, 192).expect("render");
    let grounded = renderer.render_to_image(&ctx, &model, &gpu_model, &[view(true)], 192, 192).expect("render");
    let body = coverage(&bare);
    let total = body.iter().filter(|&&b| b).count();
    let same = bare
        .pixels()
        .zip(grounded.pixels())
        .zip(&body)
        .filter(|((a, b), covered)| **covered && a.0.iter().zip(b.0).all(|(x, y)| x.abs_diff(y) <= 8))
        .count();
    println!("ground at {:.3}: {same} of {total} body pixels unchanged", gpu_model.ground_height);
    assert!(total > 1500, "the mannequin covers the view ({total})");
    assert!(same as f64 >= 0.97 * total as f64, "the ground hides the body: {same} of {total} pixels unchanged");
}

/// Two models in one frame (`Renderer::render_layers`, the A/B view): a second layer in the
/// right half leaves the first layer's left half untouched, and a second layer's ghost over the
/// first layer's solid model is depth-tested against it (the same pose as a ghost hides behind
/// the solid model; another pose shows).
#[test]
fn layers_draw_a_second_model_beside_or_over_the_first() {
    let (Some(ctx), Some(a)) = (gpu(), mannequin()) else { return };
    let b = a.clone();
    let (width, height) = (240, 120);
    let walk = clip_index(&a, "Walk");
    let pose_a = sample_pose(&a, Some(walk), 0.2, InterpolationOverride::Authored);
    let pose_b = sample_pose(&b, Some(walk), 0.75, InterpolationOverride::Authored);
    let mut renderer = Renderer::new(&ctx.device);
    renderer.clear_color = MASK_CLEAR;
    let (gpu_a, gpu_b) = (renderer.upload(&ctx, &a).expect("upload"), renderer.upload(&ctx, &b).expect("upload"));
    let halves = Viewport::split_horizontally(width, height, 2);
    let camera = framed_camera(&a, Some(walk), &[InterpolationOverride::Authored], halves[0].aspect());
    let view = |viewport, instances| ViewDesc {
        viewport,
        camera,
        instances,
        ground: false,
        skeleton: false,
        selected_joint: None,
        lines: &[],
    };
    let target = animtune::render::RenderTarget::new(&ctx.device, width, height).expect("target");
    let mut draw = |layers: &[animtune::render::Layer<'_>]| {
        renderer.render_layers(&ctx, layers, &target);
        animtune::render::readback::read_rgba8(&ctx.device, &ctx.queue, target.texture()).expect("readback")
    };
    let left = [view(halves[0], vec![InstanceDesc::solid(&pose_a)])];
    let right = [view(halves[1], vec![InstanceDesc::solid(&pose_b)])];
    let layer = |model, gpu, views| animtune::render::Layer { model, gpu, views };
    let only_a = draw(&[layer(&a, &gpu_a, &left)]);
    let both = draw(&[layer(&a, &gpu_a, &left), layer(&b, &gpu_b, &right)]);
    let covered = |image: &image::RgbaImage, x0: u32, x1: u32| {
        image.enumerate_pixels().filter(|(x, _, p)| (x0..x1).contains(x) && p.0 != [255, 0, 255, 255]).count()
    };
    let half = halves[1].x;
    assert!(covered(&only_a, 0, half) > 300 && covered(&only_a, half, width) == 0);
    assert!(covered(&both, half, width) > 300, "the second layer is drawn");
    let left_changed =
        only_a.enumerate_pixels().filter(|(x, y, p)| *x < half && **p != *both.get_pixel(*x, *y)).count();
    assert_eq!(left_changed, 0, "the second layer left the first layer's half alone");

    // Ghost over solid, one viewport.
    let whole = Viewport { x: 0, y: 0, width, height };
    let solid = [view(whole, vec![InstanceDesc::solid(&pose_a)])];
    let same_ghost = [view(whole, vec![InstanceDesc::ghost(&pose_a)])];
    let other_ghost = [view(whole, vec![InstanceDesc::ghost(&pose_b)])];
    let plain = draw(&[layer(&a, &gpu_a, &solid)]);
    let hidden = draw(&[layer(&a, &gpu_a, &solid), layer(&b, &gpu_b, &same_ghost)]);
    let shown = draw(&[layer(&a, &gpu_a, &solid), layer(&b, &gpu_b, &other_ghost)]);
    let changed = |x: &image::RgbaImage| plain.pixels().zip(x.pixels()).filter(|(p, q)| p != q).count();
    println!("ghost of the same pose changes {} pixels, of another pose {}", changed(&hidden), changed(&shown));
    assert!(changed(&hidden) < 40, "a coincident ghost hides behind the solid model: {}", changed(&hidden));
    assert!(changed(&shown) > 300, "another pose's ghost shows: {}", changed(&shown));
}

/// A cube's 24 vertices (positions, normals) and 36 indices, `half` from the centre, wound
/// counter-clockwise seen from outside (or from inside when `inward`, normals flipped too).
fn cube(half: f32, inward: bool) -> (Vec<f32>, Vec<f32>, Vec<u16>) {
    let (mut positions, mut normals, mut indices) = (Vec::new(), Vec::new(), Vec::new());
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = [0.0f32; 3];
            n[axis] = sign;
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = positions.len() as u16 / 3;
            for (a, b) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut p = [0.0f32; 3];
                p[axis] = sign * half;
                p[u] = a * half;
                p[v] = b * half;
                positions.extend(p);
                normals.extend(n.map(|x| if inward { -x } else { x }));
            }
            // (u, v, n) is right-handed: counter-clockwise in (u, v) faces +axis.
            let ccw_outward = sign > 0.0;
            let quad = if ccw_outward != inward { [0, 1, 2, 0, 2, 3] } else { [0, 2, 1, 0, 3, 2] };
            indices.extend(quad.map(|i| base + i));
        }
    }
    (positions, normals, indices)
}

/// The inverted-hull outline scene: a red cube inside a 15% larger black shell wound inward
/// (its faces point at the cube), both single-sided unless `shell_double_sided`; under a node
/// mirrored in x when `mirrored`.
fn outline_scene(shell_double_sided: bool, mirrored: bool) -> Model {
    use serde_json::json;
    let mut doc = devtools::gltf::Doc::new();
    let mesh = |doc: &mut devtools::gltf::Doc, half: f32, inward: bool, material: usize| {
        let (p, n, i) = cube(half, inward);
        let position = doc.add_f32(&p, "VEC3");
        doc.json["accessors"][position]["min"] = json!([-half, -half, -half]);
        doc.json["accessors"][position]["max"] = json!([half, half, half]);
        let normal = doc.add_f32(&n, "VEC3");
        let bytes: Vec<u8> = i.iter().flat_map(|x| x.to_le_bytes()).collect();
        let index = doc.add_raw(&bytes, devtools::gltf::UNSIGNED_SHORT, "SCALAR", i.len(), false);
        doc.add_mesh(json!({"primitives": [{
            "attributes": {"POSITION": position, "NORMAL": normal}, "indices": index, "material": material
        }]}))
    };
    doc.push("materials", json!({"name": "red", "pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.0, 0.0, 1.0], "metallicFactor": 0.0}, "emissiveFactor": [0.6, 0.0, 0.0]}));
    doc.push("materials", json!({"name": "outline", "doubleSided": shell_double_sided, "pbrMetallicRoughness": {"baseColorFactor": [0.0, 0.0, 0.0, 1.0], "metallicFactor": 0.0}}));
    let inner = mesh(&mut doc, 0.5, false, 0);
    let shell = mesh(&mut doc, 0.575, true, 1);
    let a = doc.add_node(json!({"name": "cube", "mesh": inner}));
    let b = doc.add_node(json!({"name": "outline", "mesh": shell}));
    let scale = if mirrored { [-1.0, 1.0, 1.0] } else { [1.0, 1.0, 1.0] };
    let top = doc.add_node(json!({"name": "top", "scale": scale, "children": [a, b]}));
    doc.json["scenes"] = json!([{"nodes": [top]}]);
    doc.json["scene"] = json!(0);
    anim::import::load_slice(&doc.to_glb(), None).expect("the outline scene loads")
}

/// Mean colour of the central 20×20 pixels.
fn centre_colour(image: &image::RgbaImage) -> [f64; 3] {
    let (w, h) = image.dimensions();
    let mut sum = [0.0f64; 3];
    for y in h / 2 - 10..h / 2 + 10 {
        for x in w / 2 - 10..w / 2 + 10 {
            for (s, &c) in sum.iter_mut().zip(&image.get_pixel(x, y).0) {
                *s += f64::from(c) / 400.0;
            }
        }
    }
    sum
}

/// `doubleSided: false` culls back faces (an inverted-hull outline shell shows the object inside
/// it, not its own inner side), also under a mirroring node (winding flipped), and a
/// double-sided shell still hides the object.
#[test]
fn single_sided_materials_cull_back_faces_and_mirrored_nodes_flip_the_winding() {
    let Some(ctx) = gpu() else { return };
    let render = |model: &Model| {
        let pose = model.rest_pose();
        let camera = camera_for(model, &[&pose]);
        render_masked(&ctx, model, &[&pose], camera, 128)
    };
    let plain = centre_colour(&render(&outline_scene(false, false)));
    let mirrored = centre_colour(&render(&outline_scene(false, true)));
    let double = centre_colour(&render(&outline_scene(true, false)));
    println!("centre colour: single-sided {plain:?}, mirrored {mirrored:?}, double-sided shell {double:?}");
    for (name, c) in [("single-sided shell", plain), ("mirrored", mirrored)] {
        assert!(c[0] > 80.0 && c[0] > 3.0 * c[1].max(c[2]), "{name}: the red cube is hidden: {c:?}");
    }
    assert!(double[0] < 40.0, "a double-sided shell must hide the cube: {double:?}");
}
