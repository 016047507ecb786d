//! Turns the glTF JSON and its buffers into the owned [`Model`], validating as it goes.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::Path;

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use serde_json::Value;

use super::Limits;
use super::accessor::{Accessor, Component, Data, ElementType, View, checked_u32s, parse_accessor};
use super::decoder::Decoder;
use super::extensions::{IMAGE_EXTENSIONS, extension, survey};
use super::json::{
    array, expect_object, get, index_list, name, opt_f32, opt_float_list, opt_floats, opt_index, opt_str, opt_u64,
    req_index, req_u64, top_array,
};
use super::uri::{decode_data_uri, resolve_relative};
use crate::clip::{Clip, RawClip};
use crate::error::{ImportError, ObjectKind, ObjectRef, Problem, invalid};
use crate::hierarchy::{Hierarchy, HierarchyError};
use crate::ids::NodeId;
use crate::model::{
    AlphaMode, Image, Material, Mesh, Model, MorphTarget, Node, Primitive, PrimitiveMode, Scene, TextureRef,
    TextureTransform,
};
use crate::pointer::PointerTrack;
use crate::pose::Transform;
use crate::skin::Skin;
use crate::timeline::Timeline;
use crate::track::{Interpolation, Property, Track, TrackValues};

pub(super) fn object_ref(kind: ObjectKind, index: usize, value: &Value) -> ObjectRef {
    ObjectRef { kind, index, name: name(value), part: None }
}

pub(super) fn bad_value(object: &ObjectRef, field: &'static str, reason: impl Into<String>) -> ImportError {
    invalid(object, Problem::BadValue { field, reason: reason.into() })
}

/// The most bytes a URI may yield, and what that limit is called in errors.
#[derive(Clone, Copy)]
pub(crate) struct ByteLimit {
    pub(crate) what: &'static str,
    pub(crate) limit: u64,
}

/// Read the bytes a `uri` names: a data URI or a file beside the model, refusing more than
/// `max` bytes before reading or decoding them.
pub(crate) fn read_uri(
    uri: &str,
    object: &ObjectRef,
    base_dir: Option<&Path>,
    max: ByteLimit,
) -> Result<(Option<String>, Vec<u8>), ImportError> {
    let shown: String = uri.chars().take(80).collect();
    let uri_error = |reason: String| invalid(object, Problem::Uri { uri: shown.clone(), reason });
    let too_big = |size: u64| invalid(object, Problem::Limit { what: max.what, value: size, limit: max.limit });
    if uri.starts_with("data:") {
        // Base64 decodes to at most 3 bytes per 4 characters (percent-encoding to fewer).
        let decoded_at_most = uri.len() as u64 / 4 * 3 + 3;
        if decoded_at_most > max.limit {
            return Err(too_big(decoded_at_most));
        }
        return decode_data_uri(uri).map_err(uri_error);
    }
    let Some(base_dir) = base_dir else {
        return Err(uri_error("external files cannot be resolved for a model loaded from memory".to_owned()));
    };
    let path = resolve_relative(base_dir, uri).map_err(uri_error)?;
    let size = std::fs::metadata(&path).map_err(|e| uri_error(format!("cannot read {}: {e}", path.display())))?.len();
    if size > max.limit {
        return Err(too_big(size));
    }
    let bytes = std::fs::read(&path).map_err(|e| uri_error(format!("cannot read {}: {e}", path.display())))?;
    let mime = match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("png") => Some("image/png".to_owned()),
        Some("jpg" | "jpeg") => Some("image/jpeg".to_owned()),
        Some("webp") => Some("image/webp".to_owned()),
        Some("ktx2") => Some("image/ktx2".to_owned()),
        _ => None,
    };
    Ok((mime, bytes))
}

pub(super) struct Builder<'a> {
    pub(super) root: &'a Value,
    pub(super) limits: &'a Limits,
    pub(super) decoder: &'a dyn Decoder,
    pub(super) buffers: Vec<Vec<u8>>,
    /// Per buffer: false for a compression fallback buffer that carries no data (its views are
    /// decoded from elsewhere).
    pub(super) buffer_has_data: Vec<bool>,
    pub(super) views: Vec<View>,
    pub(super) accessors: Vec<Accessor>,
    /// Vertices of the primitives parsed so far (checked against `max_total_vertices`).
    total_vertices: Cell<u64>,
    /// Indices of the primitives parsed so far (checked against `max_total_indices`).
    total_indices: Cell<u64>,
    /// Accessors' values as [`Data::read_f32`] gives them, known before the meshes read them:
    /// morph targets read ahead while Draco primitives decode
    /// ([`Builder::prefetch_draco_targets`]) and float attributes Draco decoded
    /// ([`Builder::finish_draco_primitives`]). Taken by the first read of each
    /// ([`Builder::floats`]); a later read of the same accessor reads its bytes.
    pub(super) prefetched: RefCell<HashMap<usize, Vec<f32>>>,
    /// Unsigned integer accessors' values as [`Data::read_u32`] gives them, decoded by Draco
    /// (indices, joints): taken by the first read of each ([`Builder::uints`]).
    pub(super) prefetched_u32: RefCell<HashMap<usize, Vec<u32>>>,
}

