//! Typed indices, in the style of rapier's handles: a node, a clip and a track are different
//! types, so a node index cannot be passed where a clip or a track is meant. Collections that
//! hand them out offer `get`-style accessors returning `Option` (`Model::node`, `Model::clip`,
//! `Clip::track`).

use std::fmt;

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub struct $name(u32);

        impl $name {
            #[doc = concat!("The ", $what, " at `index` (a `const` form of [`Self::from_index`]).")]
            #[inline]
            pub const fn new(index: u32) -> Self {
                Self(index)
            }

            #[doc = concat!("The ", $what, " at `index`.")]
            ///
            /// # Panics
            /// When `index` does not fit in 32 bits (the importer's limits keep every
            /// collection far below that).
            #[inline]
            pub fn from_index(index: usize) -> Self {
                let Ok(index) = u32::try_from(index) else {
                    panic!(concat!($what, " index {} does not fit in 32 bits"), index)
                };
                Self(index)
            }

            #[doc = concat!("The ", $what, "'s position in its collection.")]
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

index_type!(
    /// A node of a model: its glTF node index (`Model::nodes`, `Hierarchy`, `SoaPose`).
    NodeId,
    "node"
);
index_type!(
    /// An animation clip of a model: its glTF animation index (`Model::clips`).
    ClipId,
    "clip"
);
index_type!(
    /// A track of a clip: its position in `Clip::tracks` (one per glTF channel that targets a
    /// node, in channel order).
    TrackId,
    "track"
);
