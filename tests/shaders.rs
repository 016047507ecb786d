//! Every WGSL file in `shaders/` parses and validates with naga (no GPU needed).

use std::path::Path;

#[test]
fn every_wgsl_shader_validates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("shaders/ exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("wgsl") {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("readable shader");
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.emit_to_string(&source)));
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
            .validate(&module)
            .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.emit_to_string(&source)));
        checked.push(path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    }
    checked.sort();
    assert_eq!(checked, ["ground.wgsl", "mesh.wgsl", "overlay.wgsl"], "unexpected shader set");
}

/// A struct of a shader as `(member name, offset, size)` in member order, and its span.
fn wgsl_struct(file: &str, name: &str) -> (Vec<(String, u32, u32)>, u32) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders").join(file);
    let source = std::fs::read_to_string(&path).expect("readable shader");
    let module = naga::front::wgsl::parse_str(&source).expect("parses");
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("{file} has no struct {name}"));
    let naga::TypeInner::Struct { members, span } = &ty.inner else { panic!("{name} is not a struct") };
    let layout = members
        .iter()
        .filter(|m| !matches!(m.binding, Some(naga::Binding::BuiltIn(_))))
        .map(|m| (m.name.clone().unwrap_or_default(), m.offset, module.types[m.ty].inner.size(module.to_ctx())))
        .collect();
    (layout, *span)
}

/// `(field name, offset, size)` of a Rust struct's fields.
macro_rules! rust_layout {
    ($ty:ty { $($field:ident),* $(,)? }) => {{
        fn size_of_field<T, F>(_: impl Fn(&T) -> &F) -> usize {
            std::mem::size_of::<F>()
        }
        vec![$((stringify!($field).to_owned(), std::mem::offset_of!($ty, $field), size_of_field(|s: &$ty| &s.$field))),*]
    }};
}

/// WGSL member names match the Rust field names, except padding (named freely on both sides).
fn same_name(wgsl: &str, rust: &str) -> bool {
    wgsl == rust || (wgsl.starts_with("padding") && rust.starts_with("padding"))
}

/// Host-shareable structs (uniforms): every member at the same offset with the same size, and
/// the same total size.
fn assert_uniform_layout(file: &str, name: &str, rust: &[(String, usize, usize)], rust_size: usize) {
    let (wgsl, span) = wgsl_struct(file, name);
    assert_eq!(wgsl.len(), rust.len(), "{file} {name}: member count differs from gpu_data.rs");
    for ((w_name, w_offset, w_size), (r_name, r_offset, r_size)) in wgsl.iter().zip(rust) {
        assert!(same_name(w_name, r_name), "{file} {name}: member {w_name} where gpu_data.rs has {r_name}");
        assert_eq!(
            (*w_offset as usize, *w_size as usize),
            (*r_offset, *r_size),
            "{file} {name}.{w_name}: offset, size"
        );
    }
    assert_eq!(span as usize, rust_size, "{file} {name}: size differs from gpu_data.rs");
}

/// Vertex inputs: `vertex_attr_array!` packs the attributes in location order, so each Rust
/// field must sit where the sizes of the WGSL members before it end, and the struct hold them all.
fn assert_vertex_layout(file: &str, name: &str, rust: &[(String, usize, usize)], rust_size: usize) {
    let (wgsl, _) = wgsl_struct(file, name);
    assert_eq!(wgsl.len(), rust.len(), "{file} {name}: attribute count differs from gpu_data.rs");
    let mut packed = 0usize;
    for ((w_name, _, w_size), (r_name, r_offset, r_size)) in wgsl.iter().zip(rust) {
        assert!(same_name(w_name, r_name), "{file} {name}: attribute {w_name} where gpu_data.rs has {r_name}");
        assert_eq!((packed, *w_size as usize), (*r_offset, *r_size), "{file} {name}.{w_name}: offset, size");
        packed += *w_size as usize;
    }
    assert!(packed <= rust_size, "{file} {name}: the attributes overrun the vertex stride");
}

#[test]
fn wgsl_structs_mirror_gpu_data_sizes_and_offsets() {
    use animtune::render::gpu_data::{DrawUniforms, GpuVertex, OverlayVertex, ViewUniforms};
    let view = rust_layout!(ViewUniforms {
        clip_from_world,
        eye_world,
        light_dir_world,
        light_color,
        sky_color,
        ground_color,
        blob,
        grid,
        ground
    });
    for file in ["mesh.wgsl", "ground.wgsl"] {
        assert_uniform_layout(file, "ViewUniforms", &view, size_of::<ViewUniforms>());
    }
    let draw = rust_layout!(DrawUniforms {
        world_from_mesh,
        normal_from_mesh,
        base_color,
        uv_transform,
        emissive_uv_transform,
        tint,
        emissive,
        palette_offset,
        joint_count,
        influences,
        morph_target_count,
        morph_offset,
        morph_vertex_count,
        weights_offset,
        opacity,
        heat,
        palette_stride,
        weights_stride,
        alpha_mode
    });
    assert_uniform_layout("mesh.wgsl", "DrawUniforms", &draw, size_of::<DrawUniforms>());
    let vertex = rust_layout!(GpuVertex { position, normal, texcoord, color, joints0, weights0, joints1, weights1 });
    assert_vertex_layout("mesh.wgsl", "VertexIn", &vertex, size_of::<GpuVertex>());
    // The overlay vertex's trailing padding has no attribute.
    let overlay = rust_layout!(OverlayVertex { clip_position, color, corner });
    assert_vertex_layout("overlay.wgsl", "OverlayIn", &overlay, size_of::<OverlayVertex>());
}
