//! CPU morphing and skinning of one primitive: the reference for the GPU vertex shader
//! (`shaders/mesh.wgsl` does the same maths) and the source of animated bounds for framing.
//!
//! The job follows the glTF order: morph deltas first (in the mesh frame), then linear blend
//! skinning with the joint palette (`model_from_joint × inverse_bind`, see
//! [`crate::PreparedSkin::skinning_matrices`]). Allocates nothing: the caller owns the output buffers.

use glam::{Mat3, Mat4, Vec3};

use crate::model::Primitive;

/// Why a skinning job was rejected (sizes checked before any work is done).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SkinningError {
    /// `positions_out` does not hold one entry per vertex.
    #[error("positions_out holds {actual} entries, the primitive has {expected} vertices")]
    PositionsLen {
        /// Vertex count of the primitive.
        expected: usize,
        /// Length of the buffer given.
        actual: usize,
    },
    /// `normals_out` is neither empty nor one entry per vertex.
    #[error("normals_out holds {actual} entries, expected 0 or {expected}")]
    NormalsLen {
        /// Vertex count of the primitive.
        expected: usize,
        /// Length of the buffer given.
        actual: usize,
    },
}

/// Skin matrix of vertex `vertex`: the weighted sum of palette matrices over its 4 (`JOINTS_0`)
/// or 8 (`JOINTS_0` + `JOINTS_1`) influences, weights renormalised to sum 1.
///
/// Influences whose joint index is outside the palette are ignored; a vertex without any
/// weight keeps the identity. The GPU shader follows the same rules.
pub fn vertex_skin_matrix(primitive: &Primitive, vertex: usize, joint_palette: &[Mat4]) -> Mat4 {
    let mut skin = Mat4::ZERO;
    let mut total = 0.0;
    for (joints, weights) in primitive.joints.iter().zip(&primitive.weights).take(2) {
        let (Some(joints), Some(weights)) = (joints.get(vertex), weights.get(vertex)) else { continue };
        for (&joint, weight) in joints.iter().zip(weights.to_array()) {
            let Some(matrix) = joint_palette.get(usize::from(joint)) else { continue };
            if weight != 0.0 {
                skin += *matrix * weight;
                total += weight;
            }
        }
    }
    if total > 0.0 { skin * (1.0 / total) } else { Mat4::IDENTITY }
}

