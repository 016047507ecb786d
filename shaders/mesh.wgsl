// Skinned, morphed, lit meshes.
// Keep in sync with src/render/gpu_data.rs (GpuVertex, ViewUniforms, DrawUniforms) and the
// CPU reference in crates/anim/src/skinning.rs (same morph-then-skin maths).

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

struct DrawUniforms {
    world_from_mesh: mat4x4<f32>,
    normal_from_mesh: mat4x4<f32>,
    base_color: vec4<f32>,
    // KHR_texture_transform of the base colour texture: two rows of a 2x3 matrix (w unused).
    uv_transform: array<vec4<f32>, 2>,
    // The same for the emissive texture.
    emissive_uv_transform: array<vec4<f32>, 2>,
    tint: vec4<f32>,
    // rgb: emitted light (emissiveFactor × emissiveStrength), added to the lit colour;
    // w: alphaCutoff, read when alpha_mode is MASK.
    emissive: vec4<f32>,
    palette_offset: u32,
    joint_count: u32,
    influences: u32,
    morph_target_count: u32,
    morph_offset: u32,
    morph_vertex_count: u32,
    weights_offset: u32,
    opacity: f32,
    heat: u32,
    // Crowds: per-instance strides into the palette and the morph weights.
    palette_stride: u32,
    weights_stride: u32,
    // alphaMode: 0 OPAQUE (alpha ignored), 1 MASK (discard below the cutoff, opaque above),
    // 2 BLEND (alpha blended, drawn after the opaque draws without writing depth).
    alpha_mode: u32,
};

@group(0) @binding(0) var<uniform> view: ViewUniforms;
// world_from_joint × inverse_bind for every joint of every skin of every instance.
@group(0) @binding(1) var<storage, read> joint_palette: array<mat4x4<f32>>;
// Morph weights of every node of every instance.
@group(0) @binding(2) var<storage, read> morph_weights: array<f32>;
// Per primitive, per target, per vertex: position delta then normal delta.
@group(0) @binding(3) var<storage, read> morph_deltas: array<vec4<f32>>;
// Heat in [0, 1] per palette entry (deviation heatmap), read when draw.heat is 1.
@group(0) @binding(4) var<storage, read> joint_heat: array<f32>;

@group(1) @binding(0) var<uniform> draw: DrawUniforms;

@group(2) @binding(0) var base_color_texture: texture_2d<f32>;
@group(2) @binding(1) var base_color_sampler: sampler;
// sRGB; a white texel when the material has none (the emissive factor alone).
@group(2) @binding(2) var emissive_texture: texture_2d<f32>;

struct VertexIn {
    @builtin(vertex_index) vertex_index: u32,
    @builtin(instance_index) instance_index: u32,
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) texcoord: vec2<f32>,
    @location(3) color: vec4<f32>,
    @location(4) joints0: vec4<u32>,
    @location(5) weights0: vec4<f32>,
    @location(6) joints1: vec4<u32>,
    @location(7) weights1: vec4<f32>,
};

struct VertexOut {
    // Invariant: the ghost depth pre-pass and colour pass must produce identical depths.
    @builtin(position) @invariant clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) texcoord: vec2<f32>,
    @location(3) color: vec4<f32>,
    @location(4) heat: f32,
    @location(5) emissive_texcoord: vec2<f32>,
};

struct Skin {
    matrix: mat4x4<f32>,
    total: f32,
    heat: f32,
};

fn add_influences(skin: Skin, joints: vec4<u32>, weights: vec4<f32>, base: u32) -> Skin {
    var out = skin;
    for (var i = 0u; i < 4u; i++) {
        let joint = joints[i];
        let weight = weights[i];
        if (weight != 0.0 && joint < draw.joint_count) {
            out.matrix = out.matrix + joint_palette[base + joint] * weight;
            out.total = out.total + weight;
            // Read unconditionally (see "No branch on uniforms alone"); weighted by draw.heat later.
            out.heat = out.heat + joint_heat[base + joint] * weight;
        }
    }
    return out;
}

fn mat3_of(m: mat4x4<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz);
}

// 1.0 when `flag` is set, else 0.0 (a select, not a branch).
fn factor(flag: bool) -> f32 {
    return select(0.0, 1.0, flag);
}

// `b` where `use_b`, else `a`, column by column (a select, not a branch).
fn pick(a: mat4x4<f32>, b: mat4x4<f32>, use_b: bool) -> mat4x4<f32> {
    return mat4x4<f32>(select(a[0], b[0], use_b), select(a[1], b[1], use_b), select(a[2], b[2], use_b), select(a[3], b[3], use_b));
}

