//! Node hierarchy in parents-first order, local→model transforms and skinning matrices.

use glam::{Affine3A, Mat4, Vec4};

use crate::model::Skin;
use crate::pose::Pose;

/// Marks a root in [`Hierarchy::parents`].
pub const NO_PARENT: u32 = u32::MAX;

/// The node tree flattened for one linear local→model pass.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hierarchy {
    /// Parent of each node (by glTF node index), [`NO_PARENT`] for roots.
    pub parents: Vec<u32>,
    /// Every node exactly once, each parent before its children.
    pub order: Vec<u32>,
}

impl Hierarchy {
    /// Build from a parent table that is known to be a forest (the importer checks this).
    ///
    /// Returns `None` when the table has a cycle or an out-of-range parent.
    pub fn from_parents(parents: Vec<u32>) -> Option<Self> {
        let n = parents.len();
        let mut children_start = vec![0u32; n + 1];
        for &p in &parents {
            if p != NO_PARENT {
                let p = p as usize;
                if p >= n {
                    return None;
                }
                children_start[p + 1] += 1;
            }
        }
        for i in 0..n {
            children_start[i + 1] += children_start[i];
        }
        let mut fill = children_start.clone();
        let mut children = vec![0u32; children_start[n] as usize];
        for (node, &p) in parents.iter().enumerate() {
            if p != NO_PARENT {
                let slot = &mut fill[p as usize];
                children[*slot as usize] = node as u32;
                *slot += 1;
            }
        }
        let mut order: Vec<u32> = (0..n as u32).filter(|&i| parents[i as usize] == NO_PARENT).collect();
        let mut head = 0;
        while head < order.len() {
            let node = order[head] as usize;
            head += 1;
            let range = children_start[node] as usize..children_start[node + 1] as usize;
            order.extend_from_slice(&children[range]);
        }
        (order.len() == n).then_some(Self { parents, order })
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// Parent of `node`, if any.
    pub fn parent(&self, node: usize) -> Option<usize> {
        self.parents.get(node).copied().filter(|&p| p != NO_PARENT).map(|p| p as usize)
    }

    /// Compute `model_from_node` for every node from the pose's local transforms, in one pass.
    ///
    /// `model_from_node` must hold one matrix per node (panics in debug builds otherwise).
    /// Allocates nothing.
    pub fn local_to_model(&self, pose: &Pose, model_from_node: &mut [Affine3A]) {
        debug_assert_eq!(model_from_node.len(), self.parents.len());
        debug_assert_eq!(pose.translations.len(), self.parents.len());
        for &node in &self.order {
            let node = node as usize;
            let parent_from_node = Affine3A::from_scale_rotation_translation(
                pose.scales[node],
                pose.rotations[node],
                pose.translations[node],
            );
            let parent = self.parents[node];
            model_from_node[node] = if parent == NO_PARENT {
                parent_from_node
            } else {
                model_from_node[parent as usize] * parent_from_node
            };
        }
    }
}

/// Fill `joint_palette[i] = model_from_joint[i] × inverse_bind[i]` for the skin's joints: the
/// matrices a vertex shader blends. Allocates nothing; `joint_palette.len()` must equal the
/// skin's joint count.
pub fn skinning_matrices(skin: &Skin, model_from_node: &[Affine3A], joint_palette: &mut [Mat4]) {
    debug_assert_eq!(joint_palette.len(), skin.joints.len());
    for ((out, &joint), inverse_bind) in joint_palette.iter_mut().zip(&skin.joints).zip(&skin.inverse_bind_matrices) {
        let [x, y, z, w] = affine_columns(&model_from_node[joint]);
        *out = Mat4::from_cols(x, y, z, w) * *inverse_bind;
    }
}

/// The four columns of an affine transform as a 4×4 matrix (`w` = 0, 0, 0, 1), straight from
/// its SIMD registers (glam's `Mat4::from(Affine3A)` rebuilds every column from scalars).
#[inline(always)]
pub(crate) fn affine_columns(m: &Affine3A) -> [Vec4; 4] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{__m128, _mm_and_ps, _mm_castsi128_ps, _mm_or_ps, _mm_set_epi32, _mm_set_ps};
        // SAFETY: register-only SSE2 operations; SSE2 is enabled (the cfg above).
        unsafe {
            let xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
            let column = |v: glam::Vec3A| -> Vec4 { _mm_and_ps(__m128::from(v), xyz).into() };
            let w_one = _mm_set_ps(1.0, 0.0, 0.0, 0.0);
            [
                column(m.matrix3.x_axis),
                column(m.matrix3.y_axis),
                column(m.matrix3.z_axis),
                _mm_or_ps(__m128::from(column(m.translation)), w_one).into(),
            ]
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        [
            m.matrix3.x_axis.extend(0.0),
            m.matrix3.y_axis.extend(0.0),
            m.matrix3.z_axis.extend(0.0),
            m.translation.extend(1.0),
        ]
    }
}

#[cfg(test)]
mod simd_tests {
    use super::*;
    use glam::{Quat, Vec3};

    #[test]
    fn affine_columns_match_glams_conversion() {
        for i in 0..200 {
            let f = i as f32;
            let rotation = Quat::from_euler(glam::EulerRot::XYZ, f * 0.37, f * -0.91, f * 1.73).normalize();
            let scale = Vec3::new(0.5 + (f * 0.13).sin().abs(), 1.0 + (f * 0.7).cos() * 0.5, 2.0 - (f * 0.3).sin());
            let m = Affine3A::from_scale_rotation_translation(scale, rotation, Vec3::new(f * 0.1, -f, 3.0));
            let [x, y, z, w] = affine_columns(&m);
            assert_eq!(Mat4::from_cols(x, y, z, w), Mat4::from(m));
        }
    }
}