/// Build a model from the JSON document and the GLB binary chunk, if any.
pub(crate) fn build(
    json: &[u8],
    bin: Option<&[u8]>,
    base_dir: Option<&Path>,
    limits: &Limits,
    decoder: &dyn Decoder,
) -> Result<Model, ImportError> {
    let root: Value = serde_json::from_slice(json).map_err(|e| ImportError::Json(e.to_string()))?;
    let root_ref = ObjectRef::root();
    expect_object(&root, &root_ref)?;
    let asset = get(&root, "asset").ok_or_else(|| invalid(&root_ref, Problem::MissingField("asset")))?;
    let version = opt_str(asset, &root_ref, "version")?
        .ok_or_else(|| invalid(&root_ref, Problem::MissingField("asset.version")))?;
    if !version.starts_with("2.") {
        return Err(bad_value(&root_ref, "asset.version", format!("\"{version}\": only glTF 2.x is supported")));
    }
    let extensions = survey(&root, decoder)?;

    let mut b = Builder {
        root: &root,
        limits,
        decoder,
        buffers: Vec::new(),
        buffer_has_data: Vec::new(),
        views: Vec::new(),
        accessors: Vec::new(),
        total_vertices: Cell::new(0),
        total_indices: Cell::new(0),
        prefetched: RefCell::new(HashMap::new()),
        prefetched_u32: RefCell::new(HashMap::new()),
    };
    b.load_buffers(bin, base_dir)?;
    b.parse_views()?;
    let view_count = b.views.len();
    b.accessors = top_array(&root, "accessors")?
        .iter()
        .enumerate()
        .map(|(i, v)| parse_accessor(v, i, view_count))
        .collect::<Result<_, _>>()?;
    // Draco primitives decode in the background while the rest of the file is read; the meshes,
    // the only readers of their data, are read last.
    let mut draco = b.start_draco_primitives()?;

    let images = b.load_images(base_dir)?;
    let textures = b.parse_textures(images.len())?;
    let materials = b.parse_materials(&textures)?;
    let shapes = b.parse_mesh_shapes()?;
    // Without Draco data to wait for, the meshes are read here, before the nodes, as they always
    // were (reading them last makes repeated imports slower: the allocator then returns their
    // memory to the system at every drop and faults it in again).
    let mut meshes = match draco {
        None => Some(b.parse_meshes(materials.len(), &shapes)?),
        Some(_) => None,
    };
    let skins_json = top_array(&root, "skins")?;
    let (nodes, children) = b.parse_nodes(&shapes, skins_json.len())?;
    let hierarchy = build_hierarchy(&root, &children)?;
    check_depth(&root, &hierarchy, limits.max_node_depth)?;
    // A skin or an animation reading an accessor that Draco fills (nothing an exporter writes)
    // reads the decoded data, as the meshes do.
    if let Some(started) = draco.take_if(|started| reads_any(&root, |index| started.fills(index))) {
        b.finish_draco_primitives(started)?;
    }
    let skins = b.parse_skins(&nodes)?;
    let scenes = b.parse_scenes(&hierarchy)?;
    let default_scene = opt_index(&root, &root_ref, "scene", "scene", scenes.len())?;
    let weight_count = nodes.iter().map(|n| n.rest_weights.len()).sum();
    let (clips, pointer_tracks) = b.parse_animations(&nodes)?;
    let node_visible = top_array(&root, "nodes")?
        .iter()
        .map(|n| {
            extension(n, "KHR_node_visibility").and_then(|e| get(e, "visible")).and_then(Value::as_bool).unwrap_or(true)
        })
        .collect();
    b.check_pointer_targets(&pointer_tracks, nodes.len(), materials.len())?;
    if let Some(started) = draco {
        b.prefetch_draco_targets(&started);
        b.finish_draco_primitives(started)?;
    }
    let meshes = match meshes.take() {
        Some(meshes) => meshes,
        None => b.parse_meshes(materials.len(), &shapes)?,
    };
    check_skinned_meshes(&root, &nodes, &meshes, &skins)?;
    Ok(Model {
        nodes,
        hierarchy,
        scenes,
        default_scene,
        meshes,
        skins,
        materials,
        images,
        clips,
        weight_count,
        extensions,
        pointer_tracks,
        node_visible,
    })
}

