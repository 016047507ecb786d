//! Skins and the skinning-palette job.
//!
//! [`PreparedSkin`] keeps a skin's inverse binds as 3×4 affine matrices when their last row is
//! `(0, 0, 0, 1)`, so a palette entry is three broadcast-multiply-adds per column instead of a
//! full 4×4 product (AVX2+FMA where the CPU has it).

use glam::{Affine3A, Mat4, Vec3A, Vec4};

use crate::ids::NodeId;
use crate::simd8::{Isa, Kernel, affine_columns, dispatch};

/// A skin: joints and their inverse bind matrices.
#[derive(Debug, Clone, PartialEq)]
pub struct Skin {
    /// The skin's name, when it has one.
    pub name: Option<String>,
    /// Joint nodes.
    pub joints: Vec<NodeId>,
    /// `joint_from_bind` for each joint (identity when the file gives none).
    pub inverse_bind_matrices: Vec<Mat4>,
    /// The skeleton root node, when given.
    pub skeleton: Option<NodeId>,
}

/// A skin prepared for palettes: its joints, and its inverse bind matrices as 3×4 affine
/// matrices when every one has the last row `(0, 0, 0, 1)` (as glTF skins do), else as given.
/// Made once when a model is loaded; [`PreparedSkin::skinning_matrices`] is the palette job.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedSkin {
    joints: Vec<NodeId>,
    inverse_binds: InverseBinds,
}

#[derive(Debug, Clone, PartialEq)]
enum InverseBinds {
    /// `joint_from_bind` of every joint, affine.
    Affine(Vec<Affine3A>),
    /// Some matrix is not affine: the general 4×4 product for all.
    General(Vec<Mat4>),
}

impl PreparedSkin {
    /// Prepare `skin`. Joints past the skin's inverse bind matrices are dropped.
    pub fn new(skin: &Skin) -> Self {
        let n = skin.joints.len().min(skin.inverse_bind_matrices.len());
        let joints = skin.joints[..n].to_vec();
        let matrices = &skin.inverse_bind_matrices[..n];
        let inverse_binds = if matrices.iter().all(|m| m.row(3) == Vec4::W) {
            InverseBinds::Affine(matrices.iter().map(|m| Affine3A::from_mat4(*m)).collect())
        } else {
            InverseBinds::General(matrices.to_vec())
        };
        Self { joints, inverse_binds }
    }

    /// Number of joints (palette entries).
    pub fn len(&self) -> usize {
        self.joints.len()
    }

    /// True for a skin without joints.
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// The joint nodes, in palette order.
    pub fn joints(&self) -> &[NodeId] {
        &self.joints
    }

    /// True when the inverse binds are all affine (the fast path).
    pub fn is_affine(&self) -> bool {
        matches!(self.inverse_binds, InverseBinds::Affine(_))
    }

    /// Fill `joint_palette[i] = model_from_joint[i] × inverse_bind[i]`: the matrices a vertex
    /// shader blends. `model_from_node` comes from [`crate::Hierarchy::local_to_model`];
    /// `joint_palette.len()` must equal [`PreparedSkin::len`] and every joint must be a node of
    /// `model_from_node` (panics otherwise). Allocates nothing.
    pub fn skinning_matrices(&self, model_from_node: &[Affine3A], joint_palette: &mut [Mat4]) {
        assert_eq!(joint_palette.len(), self.joints.len(), "one palette entry per joint");
        dispatch(Palette { skin: self, model_from_node, joint_palette });
    }
}

/// The palette kernel.
struct Palette<'a> {
    skin: &'a PreparedSkin,
    model_from_node: &'a [Affine3A],
    joint_palette: &'a mut [Mat4],
}

impl Kernel for Palette<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa>(self, isa: I) {
        let Self { skin, model_from_node, joint_palette } = self;
        match &skin.inverse_binds {
            InverseBinds::Affine(binds) => {
                for ((out, &joint), joint_from_bind) in joint_palette.iter_mut().zip(&skin.joints).zip(binds) {
                    *out = palette_entry(isa, &affine_columns(&model_from_node[joint.index()]), joint_from_bind);
                }
            }
            InverseBinds::General(binds) => {
                for ((out, &joint), joint_from_bind) in joint_palette.iter_mut().zip(&skin.joints).zip(binds) {
                    let [x, y, z, w] = affine_columns(&model_from_node[joint.index()]);
                    *out = Mat4::from_cols(x, y, z, w) * *joint_from_bind;
                }
            }
        }
    }
}

