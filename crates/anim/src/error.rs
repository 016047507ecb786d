//! Typed import errors: every error names the glTF object (kind, index, name) and what is wrong.

use std::fmt;
use std::path::PathBuf;

/// The kind of a top-level glTF object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// The document root (`asset`, `extensionsRequired`, top-level arrays).
    Root,
    /// `accessors[i]`.
    Accessor,
    /// `bufferViews[i]`.
    BufferView,
    /// `buffers[i]`.
    Buffer,
    /// `images[i]`.
    Image,
    /// `textures[i]`.
    Texture,
    /// `materials[i]`.
    Material,
    /// `meshes[i]`.
    Mesh,
    /// `nodes[i]`.
    Node,
    /// `scenes[i]`.
    Scene,
    /// `skins[i]`.
    Skin,
    /// `animations[i]`.
    Animation,
}

impl ObjectKind {
    /// The lower-case name used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Root => "document",
            Self::Accessor => "accessor",
            Self::BufferView => "buffer view",
            Self::Buffer => "buffer",
            Self::Image => "image",
            Self::Texture => "texture",
            Self::Material => "material",
            Self::Mesh => "mesh",
            Self::Node => "node",
            Self::Scene => "scene",
            Self::Skin => "skin",
            Self::Animation => "animation",
        }
    }
}

/// Names one glTF object: its kind, its index, its name when it has one, and optionally a part
/// of it (an animation's channel or sampler, a mesh's primitive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRef {
    /// Kind of the top-level object.
    pub kind: ObjectKind,
    /// Index in its top-level array (0 for the root).
    pub index: usize,
    /// The object's `name`, when the file gives one.
    pub name: Option<String>,
    /// A part of the object, e.g. `("sampler", 2)` of an animation.
    pub part: Option<(&'static str, usize)>,
}

impl ObjectRef {
    /// The document root.
    pub fn root() -> Self {
        Self { kind: ObjectKind::Root, index: 0, name: None, part: None }
    }

    /// The same object, narrowed to one of its parts.
    #[must_use]
    pub fn with_part(&self, part: &'static str, index: usize) -> Self {
        Self { part: Some((part, index)), ..self.clone() }
    }
}

impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind == ObjectKind::Root {
            f.write_str("document")?;
        } else {
            write!(f, "{} {}", self.kind.as_str(), self.index)?;
            if let Some(name) = &self.name {
                write!(f, " \"{name}\"")?;
            }
        }
        if let Some((part, index)) = self.part {
            write!(f, ", {part} {index}")?;
        }
        Ok(())
    }
}