impl Builder<'_> {
    /// Refuse the first of `values` whose magnitude exceeds `limits.max_abs_value`, naming its
    /// element (`components` values per element).
    pub(super) fn check_magnitude(
        &self,
        object: &ObjectRef,
        field: &'static str,
        accessor: Option<usize>,
        values: &[f32],
        components: usize,
    ) -> Result<(), ImportError> {
        let limit = self.limits.max_abs_value;
        match values.iter().position(|x| x.abs() > limit) {
            None => Ok(()),
            Some(bad) => Err(invalid(
                object,
                Problem::ValueTooLarge { field, accessor, element: bad / components.max(1), value: values[bad], limit },
            )),
        }
    }

    pub(super) fn data(&self) -> Data<'_> {
        Data { buffers: &self.buffers, views: &self.views, max_components: self.limits.max_accessor_components }
    }

    fn load_buffers(&mut self, bin: Option<&[u8]>, base_dir: Option<&Path>) -> Result<(), ImportError> {
        for (i, value) in top_array(self.root, "buffers")?.iter().enumerate() {
            let object = object_ref(ObjectKind::Buffer, i, value);
            expect_object(value, &object)?;
            let byte_length = req_u64(value, &object, "byteLength")?;
            if byte_length > self.limits.max_file_bytes {
                return Err(invalid(
                    &object,
                    Problem::Limit { what: "byteLength", value: byte_length, limit: self.limits.max_file_bytes },
                ));
            }
            let is_fallback = super::extensions::MESHOPT_EXTENSIONS.iter().any(|name| {
                extension(value, name).and_then(|e| get(e, "fallback")).and_then(Value::as_bool) == Some(true)
            });
            let mut bytes = match opt_str(value, &object, "uri")? {
                None => match (i, bin) {
                    (0, Some(bin)) => bin.to_vec(),
                    // A meshopt fallback buffer may carry no data: every view into it is
                    // decoded from a compressed view elsewhere.
                    _ if is_fallback => {
                        self.buffers.push(Vec::new());
                        self.buffer_has_data.push(false);
                        continue;
                    }
                    _ => return Err(invalid(&object, Problem::MissingField("uri"))),
                },
                Some(uri) => {
                    let max = ByteLimit { what: "file size in bytes", limit: self.limits.max_file_bytes };
                    read_uri(uri, &object, base_dir, max)?.1
                }
            };
            if (bytes.len() as u64) < byte_length {
                return Err(invalid(
                    &object,
                    Problem::OutOfBounds(format!(
                        "byteLength is {byte_length} but the data holds {} bytes",
                        bytes.len()
                    )),
                ));
            }
            // Bytes past byteLength (GLB chunk padding, longer data URIs) are not part of the
            // buffer: views must fit the declared length.
            bytes.truncate(byte_length as usize);
            self.buffers.push(bytes);
            self.buffer_has_data.push(true);
        }
        Ok(())
    }

    fn parse_views(&mut self) -> Result<(), ImportError> {
        for (i, value) in top_array(self.root, "bufferViews")?.iter().enumerate() {
            let object = object_ref(ObjectKind::BufferView, i, value);
            expect_object(value, &object)?;
            let buffer = req_index(value, &object, "buffer", "buffer", self.buffers.len())?;
            let byte_offset = opt_u64(value, &object, "byteOffset")?.unwrap_or(0);
            let byte_length = req_u64(value, &object, "byteLength")?;
            let byte_stride = opt_u64(value, &object, "byteStride")?;
            if let Some(view) = self.decode_meshopt_view(value, &object, byte_length, byte_stride)? {
                self.views.push(view);
                continue;
            }
            if !self.buffer_has_data[buffer] {
                return Err(invalid(
                    &object,
                    Problem::BadValue {
                        field: "buffer",
                        reason: format!(
                            "buffer {buffer} is a meshopt fallback buffer without data, but this view is not compressed"
                        ),
                    },
                ));
            }
            let available = self.buffers[buffer].len() as u64;
            if byte_offset.checked_add(byte_length).is_none_or(|end| end > available) {
                return Err(invalid(
                    &object,
                    Problem::OutOfBounds(format!(
                        "bytes {byte_offset}..{} lie outside buffer {buffer} of {available} bytes",
                        byte_offset.saturating_add(byte_length)
                    )),
                ));
            }
            if let Some(stride) = byte_stride
                && !(4..=252).contains(&stride)
            {
                return Err(bad_value(&object, "byteStride", format!("{stride} is outside 4..=252")));
            }
            self.views.push(View {
                buffer,
                byte_offset: byte_offset as usize,
                byte_length: byte_length as usize,
                byte_stride: byte_stride.map(|s| s as usize),
            });
        }
        Ok(())
    }

    /// The accessor at `index` (already range-checked) if its type suits the use.
    fn typed(
        &self,
        user: &ObjectRef,
        field: &'static str,
        index: usize,
        types: &[ElementType],
        allowed: fn(Component, bool) -> bool,
        expected: &'static str,
    ) -> Result<&Accessor, ImportError> {
        let a = &self.accessors[index];
        if types.contains(&a.element) && allowed(a.component, a.normalized) {
            Ok(a)
        } else {
            Err(invalid(user, Problem::AccessorType { field, accessor: index, expected, found: a.describe() }))
        }
    }

    fn check_count(
        user: &ObjectRef,
        field: &'static str,
        index: usize,
        a: &Accessor,
        expected: usize,
    ) -> Result<(), ImportError> {
        if a.count == expected as u64 {
            Ok(())
        } else {
            Err(invalid(user, Problem::AccessorCount { field, accessor: index, expected, found: a.count as usize }))
        }
    }

    fn load_images(&self, base_dir: Option<&Path>) -> Result<Vec<Image>, ImportError> {
        let mut images = Vec::new();
        for (i, value) in top_array(self.root, "images")?.iter().enumerate() {
            let object = object_ref(ObjectKind::Image, i, value);
            expect_object(value, &object)?;
            let mut mime_type = opt_str(value, &object, "mimeType")?.map(str::to_owned);
            let max = ByteLimit {
                what: "image size in bytes",
                limit: self.limits.max_image_bytes.min(self.limits.max_file_bytes),
            };
            let bytes = if let Some(uri) = opt_str(value, &object, "uri")? {
                let (mime, bytes) = read_uri(uri, &object, base_dir, max)?;
                mime_type = mime_type.or(mime);
                bytes
            } else if let Some(view) = opt_index(value, &object, "bufferView", "buffer view", self.views.len())? {
                let v = self.views[view];
                if v.byte_length as u64 > max.limit {
                    return Err(invalid(
                        &object,
                        Problem::Limit { what: max.what, value: v.byte_length as u64, limit: max.limit },
                    ));
                }
                self.buffers[v.buffer][v.byte_offset..v.byte_offset + v.byte_length].to_vec()
            } else {
                return Err(invalid(&object, Problem::MissingField("uri")));
            };
            if let Some(size) = self.decoder.inspect_image(mime_type.as_deref(), &bytes) {
                let size = size.map_err(|reason| bad_value(&object, "(image data)", reason))?;
                let pixels = u64::from(size.width) * u64::from(size.height);
                if pixels > self.limits.max_image_pixels {
                    return Err(invalid(
                        &object,
                        Problem::Limit { what: "image pixels", value: pixels, limit: self.limits.max_image_pixels },
                    ));
                }
            }
            images.push(Image { name: name(value), mime_type, bytes });
        }
        Ok(images)
    }

    fn parse_textures(&self, image_count: usize) -> Result<Vec<Option<usize>>, ImportError> {
        top_array(self.root, "textures")?
            .iter()
            .enumerate()
            .map(|(i, value)| {
                let object = object_ref(ObjectKind::Texture, i, value);
                expect_object(value, &object)?;
                // An image format the application decodes wins over the fallback `source`.
                for name in IMAGE_EXTENSIONS {
                    if let Some(ext) = extension(value, name)
                        && self.decoder.supports(name)
                        && let Some(source) = opt_index(ext, &object, "source", "image", image_count)?
                    {
                        return Ok(Some(source));
                    }
                }
                opt_index(value, &object, "source", "image", image_count)
            })
            .collect()
    }

    /// A texture reference (`baseColorTexture`, `emissiveTexture`): its texture's image, its
    /// `texCoord` and its `KHR_texture_transform`; `None` when the texture has no image
    /// animtune reads.
    fn texture_ref(
        &self,
        tex: &Value,
        object: &ObjectRef,
        textures: &[Option<usize>],
    ) -> Result<Option<TextureRef>, ImportError> {
        let texture = req_index(tex, object, "index", "texture", textures.len())?;
        let mut texcoord = opt_u64(tex, object, "texCoord")?.unwrap_or(0).min(u64::from(u32::MAX)) as u32;
        let transform = match extension(tex, "KHR_texture_transform") {
            None => None,
            Some(t) => {
                if let Some(set) = opt_u64(t, object, "texCoord")? {
                    texcoord = set.min(u64::from(u32::MAX)) as u32;
                }
                let mut transform = TextureTransform::default();
                if let Some([x, y]) = opt_floats::<2>(t, object, "offset")? {
                    transform.offset = Vec2::new(x, y);
                }
                if let Some(r) = opt_f32(t, object, "rotation")? {
                    transform.rotation_rad = r;
                }
                if let Some([x, y]) = opt_floats::<2>(t, object, "scale")? {
                    transform.scale = Vec2::new(x, y);
                }
                let values = [transform.offset.x, transform.offset.y, transform.rotation_rad];
                self.check_magnitude(object, "KHR_texture_transform", None, &values, 1)?;
                self.check_magnitude(object, "KHR_texture_transform", None, &transform.scale.to_array(), 1)?;
                Some(transform)
            }
        };
        Ok(textures[texture].map(|image| TextureRef { image, texcoord, transform }))
    }

    fn parse_materials(&self, textures: &[Option<usize>]) -> Result<Vec<Material>, ImportError> {
        let mut materials = Vec::new();
        for (i, value) in top_array(self.root, "materials")?.iter().enumerate() {
            let object = object_ref(ObjectKind::Material, i, value);
            expect_object(value, &object)?;
            let mut material = Material { name: name(value), ..Material::default() };
            if let Some(pbr) = get(value, "pbrMetallicRoughness") {
                if let Some(f) = opt_floats::<4>(pbr, &object, "baseColorFactor")? {
                    material.base_color_factor = Vec4::from(f);
                }
                if let Some(tex) = get(pbr, "baseColorTexture") {
                    material.base_color_texture = self.texture_ref(tex, &object, textures)?;
                }
                material.metallic_factor = opt_f32(pbr, &object, "metallicFactor")?.unwrap_or(1.0);
                material.roughness_factor = opt_f32(pbr, &object, "roughnessFactor")?.unwrap_or(1.0);
            }
            if let Some(tex) = get(value, "emissiveTexture") {
                material.emissive_texture = self.texture_ref(tex, &object, textures)?;
            }
            if let Some(f) = opt_floats::<3>(value, &object, "emissiveFactor")? {
                self.check_magnitude(&object, "emissiveFactor", None, &f, 3)?;
                material.emissive_factor = Vec3::from(f);
            }
            if let Some(ext) = extension(value, "KHR_materials_emissive_strength")
                && let Some(strength) = opt_f32(ext, &object, "emissiveStrength")?
            {
                if strength < 0.0 {
                    return Err(bad_value(&object, "emissiveStrength", "must not be negative"));
                }
                self.check_magnitude(&object, "emissiveStrength", None, &[strength], 1)?;
                material.emissive_strength = strength;
            }
            material.double_sided = get(value, "doubleSided").and_then(Value::as_bool).unwrap_or(false);
            material.alpha_mode = match opt_str(value, &object, "alphaMode")? {
                None | Some("OPAQUE") => AlphaMode::Opaque,
                Some("MASK") => AlphaMode::Mask,
                Some("BLEND") => AlphaMode::Blend,
                Some(_) => return Err(bad_value(&object, "alphaMode", "must be OPAQUE, MASK or BLEND")),
            };
            if let Some(cutoff) = opt_f32(value, &object, "alphaCutoff")? {
                if cutoff < 0.0 {
                    return Err(bad_value(&object, "alphaCutoff", "must not be negative"));
                }
                material.alpha_cutoff = cutoff;
            }
            materials.push(material);
        }
        Ok(materials)
    }

    /// Accessor `index` (`a`) as floats: the values [`Builder::prefetched`] holds for it, taken,
    /// or else read from its bytes ([`Data::read_f32`]).
    fn floats(&self, index: usize, a: &Accessor) -> Result<Vec<f32>, ImportError> {
        let prefetched = self.prefetched.borrow_mut().remove(&index);
        match prefetched {
            Some(floats) => Ok(floats),
            None => self.data().read_f32(a),
        }
    }

    /// Accessor `index` (`a`) as unsigned integers: the values [`Builder::prefetched_u32`] holds
    /// for it, taken and checked, or else read from its bytes ([`Data::read_u32`]).
    fn uints(&self, index: usize, a: &Accessor) -> Result<Vec<u32>, ImportError> {
        let prefetched = self.prefetched_u32.borrow_mut().remove(&index);
        match prefetched {
            Some(values) => checked_u32s(a, values),
            None => self.data().read_u32(a),
        }
    }

    fn vec3s(
        &self,
        user: &ObjectRef,
        field: &'static str,
        index: usize,
        count: Option<usize>,
    ) -> Result<Vec<Vec3>, ImportError> {
        let a = self.typed(user, field, index, &[ElementType::Vec3], |_, _| true, "VEC3")?;
        if let Some(count) = count {
            Self::check_count(user, field, index, a, count)?;
        }
        let floats = self.floats(index, a)?;
        if let Some(bad) = floats.iter().position(|x| !x.is_finite()) {
            return Err(invalid(user, Problem::NonFinite { field, element: bad / 3 }));
        }
        self.check_magnitude(user, field, Some(index), &floats, 3)?;
        Ok(floats.chunks_exact(3).map(Vec3::from_slice).collect())
    }

    fn parse_primitive(
        &self,
        value: &Value,
        object: &ObjectRef,
        material_count: usize,
    ) -> Result<Primitive, ImportError> {
        expect_object(value, object)?;
        let attributes =
            get(value, "attributes").ok_or_else(|| invalid(object, Problem::MissingField("attributes")))?;
        let accessor_count = self.accessors.len();
        let attr = |key: &'static str| opt_index(attributes, object, key, "accessor", accessor_count);
        let position_index =
            attr("POSITION")?.ok_or_else(|| invalid(object, Problem::MissingField("attributes.POSITION")))?;
        let vertices = self.total_vertices.get().saturating_add(self.accessors[position_index].count);
        if vertices > self.limits.max_total_vertices {
            return Err(invalid(
                object,
                Problem::Limit { what: "total vertex count", value: vertices, limit: self.limits.max_total_vertices },
            ));
        }
        self.total_vertices.set(vertices);
        let positions = self.vec3s(object, "POSITION", position_index, None)?;
        let vertex_count = positions.len();
        let normals = match attr("NORMAL")? {
            Some(i) => self.vec3s(object, "NORMAL", i, Some(vertex_count))?,
            None => Vec::new(),
        };
        let texcoords = match attr("TEXCOORD_0")? {
            Some(i) => {
                let a = self.typed(object, "TEXCOORD_0", i, &[ElementType::Vec2], |_, _| true, "VEC2")?;
                Self::check_count(object, "TEXCOORD_0", i, a, vertex_count)?;
                self.floats(i, a)?.chunks_exact(2).map(Vec2::from_slice).collect()
            }
            None => Vec::new(),
        };
        let colors = match attr("COLOR_0")? {
            Some(i) => {
                let a = self.typed(
                    object,
                    "COLOR_0",
                    i,
                    &[ElementType::Vec3, ElementType::Vec4],
                    |c, n| c == Component::F32 || (n && matches!(c, Component::U8 | Component::U16)),
                    "VEC3/VEC4 of FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT",
                )?;
                Self::check_count(object, "COLOR_0", i, a, vertex_count)?;
                let n = a.element.components();
                self.floats(i, a)?
                    .chunks_exact(n)
                    .map(|c| if n == 3 { Vec4::new(c[0], c[1], c[2], 1.0) } else { Vec4::from_slice(c) })
                    .collect()
            }
            None => Vec::new(),
        };
        let mut joints = Vec::new();
        let mut weights = Vec::new();
        for (jk, wk) in [("JOINTS_0", "WEIGHTS_0"), ("JOINTS_1", "WEIGHTS_1")] {
            let (Some(ji), Some(wi)) = (attr(jk)?, attr(wk)?) else { break };
            let a = self.typed(
                object,
                jk,
                ji,
                &[ElementType::Vec4],
                |c, n| !n && matches!(c, Component::U8 | Component::U16),
                "VEC4 of UNSIGNED_BYTE/UNSIGNED_SHORT",
            )?;
            Self::check_count(object, jk, ji, a, vertex_count)?;
            let j = self.uints(ji, a)?;
            joints.push(j.chunks_exact(4).map(|c| [c[0] as u16, c[1] as u16, c[2] as u16, c[3] as u16]).collect());
            let a = self.typed(
                object,
                wk,
                wi,
                &[ElementType::Vec4],
                |c, n| c == Component::F32 || (n && matches!(c, Component::U8 | Component::U16)),
                "VEC4 of FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT",
            )?;
            Self::check_count(object, wk, wi, a, vertex_count)?;
            let w = self.floats(wi, a)?;
            if let Some(bad) = w.iter().position(|x| !x.is_finite()) {
                return Err(invalid(object, Problem::NonFinite { field: wk, element: bad / 4 }));
            }
            self.check_magnitude(object, wk, Some(wi), &w, 4)?;
            weights.push(w.chunks_exact(4).map(Vec4::from_slice).collect());
        }
        let indices = match opt_index(value, object, "indices", "accessor", accessor_count)? {
            Some(i) => {
                let a = self.typed(
                    object,
                    "indices",
                    i,
                    &[ElementType::Scalar],
                    |c, n| !n && matches!(c, Component::U8 | Component::U16 | Component::U32),
                    "SCALAR of UNSIGNED_BYTE/UNSIGNED_SHORT/UNSIGNED_INT",
                )?;
                let total = self.total_indices.get().saturating_add(a.count);
                if total > self.limits.max_total_indices {
                    return Err(invalid(
                        object,
                        Problem::Limit {
                            what: "total index count",
                            value: total,
                            limit: self.limits.max_total_indices,
                        },
                    ));
                }
                self.total_indices.set(total);
                let indices = self.uints(i, a)?;
                if let Some(bad) = indices.iter().position(|&x| x as usize >= vertex_count) {
                    return Err(bad_value(
                        object,
                        "indices",
                        format!("index {bad} refers to vertex {} but there are {vertex_count}", indices[bad]),
                    ));
                }
                Some(indices)
            }
            None => None,
        };
        let mode = match opt_u64(value, object, "mode")?.unwrap_or(4) {
            0 => PrimitiveMode::Points,
            1 => PrimitiveMode::Lines,
            2 => PrimitiveMode::LineLoop,
            3 => PrimitiveMode::LineStrip,
            4 => PrimitiveMode::Triangles,
            5 => PrimitiveMode::TriangleStrip,
            6 => PrimitiveMode::TriangleFan,
            other => return Err(bad_value(object, "mode", format!("unknown primitive mode {other}"))),
        };
        let material = opt_index(value, object, "material", "material", material_count)?;
        let mut targets = Vec::new();
        for target in array(value, object, "targets")? {
            let positions = match opt_index(target, object, "POSITION", "accessor", accessor_count)? {
                Some(i) => self.vec3s(object, "targets.POSITION", i, Some(vertex_count))?,
                None => vec![Vec3::ZERO; vertex_count],
            };
            let normals = match opt_index(target, object, "NORMAL", "accessor", accessor_count)? {
                Some(i) => self.vec3s(object, "targets.NORMAL", i, Some(vertex_count))?,
                None => Vec::new(),
            };
            targets.push(MorphTarget { positions, normals });
        }
        Ok(Primitive { mode, positions, normals, texcoords, colors, joints, weights, indices, material, targets })
    }

    /// What nodes and animations need of every mesh, read from the JSON alone (no accessor):
    /// its morph target count and default weights, checked as [`Builder::parse_meshes`] would.
    fn parse_mesh_shapes(&self) -> Result<Vec<MeshShape>, ImportError> {
        let mut shapes = Vec::new();
        for (i, value) in top_array(self.root, "meshes")?.iter().enumerate() {
            let object = object_ref(ObjectKind::Mesh, i, value);
            expect_object(value, &object)?;
            let prims = array(value, &object, "primitives")?;
            if prims.is_empty() {
                return Err(invalid(&object, Problem::MissingField("primitives")));
            }
            let mut target_counts = Vec::with_capacity(prims.len());
            for (p, primitive) in prims.iter().enumerate() {
                let object = object.with_part("primitive", p);
                expect_object(primitive, &object)?;
                target_counts.push(array(primitive, &object, "targets")?.len());
            }
            let target_count = target_counts[0];
            if let Some(p) = target_counts.iter().position(|&n| n != target_count) {
                return Err(bad_value(
                    &object.with_part("primitive", p),
                    "targets",
                    format!("{} morph targets, but primitive 0 has {target_count}", target_counts[p]),
                ));
            }
            let default_weights = opt_float_list(value, &object, "weights")?.unwrap_or_else(|| vec![0.0; target_count]);
            self.check_magnitude(&object, "weights", None, &default_weights, 1)?;
            if default_weights.len() != target_count {
                return Err(bad_value(
                    &object,
                    "weights",
                    format!("{} weights for {target_count} morph targets", default_weights.len()),
                ));
            }
            shapes.push(MeshShape { target_count, default_weights });
        }
        Ok(shapes)
    }

    /// The meshes, with their [`MeshShape`]s (read first by [`Builder::parse_mesh_shapes`]).
    fn parse_meshes(&self, material_count: usize, shapes: &[MeshShape]) -> Result<Vec<Mesh>, ImportError> {
        let mut meshes = Vec::new();
        for ((i, value), shape) in top_array(self.root, "meshes")?.iter().enumerate().zip(shapes) {
            let object = object_ref(ObjectKind::Mesh, i, value);
            let primitives = array(value, &object, "primitives")?
                .iter()
                .enumerate()
                .map(|(p, v)| self.parse_primitive(v, &object.with_part("primitive", p), material_count))
                .collect::<Result<Vec<_>, _>>()?;
            let target_names = get(value, "extras")
                .and_then(|e| get(e, "targetNames"))
                .and_then(Value::as_array)
                .map(|names| names.iter().map(|n| n.as_str().unwrap_or_default().to_owned()).collect())
                .unwrap_or_default();
            meshes.push(Mesh {
                name: name(value),
                primitives,
                default_weights: shape.default_weights.clone(),
                target_names,
            });
        }
        Ok(meshes)
    }

    /// The nodes, and each node's child list.
    fn parse_nodes(
        &self,
        meshes: &[MeshShape],
        skin_count: usize,
    ) -> Result<(Vec<Node>, Vec<Vec<usize>>), ImportError> {
        let nodes_json = top_array(self.root, "nodes")?;
        if nodes_json.len() > self.limits.max_nodes {
            return Err(invalid(
                &ObjectRef::root(),
                Problem::Limit {
                    what: "node count",
                    value: nodes_json.len() as u64,
                    limit: self.limits.max_nodes as u64,
                },
            ));
        }
        let count = nodes_json.len();
        let mut nodes = Vec::with_capacity(count);
        let mut child_lists = Vec::with_capacity(count);
        let mut weights_offset = 0;
        for (i, value) in nodes_json.iter().enumerate() {
            let object = object_ref(ObjectKind::Node, i, value);
            expect_object(value, &object)?;
            let children = index_list(value, &object, "children", "node", count)?;
            let mesh = opt_index(value, &object, "mesh", "mesh", meshes.len())?;
            let skin = opt_index(value, &object, "skin", "skin", skin_count)?;
            if skin.is_some() && mesh.is_none() {
                return Err(bad_value(&object, "skin", "a node with a skin must have a mesh"));
            }
            let rest = if let Some(m) = opt_floats::<16>(value, &object, "matrix")? {
                self.check_magnitude(&object, "matrix", None, &m, 1)?;
                let (scale, rotation, translation) = Mat4::from_cols_array(&m).to_scale_rotation_translation();
                let rotation =
                    if rotation.is_finite() && rotation.length() > 0.5 { rotation.normalize() } else { Quat::IDENTITY };
                Transform { translation, rotation, scale }
            } else {
                let translation = opt_floats::<3>(value, &object, "translation")?;
                let scale = opt_floats::<3>(value, &object, "scale")?;
                for (field, values) in [("translation", &translation), ("scale", &scale)] {
                    if let Some(values) = values {
                        self.check_magnitude(&object, field, None, values, 1)?;
                    }
                }
                let translation = translation.map_or(Vec3::ZERO, Vec3::from);
                let scale = scale.map_or(Vec3::ONE, Vec3::from);
                let rotation = match opt_floats::<4>(value, &object, "rotation")? {
                    None => Quat::IDENTITY,
                    Some(r) => {
                        self.check_magnitude(&object, "rotation", None, &r, 1)?;
                        let q = Vec4::from(r);
                        if q.length() < 1e-6 {
                            return Err(bad_value(&object, "rotation", "quaternion has zero length"));
                        }
                        Quat::from_vec4(q.normalize())
                    }
                };
                Transform { translation, rotation, scale }
            };
            let target_count = mesh.map_or(0, |m| meshes[m].target_count);
            let rest_weights = match opt_float_list(value, &object, "weights")? {
                Some(w) if w.len() == target_count => {
                    self.check_magnitude(&object, "weights", None, &w, 1)?;
                    w
                }
                Some(w) => {
                    return Err(bad_value(
                        &object,
                        "weights",
                        format!("{} weights for {target_count} morph targets", w.len()),
                    ));
                }
                None => mesh.map_or_else(Vec::new, |m| meshes[m].default_weights.clone()),
            };
            child_lists.push(children);
            nodes.push(Node { name: name(value), rest, mesh, skin, rest_weights, weights_offset });
            weights_offset += target_count;
        }
        Ok((nodes, child_lists))
    }

    fn parse_skins(&self, nodes: &[Node]) -> Result<Vec<Skin>, ImportError> {
        let mut skins = Vec::new();
        for (i, value) in top_array(self.root, "skins")?.iter().enumerate() {
            let object = object_ref(ObjectKind::Skin, i, value);
            expect_object(value, &object)?;
            let joint_count = array(value, &object, "joints")?.len();
            if joint_count > self.limits.max_skin_joints {
                return Err(invalid(
                    &object,
                    Problem::Limit {
                        what: "joint count",
                        value: joint_count as u64,
                        limit: self.limits.max_skin_joints as u64,
                    },
                ));
            }
            let joints = index_list(value, &object, "joints", "node", nodes.len())?;
            if joints.is_empty() {
                return Err(invalid(&object, Problem::MissingField("joints")));
            }
            let inverse_bind_matrices =
                match opt_index(value, &object, "inverseBindMatrices", "accessor", self.accessors.len())? {
                    None => vec![Mat4::IDENTITY; joints.len()],
                    Some(index) => {
                        let a = self.typed(
                            &object,
                            "inverseBindMatrices",
                            index,
                            &[ElementType::Mat4],
                            |c, _| c == Component::F32,
                            "MAT4 of FLOAT",
                        )?;
                        if a.count < joints.len() as u64 {
                            return Err(invalid(
                                &object,
                                Problem::AccessorCount {
                                    field: "inverseBindMatrices",
                                    accessor: index,
                                    expected: joints.len(),
                                    found: a.count as usize,
                                },
                            ));
                        }
                        let floats = self.data().read_f32(a)?;
                        if let Some(bad) = floats.iter().position(|x| !x.is_finite()) {
                            return Err(invalid(
                                &object,
                                Problem::NonFinite { field: "inverseBindMatrices", element: bad / 16 },
                            ));
                        }
                        self.check_magnitude(&object, "inverseBindMatrices", Some(index), &floats, 16)?;
                        floats.chunks_exact(16).take(joints.len()).map(Mat4::from_cols_slice).collect()
                    }
                };
            let skeleton = opt_index(value, &object, "skeleton", "node", nodes.len())?;
            let joints = joints.into_iter().map(NodeId::from_index).collect();
            let skeleton = skeleton.map(NodeId::from_index);
            skins.push(Skin { name: name(value), joints, inverse_bind_matrices, skeleton });
        }
        Ok(skins)
    }

    fn parse_scenes(&self, hierarchy: &Hierarchy) -> Result<Vec<Scene>, ImportError> {
        let mut scenes = Vec::new();
        for (i, value) in top_array(self.root, "scenes")?.iter().enumerate() {
            let object = object_ref(ObjectKind::Scene, i, value);
            expect_object(value, &object)?;
            let roots: Vec<NodeId> = index_list(value, &object, "nodes", "node", hierarchy.len())?
                .into_iter()
                .map(NodeId::from_index)
                .collect();
            if let Some(&child) = roots.iter().find(|&&n| !hierarchy.is_root(n)) {
                return Err(bad_value(&object, "nodes", format!("node {child} is not a root node")));
            }
            scenes.push(Scene { name: name(value), roots });
        }
        Ok(scenes)
    }

    pub(super) fn key_times(&self, sampler: &ObjectRef, index: usize) -> Result<Vec<f32>, ImportError> {
        let a =
            self.typed(sampler, "input", index, &[ElementType::Scalar], |c, _| c == Component::F32, "SCALAR of FLOAT")?;
        let times = self.data().read_f32(a)?;
        for (key, &t) in times.iter().enumerate() {
            if !t.is_finite() {
                return Err(invalid(sampler, Problem::NonFinite { field: "input", element: key }));
            }
            if t < 0.0 {
                return Err(invalid(sampler, Problem::NegativeKeyTime { key, time_secs: t }));
            }
            if key > 0 && t <= times[key - 1] {
                return Err(invalid(
                    sampler,
                    Problem::KeyTimesNotIncreasing { key, previous_secs: times[key - 1], time_secs: t },
                ));
            }
        }
        self.check_magnitude(sampler, "input", Some(index), &times, 1)?;
        Ok(times)
    }

    fn parse_animations(&self, nodes: &[Node]) -> Result<(Vec<Clip>, Vec<Vec<PointerTrack>>), ImportError> {
        let mut clips = Vec::new();
        let mut clip_pointers = Vec::new();
        let mut total_keys: u64 = 0;
        for (i, value) in top_array(self.root, "animations")?.iter().enumerate() {
            let object = object_ref(ObjectKind::Animation, i, value);
            expect_object(value, &object)?;
            let samplers = array(value, &object, "samplers")?;
            let channels = array(value, &object, "channels")?;
            let mut timelines: Vec<Timeline> = Vec::new();
            let mut timeline_of_input: HashMap<usize, usize> = HashMap::new();
            let mut tracks = Vec::new();
            let mut pointers = Vec::new();
            for (c, channel) in channels.iter().enumerate() {
                let channel_ref = object.with_part("channel", c);
                expect_object(channel, &channel_ref)?;
                let s = req_index(channel, &channel_ref, "sampler", "sampler", samplers.len())?;
                let target =
                    get(channel, "target").ok_or_else(|| invalid(&channel_ref, Problem::MissingField("target")))?;
                let path = opt_str(target, &channel_ref, "path")?
                    .ok_or_else(|| invalid(&channel_ref, Problem::MissingField("target.path")))?;
                let property_of = |path: &str| match path {
                    "translation" => Some(Property::Translation),
                    "rotation" => Some(Property::Rotation),
                    "scale" => Some(Property::Scale),
                    "weights" => Some(Property::Weights),
                    _ => None,
                };
                let (node, property) = if path == "pointer" {
                    // KHR_animation_pointer: node transforms and weights become ordinary
                    // tracks; material, texture-transform and visibility pointers property
                    // tracks; other pointers are not read.
                    let pointer = extension(target, "KHR_animation_pointer")
                        .and_then(|e| get(e, "pointer"))
                        .and_then(Value::as_str)
                        .ok_or_else(|| {
                            invalid(
                                &channel_ref,
                                Problem::MissingField("target.extensions.KHR_animation_pointer.pointer"),
                            )
                        })?;
                    match node_pointer(pointer) {
                        Some((node, path)) => {
                            let node = super::json::check_index(node, &channel_ref, "pointer", "node", nodes.len())?;
                            (node, property_of(path).unwrap_or(Property::Translation))
                        }
                        None => {
                            if let Some(track) =
                                self.pointer_track(value, &object, c, channel, pointer, samplers, &mut total_keys)?
                            {
                                pointers.push(track);
                            }
                            continue;
                        }
                    }
                } else {
                    // A channel without a node is for other extensions: ignored, whatever its path.
                    let Some(node) = opt_index(target, &channel_ref, "node", "node", nodes.len())? else { continue };
                    let property = property_of(path)
                        .ok_or_else(|| bad_value(&channel_ref, "target.path", format!("unknown path \"{path}\"")))?;
                    (node, property)
                };

                let sampler_ref = object.with_part("sampler", s);
                let sampler = &samplers[s];
                expect_object(sampler, &sampler_ref)?;
                let interpolation = match opt_str(sampler, &sampler_ref, "interpolation")?.unwrap_or("LINEAR") {
                    "LINEAR" => Interpolation::Linear,
                    "STEP" => Interpolation::Step,
                    "CUBICSPLINE" => Interpolation::CubicSpline,
                    other => return Err(bad_value(&sampler_ref, "interpolation", format!("unknown mode \"{other}\""))),
                };
                let input = req_index(sampler, &sampler_ref, "input", "accessor", self.accessors.len())?;
                let output = req_index(sampler, &sampler_ref, "output", "accessor", self.accessors.len())?;
                let timeline = match timeline_of_input.get(&input) {
                    Some(&t) => t,
                    None => {
                        let times_secs = self.key_times(&sampler_ref, input)?;
                        total_keys += times_secs.len() as u64;
                        if total_keys > self.limits.max_total_keys {
                            return Err(invalid(
                                &sampler_ref,
                                Problem::Limit {
                                    what: "total key count",
                                    value: total_keys,
                                    limit: self.limits.max_total_keys,
                                },
                            ));
                        }
                        // Exporters often write identical key times to separate accessors.
                        let t = timelines.iter().position(|t| t.times_secs == times_secs).unwrap_or_else(|| {
                            timelines.push(Timeline { times_secs });
                            timelines.len() - 1
                        });
                        timeline_of_input.insert(input, t);
                        t
                    }
                };
                let keys = timelines[timeline].times_secs.len();
                let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
                let values = self.track_values(&sampler_ref, output, property, node, &nodes[node], keys * per_key)?;
                let values = normalize_rotation_keys(values, interpolation, &sampler_ref)?;
                let node = NodeId::from_index(node);
                tracks.push(Track { node, timeline, interpolation, values, channel: c, sampler: s });
            }
            // Property tracks count in the clip's length (a clip may animate only a material).
            let min_end_secs =
                pointers.iter().filter_map(|t: &PointerTrack| t.times_secs.last().copied()).fold(0.0, f32::max);
            // Everything RawClip::build checks was validated above with the glTF object named.
            let clip = RawClip { name: name(value), timelines, tracks, min_end_secs }
                .build()
                .map_err(|e| bad_value(&object, "samplers", e.to_string()))?;
            clips.push(clip);
            clip_pointers.push(pointers);
        }
        Ok((clips, clip_pointers))
    }

    fn track_values(
        &self,
        sampler: &ObjectRef,
        output: usize,
        property: Property,
        node_index: usize,
        node: &Node,
        elements: usize,
    ) -> Result<TrackValues, ImportError> {
        let float_or_normalized: fn(Component, bool) -> bool = |c, n| c == Component::F32 || (n && c != Component::U32);
        type Rule = (&'static [ElementType], fn(Component, bool) -> bool, &'static str);
        let (types, allowed, expected): Rule = match property {
            // Integer translations and scales come from KHR_mesh_quantization.
            Property::Translation | Property::Scale => {
                (&[ElementType::Vec3], |c, _| c != Component::U32, "VEC3 of FLOAT")
            }
            Property::Rotation => (&[ElementType::Vec4], float_or_normalized, "VEC4 of FLOAT or normalized BYTE/SHORT"),
            Property::Weights => {
                (&[ElementType::Scalar], float_or_normalized, "SCALAR of FLOAT or normalized BYTE/SHORT")
            }
        };
        let a = self.typed(sampler, "output", output, types, allowed, expected)?;
        let per_element = if property == Property::Weights {
            let targets = node.rest_weights.len();
            if targets == 0 {
                return Err(bad_value(
                    sampler,
                    "output",
                    format!("animates the weights of node {node_index}, which has no morph targets"),
                ));
            }
            targets
        } else {
            1
        };
        Self::check_count(sampler, "output", output, a, elements * per_element)?;
        let floats = self.data().read_f32(a)?;
        if let Some(bad) = floats.iter().position(|x| !x.is_finite()) {
            return Err(invalid(
                sampler,
                Problem::NonFinite { field: "output", element: bad / a.element.components() },
            ));
        }
        self.check_magnitude(sampler, "output", Some(output), &floats, a.element.components())?;
        Ok(match property {
            Property::Translation => TrackValues::Translation(floats.chunks_exact(3).map(Vec3::from_slice).collect()),
            Property::Scale => TrackValues::Scale(floats.chunks_exact(3).map(Vec3::from_slice).collect()),
            Property::Rotation => TrackValues::Rotation(floats.chunks_exact(4).map(Quat::from_slice).collect()),
            Property::Weights => {
                TrackValues::Weights { offset: node.weights_offset, count: per_element, values: floats }
            }
        })
    }
}