/// `model_from_joint × joint_from_bind` with `model_from_joint` as columns (`w` lanes 0, 0, 0,
/// 1) and an affine `joint_from_bind`.
#[inline(always)]
fn palette_entry<I: Isa>(isa: I, model_from_joint: &[Vec4; 4], joint_from_bind: &Affine3A) -> Mat4 {
    let [x, y, z, t] = *model_from_joint;
    let column = |c: Vec3A, acc: Vec4| {
        isa.madd4(z, Vec4::splat(c.z), isa.madd4(y, Vec4::splat(c.y), isa.madd4(x, Vec4::splat(c.x), acc)))
    };
    let m = &joint_from_bind.matrix3;
    Mat4::from_cols(
        column(m.x_axis, Vec4::ZERO),
        column(m.y_axis, Vec4::ZERO),
        column(m.z_axis, Vec4::ZERO),
        column(joint_from_bind.translation, t),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::{Hierarchy, LocalMatrices};
    use crate::pose::{SoaPose, Transform};
    use crate::rng::Rng;

    /// The palette of `skin` the plain way: glam's 4×4 products.
    fn reference_palette(skin: &Skin, model_from_node: &[Affine3A]) -> Vec<Mat4> {
        skin.joints
            .iter()
            .zip(&skin.inverse_bind_matrices)
            .map(|(joint, bind)| Mat4::from(model_from_node[joint.index()]) * *bind)
            .collect()
    }

    fn mat4_error(got: &Mat4, expected: &Mat4) -> f32 {
        let (got, expected) = (got.to_cols_array(), expected.to_cols_array());
        let scale = expected.iter().fold(1.0f32, |m, x| m.max(x.abs()));
        got.iter().zip(&expected).fold(0.0f32, |m, (a, b)| m.max((a - b).abs())) / scale
    }

    /// [`Palette`] returning the result.
    #[derive(Clone)]
    struct Run<'a>(&'a PreparedSkin, &'a [Affine3A]);

    impl Kernel for Run<'_> {
        type Output = Vec<Mat4>;
        #[inline(always)]
        fn run<I: Isa>(self, isa: I) -> Vec<Mat4> {
            let mut palette = vec![Mat4::ZERO; self.0.len()];
            Palette { skin: self.0, model_from_node: self.1, joint_palette: &mut palette }.run(isa);
            palette
        }
    }

    #[test]
    fn prepared_palette_matches_glam_for_affine_and_general_binds_on_every_isa() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for round in 0..40 {
            let n = 1 + rng.below(70);
            let transforms: Vec<Transform> = (0..n)
                .map(|_| Transform {
                    translation: rng.vec3(-2.0, 2.0),
                    rotation: rng.quat(),
                    scale: rng.vec3(0.4, 1.6),
                })
                .collect();
            let parents: Vec<Option<NodeId>> =
                (0..n).map(|i| (i > 0).then(|| NodeId::from_index(rng.below(i)))).collect();
            let hierarchy = Hierarchy::from_parents(&parents).expect("a tree");
            let mut model_from_node = vec![Affine3A::IDENTITY; n];
            let pose = SoaPose::from_transforms(&transforms, Vec::new());
            hierarchy.local_to_model(&pose, &mut LocalMatrices::new(n), &mut model_from_node);
            let joint_count = 1 + rng.below(2 * n);
            let joints: Vec<NodeId> = (0..joint_count).map(|_| NodeId::from_index(rng.below(n))).collect();
            let mut inverse_bind_matrices: Vec<Mat4> = (0..joint_count)
                .map(|_| Mat4::from_scale_rotation_translation(rng.vec3(0.5, 2.0), rng.quat(), rng.vec3(-3.0, 3.0)))
                .collect();
            let general = round % 4 == 3;
            if general {
                let k = rng.below(joint_count);
                inverse_bind_matrices[k].x_axis.w = 0.25;
            }
            let skin = Skin { name: None, joints, inverse_bind_matrices, skeleton: None };
            let prepared = PreparedSkin::new(&skin);
            assert_eq!(prepared.is_affine(), !general);
            assert_eq!(prepared.len(), joint_count);
            let expected = reference_palette(&skin, &model_from_node);
            let mut dispatched = vec![Mat4::ZERO; joint_count];
            prepared.skinning_matrices(&model_from_node, &mut dispatched);
            let mut runs = crate::simd8::each_isa(&Run(&prepared, &model_from_node));
            runs.push(("dispatched", dispatched));
            for (name, got) in runs {
                for (joint, (g, e)) in got.iter().zip(&expected).enumerate() {
                    let error = mat4_error(g, e);
                    assert!(error < 1e-5, "{name}: round {round}, joint {joint} off by {error:e}");
                }
            }
        }
    }

    #[test]
    fn palettes_have_clean_w_rows() {
        let transforms = vec![Transform { translation: glam::Vec3::X, ..Transform::IDENTITY }; 19];
        let parents: Vec<Option<NodeId>> = (0..19).map(|i| (i > 0).then(|| NodeId::from_index(i - 1))).collect();
        let hierarchy = Hierarchy::from_parents(&parents).expect("a chain");
        let mut model_from_node = vec![Affine3A::ZERO; 19];
        hierarchy.local_to_model(
            &SoaPose::from_transforms(&transforms, Vec::new()),
            &mut LocalMatrices::new(19),
            &mut model_from_node,
        );
        let skin = Skin {
            name: None,
            joints: (0..19).map(NodeId::from_index).collect(),
            inverse_bind_matrices: vec![Mat4::from_translation(glam::Vec3::new(1.0, 2.0, 3.0)); 19],
            skeleton: None,
        };
        let mut palette = vec![Mat4::ZERO; 19];
        PreparedSkin::new(&skin).skinning_matrices(&model_from_node, &mut palette);
        for m in &palette {
            assert_eq!(m.row(3), Vec4::W);
        }
        assert!((palette[18].w_axis.x - 20.0).abs() < 1e-5);
    }
}
