//! Retargeting (issue #25) on the built-in character, its generated variants (Mixamo-style under
//! an `Armature` scaled 0.01, ×0.01, IK-control feet and hands) and the shared humanoids
//! (`RobotExpressive`, `CesiumMan`, `RiggedFigure`), every pair both ways: the output validates
//! with 0 errors in the Khronos validator and reads back with its clips, stance foot slide is
//! at most 21 mm or no worse than the source's own, and a round trip A → B → A (without foot
//! IK) brings every joint mapped both ways back within 1°. The figures are printed as a table
//! (`cargo test --test retarget -- --nocapture`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use anim::{ClipId, Model};
use animtune::retarget::clip::{FileBytes, Options, retarget_clip, retarget_to_file};
use animtune::retarget::{Mapping, Skeleton};
use devtools::TempDir;
use devtools::rigs::{RigVariant, make_from};

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");
const MANNEQUIN: &[u8] = include_bytes!("../assets/mannequin.glb");
const FEET: [&str; 2] = ["Foot.L", "Foot.R"];

/// The footskate perception threshold (Pražák et al. 2011), metres.
const SLIDE_THRESHOLD_M: f32 = 0.021;

/// One rig of the corpus: its file and the clips retargeted from it.
struct Rig {
    name: &'static str,
    bytes: Vec<u8>,
    clips: &'static [&'static str],
}

fn shared(relative: &str) -> Option<Vec<u8>> {
    let path = devtools::ci::shared_model_path(relative)?;
    Some(std::fs::read(path).unwrap())
}

/// The rigs: the built-in character (Walk, Run, Wave) and its variants (Walk), the shared
/// humanoids (their walk cycle). `None` after skipping when the shared models are missing.
fn corpus() -> Option<Vec<Rig>> {
    let mixamo = make_from(MANNEQUIN, &FEET, true, RigVariant::Mixamo).unwrap();
    let small = make_from(MANNEQUIN, &FEET, true, RigVariant::Scaled(0.01)).unwrap();
    let ik = devtools::ikrig::detach_extremities(MANNEQUIN).unwrap();
    Some(vec![
        Rig { name: "builtin", bytes: MANNEQUIN.to_vec(), clips: &["Walk", "Run", "Wave"] },
        Rig { name: "builtin-mixamo", bytes: mixamo, clips: &["Walk"] },
        Rig { name: "builtin-x0.01", bytes: small, clips: &["Walk"] },
        Rig { name: "builtin-ik", bytes: ik, clips: &["Walk"] },
        Rig { name: "robot-expressive", bytes: shared("RobotExpressive/RobotExpressive.glb")?, clips: &["Walking"] },
        Rig { name: "cesium-man", bytes: shared("CesiumMan/CesiumMan.glb")?, clips: &["animation_0"] },
        Rig { name: "rigged-figure", bytes: shared("RiggedFigure/RiggedFigure.glb")?, clips: &["animation_0"] },
    ])
}

fn load(bytes: &[u8]) -> Model {
    decode::load_slice(bytes, None, &anim::import::Limits::default()).unwrap()
}

fn clip(model: &Model, name: &str) -> ClipId {
    devtools::rigs::find_clip(model, name).unwrap_or_else(|| panic!("no clip {name}"))
}

/// The validator's error count on `path` (`None`: skipped).
fn validator_errors(path: &std::path::Path) -> Option<u64> {
    let report = devtools::ci::validate_gltf(path)?;
    for m in report["messages"].as_array().into_iter().flatten().filter(|m| m["severity"] == "error").take(3) {
        println!("{}: {m}", path.display());
    }
    Some(report["errors"].as_u64().unwrap())
}