/// Morph then skin one primitive into caller buffers.
///
/// * `morph_weights`: one weight per morph target of the primitive (missing weights count as 0,
///   extra ones are ignored).
/// * `joint_palette`: `Some(palette)` for a skinned primitive (outputs are then in the model
///   frame); `None` leaves the morphed vertices in the mesh frame.
/// * `positions_out`: exactly one entry per vertex.
/// * `normals_out`: empty (normals skipped) or one entry per vertex; without normals in the
///   primitive it is filled with zeros. Skinned normals are renormalised.
///
/// # Errors
/// [`SkinningError`] when an output buffer has the wrong length (nothing is written then).
pub fn morph_and_skin(
    primitive: &Primitive,
    morph_weights: &[f32],
    joint_palette: Option<&[Mat4]>,
    positions_out: &mut [Vec3],
    normals_out: &mut [Vec3],
) -> Result<(), SkinningError> {
    let vertex_count = primitive.positions.len();
    if positions_out.len() != vertex_count {
        return Err(SkinningError::PositionsLen { expected: vertex_count, actual: positions_out.len() });
    }
    if !normals_out.is_empty() && normals_out.len() != vertex_count {
        return Err(SkinningError::NormalsLen { expected: vertex_count, actual: normals_out.len() });
    }
    let with_normals = !normals_out.is_empty();
    for vertex in 0..vertex_count {
        let mut position = primitive.positions[vertex];
        let mut normal = primitive.normals.get(vertex).copied().unwrap_or(Vec3::ZERO);
        for (target, &weight) in primitive.targets.iter().zip(morph_weights) {
            if weight == 0.0 {
                continue;
            }
            if let Some(delta) = target.positions.get(vertex) {
                position += *delta * weight;
            }
            if let Some(delta) = target.normals.get(vertex) {
                normal += *delta * weight;
            }
        }
        if let Some(palette) = joint_palette {
            let skin = vertex_skin_matrix(primitive, vertex, palette);
            position = skin.transform_point3(position);
            normal = (Mat3::from_mat4(skin) * normal).normalize_or_zero();
        }
        positions_out[vertex] = position;
        if with_normals {
            normals_out[vertex] = normal;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use glam::{Vec3, Vec4};

    use super::*;
    use crate::model::{MorphTarget, PrimitiveMode};

    fn primitive() -> Primitive {
        Primitive {
            mode: PrimitiveMode::Triangles,
            positions: vec![Vec3::X, Vec3::Y],
            normals: vec![Vec3::Z, Vec3::Z],
            texcoords: vec![],
            colors: vec![],
            joints: vec![vec![[0, 1, 0, 0], [1, 0, 0, 0]]],
            weights: vec![vec![Vec4::new(0.5, 0.5, 0.0, 0.0), Vec4::new(1.0, 0.0, 0.0, 0.0)]],
            indices: None,
            material: None,
            targets: vec![MorphTarget { positions: vec![Vec3::Y, Vec3::ZERO], normals: vec![] }],
        }
    }

    #[test]
    fn rejects_wrong_buffer_sizes() {
        let p = primitive();
        let mut positions = [Vec3::ZERO; 1];
        assert_eq!(
            morph_and_skin(&p, &[], None, &mut positions, &mut []),
            Err(SkinningError::PositionsLen { expected: 2, actual: 1 })
        );
        let mut positions = [Vec3::ZERO; 2];
        let mut normals = [Vec3::ZERO; 3];
        assert_eq!(
            morph_and_skin(&p, &[], None, &mut positions, &mut normals),
            Err(SkinningError::NormalsLen { expected: 2, actual: 3 })
        );
    }

    #[test]
    fn morphs_then_skins() {
        let p = primitive();
        let palette = [Mat4::IDENTITY, Mat4::from_translation(Vec3::new(0.0, 0.0, 2.0))];
        let mut positions = [Vec3::ZERO; 2];
        let mut normals = [Vec3::ZERO; 2];
        morph_and_skin(&p, &[1.0], Some(&palette), &mut positions, &mut normals).unwrap();
        // Vertex 0: morphed to (1, 1, 0), then half identity, half +2 z.
        assert!(positions[0].abs_diff_eq(Vec3::new(1.0, 1.0, 1.0), 1e-6));
        // Vertex 1: fully on joint 1.
        assert!(positions[1].abs_diff_eq(Vec3::new(0.0, 1.0, 2.0), 1e-6));
        assert!(normals[0].abs_diff_eq(Vec3::Z, 1e-6));
    }

    #[test]
    fn unnormalised_weights_and_bad_joints() {
        let mut p = primitive();
        p.weights[0][1] = Vec4::new(2.0, 0.0, 0.0, 0.0);
        p.joints[0][0] = [7, 0, 0, 0];
        let palette = [Mat4::IDENTITY, Mat4::from_translation(Vec3::Z)];
        let mut positions = [Vec3::ZERO; 2];
        morph_and_skin(&p, &[], Some(&palette), &mut positions, &mut []).unwrap();
        // Vertex 0: joint 7 is outside the palette and ignored; its other influence (joint 0, the
        // identity) renormalises to weight 1.
        assert!(positions[0].abs_diff_eq(Vec3::X, 1e-6));
        // Weight 2 on joint 1 renormalises to 1.
        assert!(positions[1].abs_diff_eq(Vec3::new(0.0, 1.0, 1.0), 1e-6));
    }

    #[test]
    fn eight_influences() {
        let mut p = primitive();
        p.joints.push(vec![[1, 0, 0, 0], [0, 0, 0, 0]]);
        p.weights[0][0] = Vec4::new(0.25, 0.0, 0.0, 0.0);
        p.weights.push(vec![Vec4::new(0.75, 0.0, 0.0, 0.0), Vec4::ZERO]);
        let palette = [Mat4::IDENTITY, Mat4::from_translation(Vec3::Z * 4.0)];
        let mut positions = [Vec3::ZERO; 2];
        morph_and_skin(&p, &[], Some(&palette), &mut positions, &mut []).unwrap();
        assert!(positions[0].abs_diff_eq(Vec3::new(1.0, 0.0, 3.0), 1e-6));
    }
}
