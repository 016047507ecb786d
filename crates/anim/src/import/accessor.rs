//! Accessors: element layout, bounds checked before anything is allocated, decoding of every
//! component type (normalized integers exactly as the glTF spec says), strides and sparse data.

use serde_json::Value;

use super::json::{get, opt_index, opt_u64, req_index, req_u64};
use crate::error::{ImportError, ObjectKind, ObjectRef, Problem, invalid};

/// A component type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Component {
    I8,
    U8,
    I16,
    U16,
    U32,
    F32,
}

impl Component {
    fn from_code(code: u64) -> Option<Self> {
        Some(match code {
            5120 => Self::I8,
            5121 => Self::U8,
            5122 => Self::I16,
            5123 => Self::U16,
            5125 => Self::U32,
            5126 => Self::F32,
            _ => return None,
        })
    }

    pub(crate) fn size(self) -> u64 {
        match self {
            Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 => 2,
            Self::U32 | Self::F32 => 4,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::I8 => "BYTE",
            Self::U8 => "UNSIGNED_BYTE",
            Self::I16 => "SHORT",
            Self::U16 => "UNSIGNED_SHORT",
            Self::U32 => "UNSIGNED_INT",
            Self::F32 => "FLOAT",
        }
    }

    /// Decode one component at the start of `b` (which holds at least `size()` bytes).
    #[inline]
    fn decode(self, b: &[u8], normalized: bool) -> f32 {
        match (self, normalized) {
            (Self::F32, _) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            (Self::I8, false) => f32::from(b[0] as i8),
            (Self::I8, true) => (f32::from(b[0] as i8) / 127.0).max(-1.0),
            (Self::U8, false) => f32::from(b[0]),
            (Self::U8, true) => f32::from(b[0]) / 255.0,
            (Self::I16, false) => f32::from(i16::from_le_bytes([b[0], b[1]])),
            (Self::I16, true) => (f32::from(i16::from_le_bytes([b[0], b[1]])) / 32767.0).max(-1.0),
            (Self::U16, false) => f32::from(u16::from_le_bytes([b[0], b[1]])),
            (Self::U16, true) => f32::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0,
            (Self::U32, _) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
        }
    }

    #[inline]
    fn decode_uint(self, b: &[u8]) -> u32 {
        match self {
            Self::U8 => u32::from(b[0]),
            Self::U16 => u32::from(u16::from_le_bytes([b[0], b[1]])),
            Self::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            // Callers only ask for unsigned integer components.
            Self::I8 | Self::I16 | Self::F32 => 0,
        }
    }
}

/// An element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ElementType {
    Scalar,
    Vec2,
    Vec3,
    Vec4,
    Mat2,
    Mat3,
    Mat4,
}

impl ElementType {
    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "SCALAR" => Self::Scalar,
            "VEC2" => Self::Vec2,
            "VEC3" => Self::Vec3,
            "VEC4" => Self::Vec4,
            "MAT2" => Self::Mat2,
            "MAT3" => Self::Mat3,
            "MAT4" => Self::Mat4,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Scalar => "SCALAR",
            Self::Vec2 => "VEC2",
            Self::Vec3 => "VEC3",
            Self::Vec4 => "VEC4",
            Self::Mat2 => "MAT2",
            Self::Mat3 => "MAT3",
            Self::Mat4 => "MAT4",
        }
    }

    /// (columns, rows): matrices store column by column, each column 4-byte aligned.
    fn shape(self) -> (u64, u64) {
        match self {
            Self::Scalar => (1, 1),
            Self::Vec2 => (1, 2),
            Self::Vec3 => (1, 3),
            Self::Vec4 => (1, 4),
            Self::Mat2 => (2, 2),
            Self::Mat3 => (3, 3),
            Self::Mat4 => (4, 4),
        }
    }

    pub(crate) fn components(self) -> usize {
        let (c, r) = self.shape();
        (c * r) as usize
    }
}

/// A buffer view, checked against its buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View {
    pub buffer: usize,
    pub byte_offset: usize,
    pub byte_length: usize,
    pub byte_stride: Option<usize>,
}

#[derive(Debug, Clone)]
pub(crate) struct Sparse {
    count: u64,
    indices_view: usize,
    indices_offset: u64,
    indices_component: Component,
    values_view: usize,
    values_offset: u64,
}

/// An accessor's description (data is read on use).
#[derive(Debug, Clone)]
pub(crate) struct Accessor {
    pub object: ObjectRef,
    pub view: Option<usize>,
    pub byte_offset: u64,
    pub component: Component,
    pub normalized: bool,
    pub count: u64,
    pub element: ElementType,
    pub sparse: Option<Sparse>,
}

impl Accessor {
    /// "VEC3 of FLOAT" style description.
    pub(crate) fn describe(&self) -> String {
        let norm = if self.normalized { " normalized" } else { "" };
        format!("{} of{norm} {}", self.element.name(), self.component.name())
    }
}