// No branch on uniforms alone: Mesa's lavapipe (Vulkan on the CPU, up to at least 22.3) inlines
// uniform values that decide an `if` or a loop's end into the shader, recompiles the shader every
// time a draw binds new uniform values and never frees the old one, so a frame of a few draws
// leaked half a megabyte and took tens of milliseconds to compile. Per-draw switches here are
// selects and factors, and the morph loop's end also depends on a storage buffer's length.
@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    // Morph targets, in the mesh frame.
    var position = in.position;
    var normal = in.normal;
    let morph_targets = min(draw.morph_target_count, arrayLength(&morph_weights));
    for (var t = 0u; t < morph_targets; t++) {
        let weight = morph_weights[draw.weights_offset + in.instance_index * draw.weights_stride + t];
        if (weight != 0.0) {
            let base = draw.morph_offset + (t * draw.morph_vertex_count + in.vertex_index) * 2u;
            position = position + morph_deltas[base].xyz * weight;
            normal = normal + morph_deltas[base + 1u].xyz * weight;
        }
    }

    // Skinned primitives blend the joint palette; rigid ones (influences 0) read no joint
    // (their weights are zeroed) and use the node's matrices.
    let skinned = draw.influences > 0u;
    var skin = Skin(mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0)), 0.0, 0.0);
    let base = draw.palette_offset + in.instance_index * draw.palette_stride;
    skin = add_influences(skin, in.joints0, in.weights0 * factor(skinned), base);
    skin = add_influences(skin, in.joints1, in.weights1 * factor(draw.influences > 4u), base);
    var skin_from_mesh = mat4x4<f32>(
        vec4<f32>(1.0, 0.0, 0.0, 0.0),
        vec4<f32>(0.0, 1.0, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, 1.0, 0.0),
        vec4<f32>(0.0, 0.0, 0.0, 1.0),
    );
    var heat = 0.0;
    if (skin.total > 0.0) {
        skin_from_mesh = skin.matrix * (1.0 / skin.total);
        heat = skin.heat / skin.total * factor(draw.heat != 0u);
    }
    let world_from_mesh = pick(draw.world_from_mesh, skin_from_mesh, skinned);
    let normal_from_mesh = pick(draw.normal_from_mesh, skin_from_mesh, skinned);
    let world_position = (world_from_mesh * vec4<f32>(position, 1.0)).xyz;
    let world_normal = mat3_of(normal_from_mesh) * normal;

    var out: VertexOut;
    out.clip_position = view.clip_from_world * vec4<f32>(world_position, 1.0);
    out.world_position = world_position;
    out.world_normal = world_normal;
    let uv = vec3<f32>(in.texcoord, 1.0);
    out.texcoord = vec2<f32>(dot(draw.uv_transform[0].xyz, uv), dot(draw.uv_transform[1].xyz, uv));
    out.emissive_texcoord =
        vec2<f32>(dot(draw.emissive_uv_transform[0].xyz, uv), dot(draw.emissive_uv_transform[1].xyz, uv));
    out.color = in.color;
    out.heat = heat;
    return out;
}

// Blue (0) → green (0.5) → red (1), linear RGB.
fn heat_color(h: f32) -> vec3<f32> {
    let t = clamp(h, 0.0, 1.0);
    let cold = vec3<f32>(0.05, 0.2, 0.9);
    let mid = vec3<f32>(0.1, 0.8, 0.15);
    let hot = vec3<f32>(0.95, 0.08, 0.03);
    if (t < 0.5) {
        return mix(cold, mid, t * 2.0);
    }
    return mix(mid, hot, t * 2.0 - 1.0);
}

@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let texel = textureSample(base_color_texture, base_color_sampler, in.texcoord);
    let base = draw.base_color * in.color * texel;
    let emission = draw.emissive.rgb * textureSample(emissive_texture, base_color_sampler, in.emissive_texcoord).rgb;

    // Face normal when the mesh has no normals.
    let face_normal = normalize(cross(dpdx(in.world_position), dpdy(in.world_position)));
    var n = face_normal;
    if (dot(in.world_normal, in.world_normal) > 1e-12) {
        n = normalize(in.world_normal);
        if (!front_facing) {
            n = -n;
        }
    }
    let to_eye = normalize(view.eye_world.xyz - in.world_position);
    if (dot(n, to_eye) < 0.0 && dot(in.world_normal, in.world_normal) <= 1e-12) {
        n = -n;
    }

    let to_light = normalize(view.light_dir_world.xyz);
    let diffuse = max(dot(n, to_light), 0.0);
    let ambient = mix(view.ground_color.rgb, view.sky_color.rgb, n.y * 0.5 + 0.5);
    let half_vector = normalize(to_light + to_eye);
    let specular = pow(max(dot(n, half_vector), 0.0), 40.0) * 0.12 * diffuse;
    let rim = pow(1.0 - max(dot(n, to_eye), 0.0), 3.0) * 0.08;

    var rgb = base.rgb * (ambient + view.light_color.rgb * diffuse) + view.light_color.rgb * specular + vec3<f32>(rim);
    rgb = rgb + emission;
    rgb = mix(rgb, draw.tint.rgb * (0.35 + 0.65 * diffuse), draw.tint.a);
    rgb = mix(rgb, heat_color(in.heat) * (0.4 + 0.6 * diffuse), 0.85 * factor(draw.heat != 0u));
    // alphaMode MASK: the cutoff is a factor (0 unless masking, and alpha is never below 0), so
    // the discard depends on the texel and vertex alpha, never on the uniforms alone.
    if (base.a < draw.emissive.w * factor(draw.alpha_mode == 1u)) {
        discard;
    }
    return vec4<f32>(rgb, select(1.0, base.a, draw.alpha_mode == 2u) * draw.opacity);
}
