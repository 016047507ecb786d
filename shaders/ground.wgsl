// Ground plane at y = view.ground.x (the lowest point of the animated model, or 0): a grid that fades out with distance and a soft contact shadow (blob).
// Keep in sync with src/render/gpu_data.rs (ViewUniforms).

struct ViewUniforms {
    clip_from_world: mat4x4<f32>,
    eye_world: vec4<f32>,
    light_dir_world: vec4<f32>,
    light_color: vec4<f32>,
    sky_color: vec4<f32>,
    ground_color: vec4<f32>,
    blob: vec4<f32>,
    grid: vec4<f32>,
    // x: height (world y) of the ground plane.
    ground: vec4<f32>,
};

@group(0) @binding(0) var<uniform> view: ViewUniforms;

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_xz: vec2<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) vertex_index: u32) -> VertexOut {
    // Two triangles covering the square of half extent grid.y around (grid.z, grid.w).
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let xz = view.grid.zw + corners[vertex_index] * view.grid.y;
    var out: VertexOut;
    out.clip_position = view.clip_from_world * vec4<f32>(xz.x, view.ground.x, xz.y, 1.0);
    out.world_xz = xz;
    return out;
}

fn grid_lines(coord: vec2<f32>) -> f32 {
    let width = max(fwidth(coord), vec2<f32>(1e-6));
    let distance_to_line = abs(fract(coord - 0.5) - 0.5) / width;
    return 1.0 - min(min(distance_to_line.x, distance_to_line.y), 1.0);
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let cell = view.grid.x;
    let minor = grid_lines(in.world_xz / cell);
    let major = grid_lines(in.world_xz / (cell * 5.0));
    let from_center = length(in.world_xz - view.grid.zw) / view.grid.y;
    let fade = 1.0 - smoothstep(0.45, 1.0, from_center);

    var rgb = vec3<f32>(0.15, 0.155, 0.165);
    rgb = mix(rgb, vec3<f32>(0.24, 0.245, 0.26), minor * 0.7);
    rgb = mix(rgb, vec3<f32>(0.36, 0.37, 0.40), major * 0.8);

    let d = length(in.world_xz - view.blob.xy) / max(view.blob.z, 1e-6);
    let shadow = view.blob.w * exp(-2.2 * d * d);
    rgb = rgb * (1.0 - shadow);
    return vec4<f32>(rgb, fade * 0.9 + shadow * 0.1 * fade);
}
