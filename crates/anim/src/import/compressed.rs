//! Compressed data: meshopt buffer views and Draco primitives, decoded through the
//! [`Decoder`](super::decoder::Decoder) seam into ordinary buffers and views. Every size is
//! checked against the limits before anything is allocated or decoded.

use serde_json::Value;

use super::accessor::{Component, ElementType, View};
use super::decoder::{
    DecodedDraco, DracoAttribute, DracoComponent, DracoPrimitive, MeshoptFilter, MeshoptMode, MeshoptView,
    PendingDraco, meshopt_stride_suits,
};
use super::document::{Builder, bad_value, object_ref};
use super::extensions::{DRACO, MESHOPT_EXTENSIONS, extension};
use super::json::{get, opt_str, opt_u64, req_index, req_u64, top_array};
use crate::error::{ImportError, ObjectKind, ObjectRef, Problem, invalid};

impl<'a> Builder<'a> {
    /// When buffer view `value` is meshopt-compressed and a decoder reads it, decode it into a
    /// new buffer and return the view onto it. `None`: read the view's own (fallback) data.
    pub(super) fn decode_meshopt_view(
        &mut self,
        value: &Value,
        object: &ObjectRef,
        byte_length: u64,
        byte_stride: Option<u64>,
    ) -> Result<Option<View>, ImportError> {
        let Some((name, ext)) = MESHOPT_EXTENSIONS.iter().find_map(|&name| extension(value, name).map(|e| (name, e)))
        else {
            return Ok(None);
        };
        if !self.decoder.supports(name) {
            // Without a decoder the view's own bytes are the uncompressed fallback (checked by
            // the caller: a fallback buffer without data is refused there).
            return Ok(None);
        }
        let object = &object.with_part(name, 0);
        let buffer = req_index(ext, object, "buffer", "buffer", self.buffers.len())?;
        let offset = opt_u64(ext, object, "byteOffset")?.unwrap_or(0);
        let length = req_u64(ext, object, "byteLength")?;
        let stride = req_u64(ext, object, "byteStride")?;
        let count = req_u64(ext, object, "count")?;
        let mode = match opt_str(ext, object, "mode")? {
            Some("ATTRIBUTES") => MeshoptMode::Attributes,
            Some("TRIANGLES") => MeshoptMode::Triangles,
            Some("INDICES") => MeshoptMode::Indices,
            Some(other) => return Err(bad_value(object, "mode", format!("unknown mode \"{other}\""))),
            None => return Err(invalid(object, Problem::MissingField("mode"))),
        };
        let filter = match opt_str(ext, object, "filter")?.unwrap_or("NONE") {
            "NONE" => MeshoptFilter::None,
            "OCTAHEDRAL" => MeshoptFilter::Octahedral,
            "QUATERNION" => MeshoptFilter::Quaternion,
            "EXPONENTIAL" => MeshoptFilter::Exponential,
            "COLOR" if name == "KHR_meshopt_compression" => MeshoptFilter::Color,
            other => return Err(bad_value(object, "filter", format!("unknown filter \"{other}\""))),
        };
        if !meshopt_stride_suits(mode, filter, stride) {
            return Err(bad_value(
                object,
                "byteStride",
                format!("{stride} does not suit mode {mode:?} with filter {filter:?}"),
            ));
        }
        if mode == MeshoptMode::Triangles && !count.is_multiple_of(3) {
            return Err(bad_value(object, "count", format!("{count} triangle indices is not a multiple of 3")));
        }
        if byte_stride.is_some_and(|s| s != stride) && mode == MeshoptMode::Attributes {
            return Err(bad_value(object, "byteStride", "differs from the buffer view's byteStride".to_owned()));
        }
        let decoded_bytes = count.saturating_mul(stride);
        if decoded_bytes > self.limits.max_file_bytes {
            return Err(invalid(
                object,
                Problem::Limit {
                    what: "decoded buffer view bytes",
                    value: decoded_bytes,
                    limit: self.limits.max_file_bytes,
                },
            ));
        }
        if decoded_bytes != byte_length {
            return Err(bad_value(
                object,
                "count",
                format!("{count} × {stride} bytes does not match the buffer view's byteLength {byte_length}"),
            ));
        }
        if !self.buffer_has_data[buffer] {
            return Err(bad_value(object, "buffer", format!("buffer {buffer} is a fallback buffer without data")));
        }
        let available = self.buffers[buffer].len() as u64;
        let end = offset.checked_add(length).filter(|&end| end <= available).ok_or_else(|| {
            invalid(
                object,
                Problem::OutOfBounds(format!(
                    "compressed bytes {offset}..{} lie outside buffer {buffer} of {available} bytes",
                    offset.saturating_add(length)
                )),
            )
        })?;
        let compressed = &self.buffers[buffer][offset as usize..end as usize];
        let mut out = vec![0u8; decoded_bytes as usize];
        let request = MeshoptView {
            extension: name,
            compressed,
            count: count as usize,
            byte_stride: stride as usize,
            mode,
            filter,
        };
        self.decoder
            .decode_meshopt(&request, &mut out)
            .map_err(|reason| bad_value(object, "(compressed data)", reason))?;
        let index = self.buffers.len();
        self.buffers.push(out);
        self.buffer_has_data.push(true);
        Ok(Some(View {
            buffer: index,
            byte_offset: 0,
            byte_length: decoded_bytes as usize,
            byte_stride: byte_stride.map(|s| s as usize),
        }))
    }

