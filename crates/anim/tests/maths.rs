//! Analytic checks of the interpolation maths, local→model and skinning matrices.

#![allow(clippy::unwrap_used)]

use anim::interp::{euler_lerp, hermite, hermite_basis, log_lerp_vec3, matrix_lerp, nlerp, slerp};
use anim::{Hierarchy, LocalMatrices, NodeId, PreparedSkin};
use devtools::gltf::Doc;
use glam::{Affine3A, Mat4, Quat, Vec3};
use serde_json::json;

#[test]
fn matrix_lerp_half_way_through_a_quarter_turn_shrinks_columns_to_0_707() {
    let (rotation, lengths) = matrix_lerp(Quat::IDENTITY, Quat::from_rotation_z(90f32.to_radians()), 0.5);
    assert!((lengths.x - 0.707_106_77).abs() < 1e-6 && (lengths.y - 0.707_106_77).abs() < 1e-6, "{lengths}");
    assert!((lengths.z - 1.0).abs() < 1e-6);
    assert!(rotation.dot(Quat::from_rotation_z(45f32.to_radians())).abs() > 1.0 - 1e-6);
    // At the keys it is exact.
    let (_, ends) = matrix_lerp(Quat::IDENTITY, Quat::from_rotation_z(1.0), 1.0);
    assert!((ends - Vec3::ONE).abs().max_element() < 1e-6);
    // A half turn collapses two columns to zero length half way: still finite.
    let (r, l) = matrix_lerp(Quat::IDENTITY, Quat::from_rotation_y(std::f32::consts::PI), 0.5);
    assert!(r.is_finite() && l.x < 1e-6);
}

#[test]
fn log_scale_from_1_to_4_passes_2_half_way() {
    let v = log_lerp_vec3(Vec3::ONE, Vec3::splat(4.0), 0.5);
    assert!((v - Vec3::splat(2.0)).abs().max_element() < 1e-6);
    // Zero and negative scales (no logarithm) fall back to lerp and stay finite.
    let v = log_lerp_vec3(Vec3::new(0.0, -1.0, 2.0), Vec3::new(2.0, 1.0, 8.0), 0.5);
    assert_eq!(v.x, 1.0);
    assert_eq!(v.y, 0.0);
    assert!((v.z - 4.0).abs() < 1e-5);
}

#[test]
fn slerp_shortest_path_and_exact_ends() {
    let a = Quat::from_rotation_x(0.3);
    let b = Quat::from_rotation_x(2.9);
    assert_eq!(slerp(a, b, 0.0), a);
    assert!(slerp(a, b, 1.0).dot(b) > 1.0 - 1e-6);
    // −b is the same rotation: the path must not change.
    let mid = slerp(a, -b, 0.5);
    assert!(mid.dot(Quat::from_rotation_x(1.6)).abs() > 1.0 - 1e-6);
    // Nearly equal keys take the lerp branch and stay unit.
    let c = Quat::from_rotation_x(0.3 + 1e-4);
    assert!((slerp(a, c, 0.5).length() - 1.0).abs() < 1e-6);
    assert!((nlerp(a, -b, 0.5).dot(mid)).abs() > 1.0 - 1e-6, "nlerp and slerp agree half way");
}

#[test]
fn euler_lerp_of_a_single_axis_turn_matches_slerp_but_not_across_axes() {
    let a = Quat::IDENTITY;
    let b = Quat::from_rotation_x(1.2);
    assert!(euler_lerp(a, b, 0.5).dot(slerp(a, b, 0.5)).abs() > 1.0 - 1e-6);
    let c = Quat::from_rotation_y(1.5) * Quat::from_rotation_x(1.5);
    let gap = euler_lerp(a, c, 0.5).angle_between(slerp(a, c, 0.5));
    assert!(gap > 0.01, "euler-lerp leaves the slerp path: {gap}");
}

#[test]
fn hermite_basis_partitions_unity_and_hits_the_keys() {
    for i in 0..=10 {
        let s = i as f32 / 10.0;
        let [h00, _, h01, _] = hermite_basis(s);
        assert!((h00 + h01 - 1.0).abs() < 1e-6);
    }
    assert_eq!(hermite(1.0f32, 50.0, 3.0, -50.0, 2.0, 0.0), 1.0);
    assert_eq!(hermite(1.0f32, 50.0, 3.0, -50.0, 2.0, 1.0), 3.0);
}

#[test]
fn hierarchy_orders_parents_first_and_rejects_cycles() {
    let id = NodeId::from_index;
    let h = Hierarchy::from_parents(&[Some(id(2)), None, Some(id(1)), Some(id(0))]).unwrap();
    let position = |n: usize| h.order().iter().position(|&x| x == id(n)).unwrap();
    assert!(position(1) < position(2) && position(2) < position(0) && position(0) < position(3));
    assert!(Hierarchy::from_parents(&[Some(id(1)), Some(id(0))]).is_err());
    assert!(Hierarchy::from_parents(&[Some(id(5))]).is_err());
}