/// What nodes and animations need of a mesh before its primitives are read.
struct MeshShape {
    /// Morph targets of every primitive.
    target_count: usize,
    /// The mesh's `weights`, or zeros.
    default_weights: Vec<f32>,
}

/// True when a skin's `inverseBindMatrices` or an animation sampler's `input` or `output` is an
/// accessor `fills` holds (indices not read as such are checked where they are parsed).
fn reads_any(root: &Value, fills: impl Fn(usize) -> bool) -> bool {
    let items = |key| root.get(key).and_then(Value::as_array).into_iter().flatten();
    let index = |value: &Value, key| value.get(key).and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok());
    let skins = items("skins").filter_map(|skin| index(skin, "inverseBindMatrices"));
    let samplers = items("animations")
        .filter_map(|animation| animation.get("samplers").and_then(Value::as_array))
        .flatten()
        .flat_map(|sampler| [index(sampler, "input"), index(sampler, "output")])
        .flatten();
    skins.chain(samplers).any(fills)
}

/// `/nodes/{n}/translation|rotation|scale|weights`: the node and the path.
fn node_pointer(pointer: &str) -> Option<(u64, &str)> {
    let rest = pointer.strip_prefix("/nodes/")?;
    let (index, path) = rest.split_once('/')?;
    if !matches!(path, "translation" | "rotation" | "scale" | "weights") || (index.len() > 1 && index.starts_with('0'))
    {
        return None;
    }
    Some((index.parse().ok()?, path))
}