    /// Check every Draco-compressed primitive (when a decoder reads them) against the limits and
    /// start decoding them all at once (the decoder may decode them in the background and in
    /// parallel): the importer reads the rest of the file meanwhile and places the results with
    /// [`Builder::finish_draco_primitives`] before it reads the meshes. `None` when the file has
    /// no Draco primitive to decode.
    pub(super) fn start_draco_primitives(&self) -> Result<Option<DracoStarted<'a>>, ImportError> {
        if !self.decoder.supports(DRACO) {
            return Ok(None);
        }
        let root = self.root;
        let mut plans = Vec::new();
        for (m, mesh) in top_array(root, "meshes")?.iter().enumerate() {
            let Some(primitives) = get(mesh, "primitives").and_then(Value::as_array) else { continue };
            for (p, primitive) in primitives.iter().enumerate() {
                let Some(ext) = extension(primitive, DRACO) else { continue };
                let object = object_ref(ObjectKind::Mesh, m, mesh).with_part("primitive", p);
                plans.push(self.plan_draco_primitive(primitive, ext, &object)?);
            }
        }
        if plans.is_empty() {
            return Ok(None);
        }
        let requests: Vec<DracoPrimitive<'_>> = plans
            .iter()
            .map(|plan| {
                let v = self.views[plan.view];
                DracoPrimitive {
                    compressed: &self.buffers[v.buffer][v.byte_offset..v.byte_offset + v.byte_length],
                    attributes: plan.wanted.clone(),
                    vertex_count: plan.vertex_count,
                    index_count: plan.index_count,
                }
            })
            .collect();
        let pending = self.decoder.start_draco_all(&requests);
        Ok(Some(DracoStarted { plans, pending }))
    }

    /// While the Draco primitives decode, read their morph targets (which Draco does not
    /// compress) so that the meshes, read after the wait, find them read. Only reads the meshes
    /// make anyway: VEC3 accessors with their data in the file, as many elements as the
    /// primitive has vertices, Draco primitives up to `max_total_vertices` in all. An accessor
    /// that fails to read is left to the meshes, which report it in order.
    pub(super) fn prefetch_draco_targets(&self, started: &DracoStarted<'_>) {
        let mut prefetched = self.prefetched.borrow_mut();
        let mut vertices = 0u64;
        for plan in &started.plans {
            vertices = vertices.saturating_add(plan.vertex_count as u64);
            if vertices > self.limits.max_total_vertices {
                return;
            }
            for &index in &plan.targets {
                let a = &self.accessors[index];
                let wanted = a.view.is_some()
                    && a.sparse.is_none()
                    && a.element == ElementType::Vec3
                    && a.count == plan.vertex_count as u64
                    && !started.fills(index)
                    && !prefetched.contains_key(&index);
                if wanted && let Ok(values) = self.data().read_f32(a) {
                    prefetched.insert(index, values);
                }
            }
        }
    }

    /// Wait for the Draco primitives [`Builder::start_draco_primitives`] started and place the
    /// decoded data in new buffers, pointing the primitives' accessors at it. The first
    /// primitive (in file order) that failed is the error.
    pub(super) fn finish_draco_primitives(&mut self, started: DracoStarted<'_>) -> Result<(), ImportError> {
        let DracoStarted { plans, pending } = started;
        let results = pending.wait();
        if results.len() != plans.len() {
            return Err(bad_value(
                &plans[0].object,
                "KHR_draco_mesh_compression",
                format!("the decoder returned {} results for {} primitives", results.len(), plans.len()),
            ));
        }
        for (plan, result) in plans.into_iter().zip(results) {
            let decoded = result.map_err(|reason| bad_value(&plan.object, "KHR_draco_mesh_compression", reason))?;
            self.place_draco_primitive(&plan, decoded)?;
        }
        Ok(())
    }

    /// Read a Draco primitive's extension and accessors and check its counts against the limits.
    fn plan_draco_primitive(
        &self,
        primitive: &Value,
        ext: &Value,
        object: &ObjectRef,
    ) -> Result<DracoPlan, ImportError> {
        let accessor_count = self.accessors.len();
        let view = req_index(ext, object, "bufferView", "buffer view", self.views.len())?;
        let ids = get(ext, "attributes").and_then(Value::as_object).ok_or_else(|| {
            invalid(object, Problem::MissingField("extensions.KHR_draco_mesh_compression.attributes"))
        })?;
        let attributes =
            get(primitive, "attributes").ok_or_else(|| invalid(object, Problem::MissingField("attributes")))?;
        let mut wanted = Vec::new();
        let mut accessors = Vec::new();
        let mut vertex_count: Option<u64> = None;
        for (semantic, id) in ids {
            let id = id.as_u64().and_then(|id| u32::try_from(id).ok()).ok_or_else(|| {
                bad_value(object, "KHR_draco_mesh_compression.attributes", format!("{semantic}: id must be an integer"))
            })?;
            // Attributes the primitive does not list are not decoded (the extension allows it).
            let Some(index) = get(attributes, semantic).and_then(Value::as_u64) else { continue };
            let index = super::json::check_index(index, object, "attributes", "accessor", accessor_count)?;
            let a = &self.accessors[index];
            if vertex_count.is_some_and(|n| n != a.count) {
                return Err(bad_value(
                    object,
                    "attributes",
                    format!(
                        "{semantic} has {} elements, other Draco attributes {}",
                        a.count,
                        vertex_count.unwrap_or(0)
                    ),
                ));
            }
            vertex_count = Some(a.count);
            let component = draco_component(a.component);
            let components = a.element.components();
            if matches!(a.element, ElementType::Mat2 | ElementType::Mat3 | ElementType::Mat4) {
                return Err(bad_value(object, "attributes", format!("{semantic}: matrices are not Draco attributes")));
            }
            wanted.push(DracoAttribute {
                semantic: semantic.clone(),
                unique_id: id,
                components,
                component,
                normalized: a.normalized,
            });
            accessors.push(index);
        }
        let Some(vertex_count) = vertex_count else {
            return Err(bad_value(
                object,
                "KHR_draco_mesh_compression.attributes",
                "names no attribute of the primitive",
            ));
        };
        let limit = |what, value: u64, limit: u64| {
            if value > limit { Err(invalid(object, Problem::Limit { what, value, limit })) } else { Ok(()) }
        };
        limit("total vertex count", vertex_count, self.limits.max_total_vertices)?;
        let indices = super::json::opt_index(primitive, object, "indices", "accessor", accessor_count)?;
        let index_count = indices.map(|i| self.accessors[i].count);
        if let Some(n) = index_count {
            limit("total index count", n, self.limits.max_total_indices)?;
        }
        let components: u64 = wanted.iter().map(|w| w.components as u64).max().unwrap_or(0);
        limit("accessor components", vertex_count.saturating_mul(components), self.limits.max_accessor_components)?;
        // Morph targets stay uncompressed; the meshes check these indices when they read them.
        let targets = get(primitive, "targets")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .flat_map(|target| ["POSITION", "NORMAL"].map(|key| get(target, key).and_then(Value::as_u64)))
            .flatten()
            .filter_map(|index| usize::try_from(index).ok().filter(|&i| i < accessor_count))
            .collect();
        Ok(DracoPlan {
            object: object.clone(),
            view,
            wanted,
            accessors,
            vertex_count: vertex_count as usize,
            indices,
            index_count: index_count.map(|n| n as usize),
            targets,
        })
    }

    /// The decoded attributes become new buffers (moved, not copied), one view per accessor.
    /// Float attributes, unsigned integer attributes and the indices are also handed to the
    /// meshes as values ([`Builder::prefetched`], [`Builder::prefetched_u32`]): what
    /// [`Data::read_f32`](super::accessor::Data::read_f32) and
    /// [`Data::read_u32`](super::accessor::Data::read_u32) would read back from those bytes,
    /// without their per-component decoding of bytes the decoder just wrote.
    fn place_draco_primitive(&mut self, plan: &DracoPlan, decoded: DecodedDraco) -> Result<(), ImportError> {
        let object = &plan.object;
        if decoded.attributes.len() != plan.wanted.len() {
            return Err(bad_value(
                object,
                "KHR_draco_mesh_compression",
                format!("decoder returned {} attributes, expected {}", decoded.attributes.len(), plan.wanted.len()),
            ));
        }
        let mut placed = Vec::new();
        for ((want, data), &accessor) in plan.wanted.iter().zip(decoded.attributes).zip(&plan.accessors) {
            let expected = plan.vertex_count * want.components * want.component.size();
            if data.len() != expected {
                return Err(bad_value(
                    object,
                    "KHR_draco_mesh_compression",
                    format!("decoder returned {} bytes for {}, expected {expected}", data.len(), want.semantic),
                ));
            }
            match want.component {
                DracoComponent::F32 => {
                    self.prefetched.get_mut().insert(accessor, le_f32s(&data));
                }
                DracoComponent::U8 | DracoComponent::U16 | DracoComponent::U32 if !want.normalized => {
                    self.prefetched_u32.get_mut().insert(accessor, le_uints(&data, want.component.size()));
                }
                _ => {}
            }
            placed.push((accessor, data));
        }
        if let (Some(accessor), Some(count)) = (plan.indices, plan.index_count) {
            if decoded.indices.len() != count {
                return Err(bad_value(
                    object,
                    "indices",
                    format!("the Draco data has {} indices, the accessor {count}", decoded.indices.len()),
                ));
            }
            let component = self.accessors[accessor].component;
            let mut bytes = Vec::with_capacity(count * component.size() as usize);
            for &index in &decoded.indices {
                match component {
                    Component::U8 => bytes.push(u8::try_from(index).map_err(|_| too_wide(object, index))?),
                    Component::U16 => bytes
                        .extend_from_slice(&u16::try_from(index).map_err(|_| too_wide(object, index))?.to_le_bytes()),
                    _ => bytes.extend_from_slice(&index.to_le_bytes()),
                }
            }
            placed.push((accessor, bytes));
            // Its bytes are these now, whatever an attribute sharing the accessor placed.
            self.prefetched.get_mut().remove(&accessor);
            self.prefetched_u32.get_mut().insert(accessor, decoded.indices);
        }
        for (accessor, bytes) in placed {
            let buffer = self.buffers.len();
            let view = self.views.len();
            self.views.push(View { buffer, byte_offset: 0, byte_length: bytes.len(), byte_stride: None });
            self.buffers.push(bytes);
            self.buffer_has_data.push(true);
            let a = &mut self.accessors[accessor];
            a.view = Some(view);
            a.byte_offset = 0;
            a.sparse = None;
        }
        Ok(())
    }
}