#[test]
fn local_to_model_composes_the_chain_and_bind_pose_skinning_is_identity() {
    let mut doc = Doc::new();
    let positions = doc.add_f32(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let joints = doc.add_raw(&[0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0], 5121, "VEC4", 3, false);
    let weights = doc.add_f32(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], "VEC4");
    let mesh = doc.add_mesh(
        json!({"primitives": [{"attributes": {"POSITION": positions, "JOINTS_0": joints, "WEIGHTS_0": weights}}]}),
    );
    // Children listed before parents in the file: the order must still be parents first.
    doc.add_node(json!({"translation": [0.0, 1.0, 0.0]}));
    doc.add_node(json!({"translation": [0.0, 1.0, 0.0], "children": [0]}));
    doc.add_node(json!({"children": [1], "rotation": [0.0, 0.0, 0.0, 1.0]}));
    doc.add_node(json!({"mesh": mesh, "skin": 0}));
    let world_bind = [Mat4::from_translation(Vec3::Y * 2.0), Mat4::from_translation(Vec3::Y), Mat4::IDENTITY];
    let ibm: Vec<f32> = world_bind.iter().flat_map(|m| m.inverse().to_cols_array()).collect();
    let ibm = doc.add_f32(&ibm, "MAT4");
    doc.json["skins"] = json!([{"joints": [0, 1, 2], "inverseBindMatrices": ibm, "skeleton": 2}]);
    let model = doc.load().unwrap();

    let mut pose = model.rest_pose();
    let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
    let mut locals = LocalMatrices::default();
    let skin = PreparedSkin::new(&model.skins()[0]);
    let mut palette = vec![Mat4::ZERO; 3];
    model.hierarchy.local_to_model(&pose, &mut locals, &mut world);
    assert!((world[0].translation - glam::Vec3A::new(0.0, 2.0, 0.0)).length() < 1e-6);
    skin.skinning_matrices(&world, &mut palette);
    for m in &palette {
        assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-6), "bind pose palette {m}");
    }
    // Turn the root 90° about Z: the tip (node 0) goes to (−2, 0, 0).
    pose.set_rotation(NodeId::from_index(2), Quat::from_rotation_z(90f32.to_radians()));
    model.hierarchy.local_to_model(&pose, &mut locals, &mut world);
    assert!((world[0].translation - glam::Vec3A::new(-2.0, 0.0, 0.0)).length() < 1e-5);
    skin.skinning_matrices(&world, &mut palette);
    // A vertex bound to the tip at (0, 2, 0) follows it.
    let v = palette[0].transform_point3(Vec3::new(0.0, 2.0, 0.0));
    assert!((v - Vec3::new(-2.0, 0.0, 0.0)).length() < 1e-5);
}

#[test]
fn polynomial_acos_and_sin_match_the_library_to_f32_precision() {
    use anim::interp::{acos_unit, sin_quarter_turn};
    let mut worst_acos = 0.0f64;
    let mut worst_sin = 0.0f64;
    for i in 0..=100_000 {
        let x = i as f32 / 100_000.0;
        worst_acos = worst_acos.max((f64::from(acos_unit(x)) - f64::from(x).acos()).abs());
        let angle = x * std::f32::consts::FRAC_PI_2;
        worst_sin = worst_sin.max((f64::from(sin_quarter_turn(angle)) - f64::from(angle).sin()).abs());
    }
    assert!(worst_acos < 3e-7, "acos error {worst_acos}");
    assert!(worst_sin < 3e-7, "sin error {worst_sin}");
    // Slerp against the textbook formula in f64, over many angles and parameters.
    let mut worst = 0.0f64;
    for i in 1..200 {
        let a = Quat::from_rotation_x(0.1);
        let b = Quat::from_axis_angle(Vec3::new(0.3, 1.0, -0.2).normalize(), i as f32 * 0.0157);
        for j in 0..=10 {
            let u = j as f32 / 10.0;
            let got = glam::Vec4::from(slerp(a, b, u));
            let (a64, b64) = (glam::Vec4::from(a).as_dvec4(), glam::Vec4::from(b).as_dvec4());
            let (b64, d) = if a64.dot(b64) < 0.0 { (-b64, -a64.dot(b64)) } else { (b64, a64.dot(b64)) };
            let omega = d.min(1.0).acos();
            let expected = if omega < 1e-9 {
                a64
            } else {
                a64 * (((1.0 - f64::from(u)) * omega).sin() / omega.sin())
                    + b64 * ((f64::from(u) * omega).sin() / omega.sin())
            };
            worst = worst.max((got.as_dvec4() - expected).abs().max_element());
        }
    }
    assert!(worst < 2e-6, "slerp error {worst}");
}