/// Rotation key values are made unit length (quantized keys are only approximately so);
/// cubic tangents are left as authored.
fn normalize_rotation_keys(
    values: TrackValues,
    interpolation: Interpolation,
    sampler: &ObjectRef,
) -> Result<TrackValues, ImportError> {
    let TrackValues::Rotation(mut keys) = values else { return Ok(values) };
    let (start, step) = if interpolation == Interpolation::CubicSpline { (1, 3) } else { (0, 1) };
    for (k, q) in keys.iter_mut().skip(start).step_by(step).enumerate() {
        let length = q.length();
        if length < 1e-6 {
            return Err(bad_value(sampler, "output", format!("rotation key {k} has zero length")));
        }
        *q = Quat::from_vec4(Vec4::from(*q) / length);
    }
    Ok(TrackValues::Rotation(keys))
}

/// The node tree from the child lists, rejecting two-parent nodes and cycles.
fn build_hierarchy(root: &Value, children: &[Vec<usize>]) -> Result<Hierarchy, ImportError> {
    let nodes_json = top_array(root, "nodes")?;
    let node_ref = |n: NodeId| object_ref(ObjectKind::Node, n.index(), &nodes_json[n.index()]);
    Hierarchy::from_children(children).map_err(|e| match e {
        HierarchyError::TwoParents { child, first, second } => {
            invalid(&node_ref(child), Problem::TwoParents { first: first.index(), second: second.index() })
        }
        HierarchyError::Cycle { node } => invalid(&node_ref(node), Problem::Cycle),
        // parse_nodes checked every child index.
        HierarchyError::NodeOutOfRange { node, referenced } => {
            bad_value(&node_ref(node), "children", format!("node {referenced} does not exist"))
        }
    })
}