/// Draco primitives checked against the limits and being decoded
/// ([`Builder::start_draco_primitives`]).
pub(super) struct DracoStarted<'a> {
    plans: Vec<DracoPlan>,
    pending: PendingDraco<'a>,
}

impl DracoStarted<'_> {
    /// True when the decoded data will fill accessor `index` (a Draco primitive's attribute or
    /// indices).
    pub(super) fn fills(&self, index: usize) -> bool {
        self.plans.iter().any(|plan| plan.accessors.contains(&index) || plan.indices == Some(index))
    }
}

/// A Draco primitive checked and ready to decode.
struct DracoPlan {
    object: ObjectRef,
    /// The buffer view holding the compressed stream.
    view: usize,
    wanted: Vec<DracoAttribute>,
    /// The accessor of each wanted attribute.
    accessors: Vec<usize>,
    vertex_count: usize,
    /// The indices accessor, when the primitive has one, and its count.
    indices: Option<usize>,
    index_count: Option<usize>,
    /// The accessors of its morph targets' positions and normals (not compressed).
    targets: Vec<usize>,
}

/// Little-endian `f32` bytes as floats (a whole number of them: the caller checked the length).
fn le_f32s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// Little-endian unsigned integers of `size` bytes (1, 2 or 4) as `u32`s.
fn le_uints(bytes: &[u8], size: usize) -> Vec<u32> {
    match size {
        1 => bytes.iter().map(|&b| u32::from(b)).collect(),
        2 => bytes.chunks_exact(2).map(|b| u32::from(u16::from_le_bytes([b[0], b[1]]))).collect(),
        _ => bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
    }
}

fn too_wide(object: &ObjectRef, index: u32) -> ImportError {
    bad_value(object, "indices", format!("decoded index {index} does not fit the accessor's component type"))
}

fn draco_component(component: Component) -> DracoComponent {
    match component {
        Component::I8 => DracoComponent::I8,
        Component::U8 => DracoComponent::U8,
        Component::I16 => DracoComponent::I16,
        Component::U16 => DracoComponent::U16,
        Component::U32 => DracoComponent::U32,
        Component::F32 => DracoComponent::F32,
    }
}
