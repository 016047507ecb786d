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
