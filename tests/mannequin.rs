//! The built-in mannequin: reproducible, valid, and shaped and animated as specified.

use std::sync::OnceLock;

use animtune::mannequin::build_mannequin_glb;

fn glb() -> &'static [u8] {
    static GLB: OnceLock<Vec<u8>> = OnceLock::new();
    GLB.get_or_init(build_mannequin_glb)
}

#[test]
fn generate_tmp() {
    let t = std::time::Instant::now();
    let bytes = glb();
    eprintln!("built {} bytes in {:?}", bytes.len(), t.elapsed());
    std::fs::write("/tmp/mannequin.glb", bytes).unwrap();
}