/// What is wrong with a glTF object.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Problem {
    /// A required property is absent.
    #[error("missing required property `{0}`")]
    MissingField(&'static str),
    /// A property has the wrong JSON type or an illegal value.
    #[error("property `{field}` is invalid: {reason}")]
    BadValue {
        /// The property.
        field: &'static str,
        /// Why it is invalid.
        reason: String,
    },
    /// An index refers past the end of the array it indexes.
    #[error("`{field}` = {index} is out of range: the file has {count} {kind}(s)")]
    IndexOutOfRange {
        /// The property holding the index.
        field: &'static str,
        /// The index found.
        index: u64,
        /// What it indexes.
        kind: &'static str,
        /// How many of those exist.
        count: usize,
    },
    /// An accessor has the wrong element type or component type for its use.
    #[error("`{field}` uses accessor {accessor} of type {found}, but {expected} is required")]
    AccessorType {
        /// The property referring to the accessor.
        field: &'static str,
        /// The accessor index.
        accessor: usize,
        /// What the use requires.
        expected: &'static str,
        /// What the accessor is.
        found: String,
    },
    /// An accessor has the wrong number of elements for its use.
    #[error("`{field}` uses accessor {accessor} with {found} elements, but {expected} are required")]
    AccessorCount {
        /// The property referring to the accessor.
        field: &'static str,
        /// The accessor index.
        accessor: usize,
        /// The required count.
        expected: usize,
        /// The count found.
        found: usize,
    },
    /// Data lies outside the buffer or buffer view that should hold it.
    #[error("data out of bounds: {0}")]
    OutOfBounds(String),
    /// A value that must be finite is NaN or infinite.
    #[error("`{field}` element {element} is not finite")]
    NonFinite {
        /// The property or accessor use.
        field: &'static str,
        /// The element index.
        element: usize,
    },
    /// Animation key times are not strictly increasing.
    #[error("key times are not strictly increasing: key {key} at {time_secs} s follows {previous_secs} s")]
    KeyTimesNotIncreasing {
        /// Index of the offending key.
        key: usize,
        /// Time of the key before it.
        previous_secs: f32,
        /// Its time.
        time_secs: f32,
    },
    /// An animation key time is negative.
    #[error("key {key} has negative time {time_secs} s")]
    NegativeKeyTime {
        /// Index of the offending key.
        key: usize,
        /// Its time.
        time_secs: f32,
    },
    /// The node graph has a cycle through this node.
    #[error("the node hierarchy has a cycle through this node")]
    Cycle,
    /// The node is the child of two nodes.
    #[error("node has two parents: nodes {first} and {second}")]
    TwoParents {
        /// The first parent found.
        first: usize,
        /// The second parent found.
        second: usize,
    },
    /// A URI cannot be resolved or read.
    #[error("uri \"{uri}\": {reason}")]
    Uri {
        /// The URI as written (truncated when long).
        uri: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// The file requires an extension animtune does not implement.
    #[error("requires unsupported extension {0}")]
    UnsupportedExtension(String),
    /// A resource limit was exceeded (checked before allocating).
    #[error("{what} = {value} exceeds the limit of {limit}")]
    Limit {
        /// Which quantity.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The limit in force.
        limit: u64,
    },
    /// A finite number is larger in magnitude than the importer accepts
    /// ([`Limits::max_abs_value`](crate::import::Limits::max_abs_value)): it would overflow to
    /// infinity in the per-frame maths.
    #[error(
        "`{field}`{} element {element} holds {value:e}, beyond the largest magnitude accepted, {limit:e} \
         (raise it with --max-abs-value)",
        .accessor.map_or_else(String::new, |a| format!(" (accessor {a})"))
    )]
    ValueTooLarge {
        /// The property or accessor use.
        field: &'static str,
        /// The accessor holding the value, when it comes from one (not from the JSON).
        accessor: Option<usize>,
        /// The element index (a key, a vertex, a matrix, a component of a JSON array).
        element: usize,
        /// The value found.
        value: f32,
        /// The limit in force.
        limit: f32,
    },
}

/// An error from importing a glTF file.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file (or a file it refers to) cannot be read.
    #[error("cannot read {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The binary container (.glb) is malformed.
    #[error("malformed GLB container: {0}")]
    Glb(String),
    /// The JSON is malformed.
    #[error("malformed glTF JSON: {0}")]
    Json(String),
    /// The bytes are neither a GLB container (wrong magic) nor glTF JSON.
    #[error("not a glTF file: neither GLB (wrong magic) nor JSON; {0}")]
    NotGltf(String),
    /// A glTF object is invalid.
    #[error("{object}: {problem}")]
    Invalid {
        /// The object at fault.
        object: ObjectRef,
        /// What is wrong.
        problem: Problem,
    },
}

impl ImportError {
    /// The problem, when the error is about a glTF object.
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            Self::Invalid { problem, .. } => Some(problem),
            _ => None,
        }
    }

    /// The object at fault, when the error is about a glTF object.
    pub fn object(&self) -> Option<&ObjectRef> {
        match self {
            Self::Invalid { object, .. } => Some(object),
            _ => None,
        }
    }
}

/// Shorthand used throughout the importer.
pub(crate) fn invalid(object: &ObjectRef, problem: Problem) -> ImportError {
    ImportError::Invalid { object: object.clone(), problem }
}
