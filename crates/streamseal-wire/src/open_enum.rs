//! The one macro behind every open enum of the wire.
//!
//! API §9.6: new values of open response enums ship without a
//! new version, and clients must keep working. Every such enum therefore has
//! its known variants plus `Other(String)`, which keeps an unknown value
//! exactly as it came so that it serialises back unchanged.
//!
//! Parsing is canonical: a known spelling always becomes its known variant,
//! never `Other`. Build values with `parse` (or `From<&str>`), not by writing
//! `Other("user".into())` by hand.

/// Declares an open string enum: known variants with their wire spelling,
/// plus `Other(String)`; `as_str`, `parse`, `is_known`, `KNOWN`, `Display`,
/// `From<&str>` and string serde.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $wire:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this library does not know, kept exactly as it came.
            Other(String),
        }

        impl $name {
            /// Every known wire spelling, in declaration order.
            pub const KNOWN: &'static [&'static str] = &[$($wire),+];

            /// The wire spelling.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $wire, )+
                    $name::Other(s) => s,
                }
            }

            /// Parses the wire spelling; an unknown value is kept as `Other`.
            pub fn parse(s: &str) -> Self {
                match s {
                    $( $wire => $name::$variant, )+
                    other => $name::Other(other.to_owned()),
                }
            }

            /// Whether this is one of the values the spec names.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Other(_))
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                $name::parse(s)
            }
        }

        // TypeScript (feature `wasm`): the known spellings, and any other string.
        ts_decl!(concat!(
            "export type ", stringify!($name), " = ",
            $( "\"", $wire, "\" | ", )+
            "(string & {});"
        ));

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::std::result::Result<Self, D::Error> {
                let s = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(d)?;
                Ok($name::parse(&s))
            }
        }

        // Any string reads, and is written back as it came.
        impl $crate::shape::WireShape for $name {
            const SHAPE: &'static $crate::shape::Shape = &$crate::shape::Shape::Str;
        }
    };
}

pub(crate) use open_enum;