#[test]
fn the_mapping_pairs_every_chain_of_the_builtin_character_with_its_variants_and_the_robot() {
    let builtin = load(MANNEQUIN);
    let skeleton = Skeleton::new(&builtin).unwrap();
    assert!(skeleton.is_humanoid());
    let mixamo = load(&make_from(MANNEQUIN, &FEET, true, RigVariant::Mixamo).unwrap());
    let mixamo_skeleton = Skeleton::new(&mixamo).unwrap();
    let mapping = Mapping::automatic(&skeleton, &mixamo_skeleton);
    // Every skin joint of the character has its Mixamo-named twin.
    assert!(mapping.unmapped_source.is_empty() && mapping.unmapped_target.is_empty(), "{mapping:?}");
    for pair in &mapping.pairs {
        assert!(pair.target_name.ends_with(pair.source_name.as_str()), "{} -> {}", pair.source_name, pair.target_name);
    }
    let chains: std::collections::BTreeSet<_> = mapping.pairs.iter().map(|p| p.chain).collect();
    assert_eq!(chains.len(), animtune::retarget::Chain::ALL.len());

    let Some(robot) = shared("RobotExpressive/RobotExpressive.glb") else { return };
    let robot = load(&robot);
    let robot_skeleton = Skeleton::new(&robot).unwrap();
    let mapping = Mapping::automatic(&skeleton, &robot_skeleton);
    let target_of =
        |source: &str| mapping.pairs.iter().find(|p| p.source_name == source).map(|p| p.target_name.as_str());
    for (source, target) in
        [("UpperArm.L", "UpperArm.L"), ("LowerLeg.R", "LowerLeg.R"), ("Foot.L", "Foot.L"), ("Head", "Head")]
    {
        assert_eq!(target_of(source), Some(target), "{mapping:?}");
    }
    // Fingers are not mapped: the robot's stay at rest.
    assert!(mapping.unmapped_target.iter().any(|n| n == "Index.L"));
    // An edit by name: the robot's head driven by the character's neck, then unmapped.
    let mut edited = mapping.clone();
    let unknown =
        edited.edit((&builtin, &skeleton), (&robot, &robot_skeleton), &[("Head".into(), Some("Neck".into()))]);
    assert!(unknown.is_empty());
    assert_eq!(edited.pairs.iter().find(|p| p.target_name == "Head").map(|p| p.source_name.as_str()), Some("Neck"));
    let unknown = edited.edit((&builtin, &skeleton), (&robot, &robot_skeleton), &[("Nope".into(), None)]);
    assert_eq!(unknown, ["Nope"]);
}