/// Parse one accessor's JSON.
pub(crate) fn parse_accessor(value: &Value, index: usize, view_count: usize) -> Result<Accessor, ImportError> {
    let object = ObjectRef { kind: ObjectKind::Accessor, index, name: super::json::name(value), part: None };
    super::json::expect_object(value, &object)?;
    let bad =
        |field: &'static str, reason: &str| invalid(&object, Problem::BadValue { field, reason: reason.to_owned() });
    let code = req_u64(value, &object, "componentType")?;
    let component = Component::from_code(code).ok_or_else(|| bad("componentType", &format!("unknown code {code}")))?;
    let type_name = get(value, "type").ok_or_else(|| invalid(&object, Problem::MissingField("type")))?;
    let element = type_name
        .as_str()
        .and_then(ElementType::from_name)
        .ok_or_else(|| bad("type", &format!("unknown element type {type_name}")))?;
    let normalized = match get(value, "normalized") {
        None => false,
        Some(v) => v.as_bool().ok_or_else(|| bad("normalized", "must be a boolean"))?,
    };
    if normalized && matches!(component, Component::F32 | Component::U32) {
        return Err(bad("normalized", &format!("{} components cannot be normalized", component.name())));
    }
    let count = req_u64(value, &object, "count")?;
    if count == 0 {
        return Err(bad("count", "must be at least 1"));
    }
    let view = opt_index(value, &object, "bufferView", "buffer view", view_count)?;
    let byte_offset = opt_u64(value, &object, "byteOffset")?.unwrap_or(0);
    let sparse = match get(value, "sparse") {
        None => None,
        Some(s) => {
            let sparse_object = object.with_part("sparse", 0);
            let s_count = req_u64(s, &sparse_object, "count")?;
            if s_count == 0 || s_count > count {
                return Err(invalid(
                    &sparse_object,
                    Problem::BadValue { field: "count", reason: format!("{s_count} must be in 1..={count}") },
                ));
            }
            let indices = get(s, "indices").ok_or_else(|| invalid(&sparse_object, Problem::MissingField("indices")))?;
            let values = get(s, "values").ok_or_else(|| invalid(&sparse_object, Problem::MissingField("values")))?;
            let icode = req_u64(indices, &sparse_object, "componentType")?;
            let indices_component = Component::from_code(icode)
                .filter(|c| matches!(c, Component::U8 | Component::U16 | Component::U32))
                .ok_or_else(|| {
                    invalid(
                        &sparse_object,
                        Problem::BadValue {
                            field: "indices.componentType",
                            reason: format!("{icode} is not an unsigned integer type"),
                        },
                    )
                })?;
            Some(Sparse {
                count: s_count,
                indices_view: req_index(indices, &sparse_object, "bufferView", "buffer view", view_count)?,
                indices_offset: opt_u64(indices, &sparse_object, "byteOffset")?.unwrap_or(0),
                indices_component,
                values_view: req_index(values, &sparse_object, "bufferView", "buffer view", view_count)?,
                values_offset: opt_u64(values, &sparse_object, "byteOffset")?.unwrap_or(0),
            })
        }
    };
    Ok(Accessor { object, view, byte_offset, component, normalized, count, element, sparse })
}

/// Resolved bytes of the document's buffers and views.
pub(crate) struct Data<'a> {
    pub buffers: &'a [Vec<u8>],
    pub views: &'a [View],
    pub max_components: u64,
}

