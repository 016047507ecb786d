// Screen-space overlay drawn on top of everything: skeleton bones (thin quads) and joints (discs).
// Vertices arrive in clip space, expanded on the CPU (src/render/overlay.rs).
// Keep in sync with src/render/gpu_data.rs (OverlayVertex).

struct OverlayIn {
    @location(0) clip_position: vec4<f32>,
    @location(1) color: vec4<f32>,
    @location(2) corner: vec2<f32>,
};

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) color: vec4<f32>,
    @location(1) corner: vec2<f32>,
};

@vertex
fn vs_main(in: OverlayIn) -> VertexOut {
    var out: VertexOut;
    out.clip_position = in.clip_position;
    out.color = in.color;
    out.corner = in.corner;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    // Discs: fade the rim; lines have corner = 0 and stay solid.
    let r = length(in.corner);
    let edge = max(fwidth(r), 1e-4);
    let coverage = 1.0 - smoothstep(1.0 - edge, 1.0, r);
    if (coverage <= 0.0) {
        discard;
    }
    // A dark outline ring on discs.
    let ring = smoothstep(0.62 - edge, 0.62, r) * step(1e-6, r);
    let rgb = mix(in.color.rgb, vec3<f32>(0.02, 0.02, 0.03), ring * 0.8);
    return vec4<f32>(rgb, in.color.a * coverage);
}