/// Refuse hierarchies deeper than `max_depth` (a root has depth 1), naming the first node found
/// below the limit. Traversals elsewhere are iterative; the limit keeps models sane to show.
fn check_depth(root: &Value, hierarchy: &Hierarchy, max_depth: usize) -> Result<(), ImportError> {
    let mut depth = vec![0usize; hierarchy.len()];
    for &node in hierarchy.order() {
        let d = hierarchy.parent(node).map_or(1, |p| depth[p.index()] + 1);
        depth[node.index()] = d;
        if d > max_depth {
            let nodes_json = top_array(root, "nodes")?;
            return Err(invalid(
                &object_ref(ObjectKind::Node, node.index(), &nodes_json[node.index()]),
                Problem::Limit { what: "node depth", value: d as u64, limit: max_depth as u64 },
            ));
        }
    }
    Ok(())
}

/// Every skinned primitive's joint indices must fall inside its skin.
fn check_skinned_meshes(root: &Value, nodes: &[Node], meshes: &[Mesh], skins: &[Skin]) -> Result<(), ImportError> {
    let nodes_json = top_array(root, "nodes")?;
    for (i, node) in nodes.iter().enumerate() {
        let (Some(mesh), Some(skin)) = (node.mesh, node.skin) else { continue };
        let joint_count = skins[skin].joints.len();
        for (p, primitive) in meshes[mesh].primitives.iter().enumerate() {
            let max = primitive.joints.iter().flatten().flat_map(|j| j.iter().copied()).max();
            if let Some(max) = max
                && usize::from(max) >= joint_count
            {
                return Err(bad_value(
                    &object_ref(ObjectKind::Node, i, &nodes_json[i]),
                    "skin",
                    format!("mesh {mesh} primitive {p} uses joint {max} but skin {skin} has {joint_count} joints"),
                ));
            }
        }
    }
    Ok(())
}