impl Data<'_> {
    fn view_bytes(&self, view: usize) -> &[u8] {
        let v = &self.views[view];
        // Views were checked against their buffers when parsed.
        &self.buffers[v.buffer][v.byte_offset..v.byte_offset + v.byte_length]
    }

    #[allow(clippy::too_many_arguments)]
    /// Bounds of a strided run of `count` elements of `element_size` bytes at `offset` in `view`.
    fn check_run(
        &self,
        object: &ObjectRef,
        view: usize,
        offset: u64,
        count: u64,
        element_size: u64,
        stride: u64,
        what: &str,
    ) -> Result<(), ImportError> {
        let view_len = self.views[view].byte_length as u64;
        let end = count
            .checked_sub(1)
            .and_then(|n| n.checked_mul(stride))
            .and_then(|x| x.checked_add(offset))
            .and_then(|x| x.checked_add(element_size));
        match end {
            Some(end) if end <= view_len => Ok(()),
            _ => Err(invalid(
                object,
                Problem::OutOfBounds(format!(
                    "{what}: {count} elements of {element_size} bytes (stride {stride}) from byte {offset} need more than buffer view {view}'s {view_len} bytes"
                )),
            )),
        }
    }

    /// Decode an accessor into `count × components` floats (normalized integers mapped to
    /// [0, 1] or [−1, 1] as the spec says), with sparse substitutions applied.
    pub(crate) fn read_f32(&self, a: &Accessor) -> Result<Vec<f32>, ImportError> {
        let (columns, rows) = a.element.shape();
        let n = a.element.components();
        let total = a.count.saturating_mul(n as u64);
        if total > self.max_components {
            return Err(invalid(
                &a.object,
                Problem::Limit { what: "accessor components", value: total, limit: self.max_components },
            ));
        }
        let csize = a.component.size();
        let column_stride = (rows * csize).next_multiple_of(if columns > 1 { 4 } else { 1 });
        let element_size = column_stride * columns;
        let mut out = vec![0.0f32; total as usize];
        let decode_element = |bytes: &[u8], dst: &mut [f32]| {
            for c in 0..columns {
                for r in 0..rows {
                    let at = (c * column_stride + r * csize) as usize;
                    dst[(c * rows + r) as usize] = a.component.decode(&bytes[at..], a.normalized);
                }
            }
        };
        if let Some(view) = a.view {
            let stride = self.views[view].byte_stride.map_or(element_size, |s| s as u64);
            if stride < element_size {
                return Err(invalid(
                    &a.object,
                    Problem::BadValue {
                        field: "bufferView.byteStride",
                        reason: format!("stride {stride} is smaller than the {element_size}-byte element"),
                    },
                ));
            }
            self.check_run(&a.object, view, a.byte_offset, a.count, element_size, stride, "accessor data")?;
            let bytes = self.view_bytes(view);
            for (e, dst) in out.chunks_exact_mut(n).enumerate() {
                let start = (a.byte_offset + e as u64 * stride) as usize;
                decode_element(&bytes[start..start + element_size as usize], dst);
            }
        }
        if let Some(s) = &a.sparse {
            let sparse_object = a.object.with_part("sparse", 0);
            let isize = s.indices_component.size();
            self.check_run(&sparse_object, s.indices_view, s.indices_offset, s.count, isize, isize, "sparse indices")?;
            self.check_run(
                &sparse_object,
                s.values_view,
                s.values_offset,
                s.count,
                element_size,
                element_size,
                "sparse values",
            )?;
            let indices = self.view_bytes(s.indices_view);
            let values = self.view_bytes(s.values_view);
            let mut previous: Option<u32> = None;
            for i in 0..s.count as usize {
                let at = s.indices_offset as usize + i * isize as usize;
                let index = s.indices_component.decode_uint(&indices[at..]);
                if u64::from(index) >= a.count || previous.is_some_and(|p| index <= p) {
                    return Err(invalid(
                        &sparse_object,
                        Problem::BadValue {
                            field: "indices",
                            reason: format!("index {index} at position {i} is out of range or not strictly increasing"),
                        },
                    ));
                }
                previous = Some(index);
                let src = s.values_offset as usize + i * element_size as usize;
                let dst = &mut out[index as usize * n..(index as usize + 1) * n];
                decode_element(&values[src..src + element_size as usize], dst);
            }
        }
        Ok(out)
    }

    /// Decode an accessor of unsigned integer components (indices, joints) exactly.
    pub(crate) fn read_u32(&self, a: &Accessor) -> Result<Vec<u32>, ImportError> {
        check_unsigned(a)?;
        // Integers up to 2^24 are exact in f32, far beyond any vertex or joint count we accept.
        let floats = self.read_f32(a)?;
        if let Some(&big) = floats.iter().find(|&&x| x >= 16_777_216.0) {
            return Err(too_large_integer(a, big));
        }
        Ok(floats.iter().map(|&x| x as u32).collect())
    }
}

/// Unsigned integers decoded for accessor `a` elsewhere than from its bytes (a Draco
/// primitive's indices and joints), checked as [`Data::read_u32`] checks what it reads.
pub(crate) fn checked_u32s(a: &Accessor, values: Vec<u32>) -> Result<Vec<u32>, ImportError> {
    check_unsigned(a)?;
    if let Some(&big) = values.iter().find(|&&x| x >= 16_777_216) {
        return Err(too_large_integer(a, big as f32));
    }
    Ok(values)
}

/// [`Data::read_u32`]'s component types: unsigned, not normalized.
fn check_unsigned(a: &Accessor) -> Result<(), ImportError> {
    if !matches!(a.component, Component::U8 | Component::U16 | Component::U32) || a.normalized {
        return Err(invalid(
            &a.object,
            Problem::BadValue {
                field: "componentType",
                reason: format!("{} where unsigned integers are required", a.describe()),
            },
        ));
    }
    Ok(())
}

/// An integer past what `f32` holds exactly (2^24), as read.
fn too_large_integer(a: &Accessor, value: f32) -> ImportError {
    invalid(&a.object, Problem::Limit { what: "integer value", value: value as u64, limit: 16_777_215 })
}