/// The built-in character with its hands' vertices weighted to the forearms (as Godot's
/// mannequin ships them: the hand joint drives only the fingers), so the ragdoll finds no hand
/// body.
fn builtin_with_bodiless_hands() -> Vec<u8> {
    let (json, mut bin) = devtools::gltf::unpack_glb(MANNEQUIN).unwrap();
    let joints: Vec<String> = json["skins"][0]["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| json["nodes"][j.as_u64().unwrap() as usize]["name"].as_str().unwrap().to_owned())
        .collect();
    let index = |name: &str| u8::try_from(joints.iter().position(|j| j == name).unwrap()).unwrap();
    let moves = [(index("Hand.L"), index("LowerArm.L")), (index("Hand.R"), index("LowerArm.R"))];
    let mut moved = 0;
    for mesh in json["meshes"].as_array().unwrap() {
        for primitive in mesh["primitives"].as_array().unwrap() {
            let accessor = &json["accessors"][primitive["attributes"]["JOINTS_0"].as_u64().unwrap() as usize];
            assert_eq!(accessor["componentType"], 5121, "JOINTS_0 as bytes");
            let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
            let start =
                (view["byteOffset"].as_u64().unwrap_or(0) + accessor["byteOffset"].as_u64().unwrap_or(0)) as usize;
            let count = accessor["count"].as_u64().unwrap() as usize;
            for byte in &mut bin[start..start + 4 * count] {
                if let Some(&(_, to)) = moves.iter().find(|(from, _)| from == byte) {
                    *byte = to;
                    moved += 1;
                }
            }
        }
    }
    assert!(moved > 100, "only {moved} hand weights moved");
    devtools::gltf::pack_glb(&serde_json::to_vec(&json).unwrap(), &bin)
}

#[test]
fn a_hand_without_a_ragdoll_body_is_still_mapped_by_its_name() {
    let source = load(MANNEQUIN);
    let source_skeleton = Skeleton::new(&source).unwrap();
    let target = load(&builtin_with_bodiless_hands());
    let target_skeleton = Skeleton::new(&target).unwrap();
    let mapping = Mapping::automatic(&source_skeleton, &target_skeleton);
    for hand in ["Hand.L", "Hand.R"] {
        assert!(
            mapping.pairs.iter().any(|p| p.source_name == hand && p.target_name == hand),
            "{hand} unmapped: {:?}",
            mapping.unmapped_target
        );
    }
    assert!(mapping.unmapped_source.is_empty() && mapping.unmapped_target.is_empty(), "{mapping:?}");
    // The hands carry the wave: onto the same character they come through unchanged.
    let wave = clip(&source, "Wave");
    let on = retarget_clip(
        (&source, &source_skeleton),
        wave,
        (&target, &target_skeleton),
        &mapping,
        Options { foot_ik: false },
        "Wave",
    )
    .unwrap();
    let hand = on.end_effector_error_m.left_hand.zip(on.end_effector_error_m.right_hand);
    assert!(hand.is_some_and(|(l, r)| l < 1e-3 && r < 1e-3), "{:?}", on.end_effector_error_m);
}

/// The built-in character's joints under Rigify's deform names (`Hips` → `DEF-spine`, `Chest` →
/// `DEF-spine.003`, `Head` → `DEF-spine.006`, `UpperArm.L` → `DEF-upper_arm.L`, …), each with an
/// `ORG-` original and an `MCH-` mechanism twin beside it, plus Rigify's control bones (`torso`,
/// `hips`, `chest`, `neck`, `head`, `thigh_fk.L`, `foot_ik.R`, `tweak_spine.001`), all listed in the
/// skin and carrying no vertices, as Blender writes a Rigify armature exported with all bones.
fn builtin_as_full_rigify_export() -> Vec<u8> {
    const DEFORM: [(&str, &str); 21] = [
        ("Hips", "spine"),
        ("Spine", "spine.001"),
        ("Chest", "spine.003"),
        ("Neck", "spine.004"),
        ("Head", "spine.006"),
        ("Shoulder.L", "shoulder.L"),
        ("UpperArm.L", "upper_arm.L"),
        ("LowerArm.L", "forearm.L"),
        ("Hand.L", "hand.L"),
        ("Shoulder.R", "shoulder.R"),
        ("UpperArm.R", "upper_arm.R"),
        ("LowerArm.R", "forearm.R"),
        ("Hand.R", "hand.R"),
        ("UpperLeg.L", "thigh.L"),
        ("LowerLeg.L", "shin.L"),
        ("Foot.L", "foot.L"),
        ("Toes.L", "toe.L"),
        ("UpperLeg.R", "thigh.R"),
        ("LowerLeg.R", "shin.R"),
        ("Foot.R", "foot.R"),
        ("Toes.R", "toe.R"),
    ];
    const CONTROLS: [(&str, &str); 10] = [
        ("torso", "Hips"),
        ("hips", "Hips"),
        ("chest", "Chest"),
        ("neck", "Neck"),
        ("head", "Head"),
        ("tweak_spine.001", "Spine"),
        ("thigh_fk.L", "UpperLeg.L"),
        ("foot_ik.R", "Foot.R"),
        ("upper_arm_fk.L", "UpperArm.L"),
        ("hand_ik.R", "Hand.R"),
    ];
    let mut doc = devtools::gltf::Doc::from_glb(MANNEQUIN).unwrap();
    let node_named = |doc: &devtools::gltf::Doc, name: &str| {
        doc.json["nodes"].as_array().unwrap().iter().position(|n| n["name"] == name).unwrap()
    };
    let parents: std::collections::HashMap<usize, usize> = doc.json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .flat_map(|(p, n)| {
            n["children"].as_array().into_iter().flatten().map(move |c| (c.as_u64().unwrap() as usize, p))
        })
        .collect();
    let skin = &doc.json["skins"][0];
    let mut joints: Vec<usize> =
        skin["joints"].as_array().unwrap().iter().map(|j| j.as_u64().unwrap() as usize).collect();
    let binds = skin["inverseBindMatrices"].as_u64().unwrap() as usize;
    let view = &doc.json["bufferViews"][doc.json["accessors"][binds]["bufferView"].as_u64().unwrap() as usize];
    let start = (view["byteOffset"].as_u64().unwrap_or(0)
        + doc.json["accessors"][binds]["byteOffset"].as_u64().unwrap_or(0)) as usize;
    let mut matrices: Vec<f32> = doc.bin[start..start + 64 * joints.len()]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    // A helper bone beside `like`: same parent, same rest transform, its inverse bind.
    let mut twin = |doc: &mut devtools::gltf::Doc, name: String, like: usize| {
        let mut node = serde_json::json!({"name": name});
        for key in ["translation", "rotation", "scale"] {
            if let Some(v) = doc.json["nodes"][like].get(key) {
                node[key] = v.clone();
            }
        }
        let index = doc.add_node(node);
        match parents.get(&like) {
            Some(&p) => doc.json["nodes"][p]["children"].as_array_mut().unwrap().insert(0, index.into()),
            None => doc.json["scenes"][0]["nodes"].as_array_mut().unwrap().insert(0, index.into()),
        }
        let slot = joints.iter().position(|&j| j == like).unwrap();
        matrices.extend_from_within(16 * slot..16 * slot + 16);
        joints.push(index);
    };
    for (builtin, rigify) in DEFORM {
        let node = node_named(&doc, builtin);
        doc.json["nodes"][node]["name"] = format!("DEF-{rigify}").into();
        twin(&mut doc, format!("ORG-{rigify}"), node);
        twin(&mut doc, format!("MCH-{rigify}.parent"), node);
    }
    for (control, builtin) in CONTROLS {
        let rigify = DEFORM.iter().find(|(b, _)| *b == builtin).unwrap().1;
        let node = node_named(&doc, &format!("DEF-{rigify}"));
        twin(&mut doc, control.to_owned(), node);
    }
    let accessor = doc.add_f32(&matrices, "MAT4");
    doc.json["skins"][0]["inverseBindMatrices"] = accessor.into();
    doc.json["skins"][0]["joints"] = joints.into();
    // The hips' twins stand beside them at the scene root: no joint is the skin's common root.
    doc.json["skins"][0].as_object_mut().unwrap().remove("skeleton");
    doc.json["buffers"][0]["byteLength"] = doc.bin.len().into();
    doc.to_glb()
}

#[test]
fn a_full_rigify_export_maps_its_deform_bones_only() {
    let builtin = load(MANNEQUIN);
    let skeleton = Skeleton::new(&builtin).unwrap();
    let rigify_bytes = builtin_as_full_rigify_export();
    let rigify = load(&rigify_bytes);
    let rigify_skeleton = Skeleton::new(&rigify).unwrap();
    assert!(rigify_skeleton.is_humanoid());
    // Every recognised joint is a deform bone, the spine chain in its order.
    let names: Vec<&str> = rigify_skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    assert!(names.iter().all(|n| n.starts_with("DEF-")), "{names:?}");
    let spine: Vec<&str> = names.iter().copied().filter(|n| n.starts_with("DEF-spine")).collect();
    assert_eq!(spine, ["DEF-spine", "DEF-spine.001", "DEF-spine.003", "DEF-spine.004", "DEF-spine.006"]);
    let onto = Mapping::automatic(&skeleton, &rigify_skeleton);
    let from = Mapping::automatic(&rigify_skeleton, &skeleton);
    assert_eq!((onto.pairs.len(), from.pairs.len()), (21, 21), "{onto:?}\n{from:?}");
    assert!(onto.pairs.iter().all(|p| p.target_name.starts_with("DEF-")), "{onto:?}");
    assert!(from.pairs.iter().all(|p| p.source_name.starts_with("DEF-")), "{from:?}");
    let mapping = onto;
    let target_of =
        |source: &str| mapping.pairs.iter().find(|p| p.source_name == source).map(|p| p.target_name.as_str());
    for (source, target) in [
        ("Hips", "DEF-spine"),
        ("Spine", "DEF-spine.001"),
        ("Chest", "DEF-spine.003"),
        ("Neck", "DEF-spine.004"),
        ("Head", "DEF-spine.006"),
        ("Shoulder.L", "DEF-shoulder.L"),
        ("LowerArm.R", "DEF-forearm.R"),
        ("UpperLeg.L", "DEF-thigh.L"),
        ("Foot.R", "DEF-foot.R"),
    ] {
        assert_eq!(target_of(source), Some(target), "{mapping:?}");
    }
    // The built-in Walk onto it and back: every joint comes back within float rounding.
    let walk = clip(&builtin, "Walk");
    let written = retarget_to_file(
        (&builtin, &skeleton),
        (&rigify, &rigify_skeleton),
        FileBytes { bytes: &rigify_bytes, base_dir: None },
        &mapping,
        &[walk],
        Options::default(),
        &anim::import::Limits::default(),
    )
    .unwrap();
    let report = &written.report.clips[0];
    assert_eq!(report.round_trip_joints, 21);
    assert!(report.round_trip_max_deg < 0.1, "{}", report.round_trip_max_deg);
    assert!(report.foot_slide_m <= SLIDE_THRESHOLD_M, "{}", report.foot_slide_m);
}

#[test]
fn every_pair_both_ways_validates_keeps_feet_planted_and_round_trips() {
    let Some(rigs) = corpus() else { return };
    let dir = TempDir::new("retarget");
    let models: Vec<(Model, Skeleton)> = rigs
        .iter()
        .map(|r| {
            let model = load(&r.bytes);
            let skeleton = Skeleton::new(&model).unwrap();
            assert!(skeleton.is_humanoid(), "{} is not recognised as a humanoid", r.name);
            (model, skeleton)
        })
        .collect();
    println!(
        "| source | target | clip | hips ratio | foot slide (mm) | source slide (mm) | effector error L/R foot, L/R hand (mm) | round trip (°) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut failures = Vec::new();
    let mut own_errors = std::collections::HashMap::new();
    for (a, rig_a) in rigs.iter().enumerate() {
        for (b, rig_b) in rigs.iter().enumerate() {
            if a == b {
                continue;
            }
            let (source, target) = (&models[a], &models[b]);
            let mapping = Mapping::automatic(&source.1, &target.1);
            let clips: Vec<ClipId> = rig_a.clips.iter().map(|c| clip(&source.0, c)).collect();
            let written = retarget_to_file(
                (&source.0, &source.1),
                (&target.0, &target.1),
                FileBytes { bytes: &rig_b.bytes, base_dir: None },
                &mapping,
                &clips,
                Options::default(),
                &anim::import::Limits::default(),
            )
            .unwrap_or_else(|e| panic!("{} -> {}: {e:#}", rig_a.name, rig_b.name));
            assert!(written.report.finite, "{} -> {}", rig_a.name, rig_b.name);
            // Opens in animtune with its own clips and the new ones.
            assert_eq!(written.model.clips().len(), target.0.clips().len() + clips.len());
            let path = dir.path().join(format!("{}-on-{}.glb", rig_a.name, rig_b.name));
            std::fs::write(&path, &written.glb).unwrap();
            let reloaded = animtune::cli::load_model(&path).unwrap();
            for c in &written.report.clips {
                assert!(reloaded.find_clip(&c.name).is_some(), "{} lost {}", path.display(), c.name);
            }
            // No error of the validator's but the target file's own (RobotExpressive ships 752
            // non-normalized skin weights).
            if let Some(errors) = validator_errors(&path) {
                let own = own_errors.entry(b).or_insert_with(|| {
                    let original = dir.path().join(format!("{}.glb", rig_b.name));
                    std::fs::write(&original, &rig_b.bytes).unwrap();
                    validator_errors(&original).unwrap_or(0)
                });
                assert_eq!(errors, *own, "{}: errors beyond the target's own", path.display());
                if *own > 0 {
                    println!("({} itself has {own} validator errors; the output adds none)", rig_b.name);
                }
            }
            // The report's round trip A -> B -> A, the worst clip's.
            let round_trip = written.report.clips.iter().map(|c| c.round_trip_max_deg).fold(0.0, f32::max);
            let joints = written.report.clips.iter().map(|c| c.round_trip_joints).min().unwrap_or(0);
            assert!(joints >= 12, "{} -> {}: only {joints} joints mapped both ways", rig_a.name, rig_b.name);
            for c in &written.report.clips {
                let e = &c.end_effector_error_m;
                let mm = |v: Option<f32>| v.map_or_else(|| "-".to_owned(), |v| format!("{:.0}", v * 1000.0));
                println!(
                    "| {} | {} | {} | {:.3} | {:.1} | {:.1} | {} / {} / {} / {} | {:.3} |",
                    rig_a.name,
                    rig_b.name,
                    c.name,
                    c.hips_height_ratio,
                    c.foot_slide_m * 1000.0,
                    c.source_foot_slide_m * 1000.0,
                    mm(e.left_foot),
                    mm(e.right_foot),
                    mm(e.left_hand),
                    mm(e.right_hand),
                    c.round_trip_max_deg
                );
                if c.foot_slide_m > SLIDE_THRESHOLD_M.max(c.source_foot_slide_m) {
                    failures.push(format!(
                        "{} -> {} {}: foot slide {:.4} m over both 21 mm and the source's {:.4} m",
                        rig_a.name, rig_b.name, c.name, c.foot_slide_m, c.source_foot_slide_m
                    ));
                }
            }
            if round_trip > 1.0 {
                failures
                    .push(format!("{} -> {} -> {}: round trip {round_trip:.3}°", rig_a.name, rig_b.name, rig_a.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn foot_ik_plants_the_builtin_walk_on_the_robot_better_than_the_pose_alone_does() {
    let Some(robot) = shared("RobotExpressive/RobotExpressive.glb") else { return };
    let builtin = load(MANNEQUIN);
    let skeleton = Skeleton::new(&builtin).unwrap();
    let robot_model = load(&robot);
    let robot_skeleton = Skeleton::new(&robot_model).unwrap();
    let mapping = Mapping::automatic(&skeleton, &robot_skeleton);
    let walk = clip(&builtin, "Walk");
    let slide = |foot_ik: bool| {
        let written = retarget_to_file(
            (&builtin, &skeleton),
            (&robot_model, &robot_skeleton),
            FileBytes { bytes: &robot, base_dir: None },
            &mapping,
            &[walk],
            Options { foot_ik },
            &anim::import::Limits::default(),
        )
        .unwrap();
        written.report.clips[0].foot_slide_m
    };
    let (with, without) = (slide(true), slide(false));
    println!("builtin Walk on the robot: foot slide {with:.4} m with IK, {without:.4} m without");
    assert!(with <= SLIDE_THRESHOLD_M && with < without, "{with} vs {without}");
}

#[test]
fn the_command_writes_the_target_with_the_clips_added_and_prints_the_listed_json() {
    let dir = TempDir::new("retarget-cli");
    let out = dir.path().join("walk-on-builtin.glb");
    let output = Command::new(ANIMTUNE)
        .args(["retarget", "--clip", "Walk,Wave", "--onto", "builtin", "--out"])
        .arg(&out)
        .args(["--format", "json", "--no-foot-ik"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let keys: Vec<&str> = report.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["clips", "finite", "mapped", "unmapped_source", "unmapped_target"]);
    assert_eq!(report["finite"], true);
    assert_eq!(report["mapped"].as_array().unwrap().len(), 21, "{report}");
    assert_eq!(report["mapped"][0], serde_json::json!({"source": "Hips", "target": "Hips"}));
    let clips = report["clips"].as_array().unwrap();
    assert_eq!(clips[0]["name"], "Walk (retargeted)");
    assert_eq!(clips[1]["name"], "Wave (retargeted)");
    let effector = clips[0]["end_effector_error_m"].as_object().unwrap();
    assert_eq!(effector.keys().collect::<Vec<_>>(), ["left_foot", "left_hand", "right_foot", "right_hand"]);
    // Onto itself without foot IK the pose comes through unchanged: effectors where the source
    // has them.
    for v in effector.values() {
        assert!(v.as_f64().unwrap() < 1e-3, "{report}");
    }
    assert!((clips[0]["hips_height_ratio"].as_f64().unwrap() - 1.0).abs() < 1e-5);
    // The round trip onto itself and back: every joint mapped both ways, within a rounding of 0°.
    assert_eq!(clips[0]["round_trip_joints"], 21, "{report}");
    assert!(clips[0]["round_trip_max_deg"].as_f64().unwrap() < 0.1, "{report}");
    let written = animtune::cli::load_model(&out).unwrap();
    assert!(written.find_clip("Walk").is_some() && written.find_clip("Walk (retargeted)").is_some());

    // Bad input: a clear error, no panic.
    let bad = Command::new(ANIMTUNE)
        .args(["retarget", "--clip", "Nope", "--onto", "builtin", "--out"])
        .arg(dir.path().join("x.glb"))
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("clip \"Nope\" not found"));
    let Some(cube) = devtools::ci::shared_model_path("BoxAnimated/BoxAnimated.glb") else { return };
    let bad = Command::new(ANIMTUNE)
        .args(["retarget", "--clip", "Walk", "--onto"])
        .arg(&cube)
        .arg("--out")
        .arg(dir.path().join("y.glb"))
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("the target") && !stderr.contains("panicked"), "{stderr}");
}
