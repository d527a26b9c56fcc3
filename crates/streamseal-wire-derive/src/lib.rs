//! `#[derive(WireShape)]`: a wire type's shape table
//! (`streamseal_wire::shape`), from the same declaration and the same
//! `#[serde(...)]` attributes serde's derive reads.
//!
//! Every serde attribute it does not model is a compile error, so that a
//! table never silently disagrees with the type's `Deserialize`: a new
//! attribute is either taught here or the type becomes a leaf
//! (`streamseal_wire::leaf_shape!`). The agreement itself is tested in
//! `crates/streamseal/tests/it/wire_shapes.rs` (every fixture and its
//! mutations, read both ways).

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::{Data, DeriveInput, Error, Fields, LitStr, parse_macro_input};

/// Derives `streamseal_wire::shape::WireShape` for a struct of named
/// fields (or a `transparent` one).
#[proc_macro_derive(WireShape)]
pub fn derive_wire_shape(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// serde's `rename_all` rules (serde_derive's `case.rs`).
#[derive(Clone, Copy)]
enum Case {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Case {
    fn parse(lit: &LitStr) -> syn::Result<Self> {
        Ok(match lit.value().as_str() {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return Err(Error::new(lit.span(), "unknown rename_all rule")),
        })
    }

    fn field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Self::Camel => lower_first(&Self::Pascal.field(field)),
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// The container's serde attributes this derive models.
#[derive(Default)]
struct Container {
    rename_all: Option<Case>,
    transparent: bool,
}

/// A field's serde attributes this derive models.
#[derive(Default)]
struct FieldAttrs {
    rename: Option<String>,
    /// `#[serde(default)]` (a default function, `default = "f"`, is refused).
    default: bool,
    /// `skip_serializing_if = "Option::is_none"`, the only one modelled.
    skip_if_none: bool,
    flatten: bool,
    /// Whether any serde attribute is on the field.
    any: bool,
}

fn container(input: &DeriveInput) -> syn::Result<Container> {
    let mut c = Container::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                c.rename_all = Some(Case::parse(&meta.value()?.parse()?)?);
            } else if meta.path.is_ident("transparent") {
                c.transparent = true;
            } else {
                return Err(meta.error("a serde attribute the shape table does not model"));
            }
            Ok(())
        })?;
    }
    Ok(c)
}

fn field_attrs(attrs: &[syn::Attribute]) -> syn::Result<FieldAttrs> {
    let mut f = FieldAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                f.rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("default") {
                if meta.input.peek(syn::Token![=]) {
                    return Err(meta.error("WireShape: a default function is not modelled"));
                }
                f.default = true;
            } else if meta.path.is_ident("skip_serializing_if") {
                let path = meta.value()?.parse::<LitStr>()?;
                if path.value() != "Option::is_none" {
                    return Err(Error::new(
                        path.span(),
                        "WireShape: only skip_serializing_if = \"Option::is_none\" is modelled",
                    ));
                }
                f.skip_if_none = true;
            } else if meta.path.is_ident("flatten") {
                f.flatten = true;
            } else {
                return Err(meta.error("a serde attribute the shape table does not model"));
            }
            Ok(())
        })?;
        f.any = true;
    }
    Ok(f)
}

/// The last segment of a type's path (`Option` of `Option<String>`).
fn last_segment(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().map(|s| s.ident.to_string())
        }
        _ => None,
    }
}

/// Whether the shape's own default (`Missing::Default`) is the type's
/// `Default`: the types whose `Default` is `null`, `[]`, `{}`, `""`,
/// `false` or `0`.
fn default_by_shape(ty: &syn::Type) -> bool {
    matches!(
        last_segment(ty).as_deref(),
        Some(
            "Option"
                | "Vec"
                | "BTreeMap"
                | "String"
                | "bool"
                | "u8"
                | "u16"
                | "u32"
                | "u64"
                | "i8"
                | "i16"
                | "i32"
                | "i64"
                | "f64"
        )
    )
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    if !input.generics.params.is_empty() {
        return Err(Error::new_spanned(
            &input.generics,
            "WireShape: no generics",
        ));
    }
    let c = container(input)?;
    let name = &input.ident;
    let name_text = name.to_string();
    let root = quote!(::streamseal_wire::shape);
    let shape = match &input.data {
        Data::Struct(data) => {
            if c.transparent {
                let only = data.fields.iter().next().ok_or_else(|| {
                    Error::new_spanned(name, "WireShape: a transparent struct has one field")
                })?;
                if field_attrs(&only.attrs)?.any {
                    return Err(Error::new_spanned(
                        only,
                        "WireShape: a transparent struct's field without serde attributes",
                    ));
                }
                let ty = &only.ty;
                return Ok(impl_shape(name, quote!(<#ty as #root::WireShape>::SHAPE)));
            }
            let Fields::Named(named) = &data.fields else {
                return Err(Error::new_spanned(
                    name,
                    "WireShape: a struct of named fields",
                ));
            };
            let mut fields = Vec::new();
            let mut checks = Vec::new();
            let mut flat = false;
            for field in &named.named {
                let attrs = field_attrs(&field.attrs)?;
                let ty = &field.ty;
                if attrs.flatten {
                    if flat {
                        return Err(Error::new_spanned(
                            field,
                            "WireShape: one flattened field (the keys no other field names)",
                        ));
                    }
                    // A flattened `Option` is `None` where its fields do not
                    // read (serde swallows the error): not modelled.
                    if attrs.default
                        || attrs.skip_if_none
                        || attrs.rename.is_some()
                        || last_segment(ty).as_deref() == Some("Option")
                    {
                        return Err(Error::new_spanned(
                            field,
                            "WireShape: a flattened field as it is",
                        ));
                    }
                    flat = true;
                    fields.push(quote! {
                        #root::Field {
                            name: "",
                            shape: <#ty as #root::WireShape>::SHAPE,
                            missing: #root::Missing::Required,
                            skip: #root::Skip::Never,
                            flatten: true,
                        }
                    });
                    continue;
                }
                let ident = field
                    .ident
                    .as_ref()
                    .ok_or_else(|| Error::new_spanned(field, "a named field"))?;
                let rust = ident.to_string();
                let rust = rust.strip_prefix("r#").unwrap_or(&rust);
                let wire = match (&attrs.rename, c.rename_all) {
                    (Some(rename), _) => rename.clone(),
                    (None, Some(case)) => case.field(rust),
                    (None, None) => rust.to_owned(),
                };
                let missing = match (attrs.default, default_by_shape(ty)) {
                    (false, _) => quote!(#root::Missing::Required),
                    (true, true) => quote!(#root::Missing::Default),
                    (true, false) => quote!(#root::Missing::With(|| {
                        #root::json_of(<#ty as ::core::default::Default>::default())
                    })),
                };
                let skip = if attrs.skip_if_none {
                    // The field is an `Option` (else this does not compile):
                    // its `null` is exactly `None`.
                    checks.push(quote! {
                        let _: fn(&#ty) -> bool = ::core::option::Option::is_none;
                    });
                    quote!(#root::Skip::Null)
                } else {
                    quote!(#root::Skip::Never)
                };
                fields.push(quote! {
                    #root::Field {
                        name: #wire,
                        shape: <#ty as #root::WireShape>::SHAPE,
                        missing: #missing,
                        skip: #skip,
                        flatten: false,
                    }
                });
            }
            quote! {{
                const _: () = { #(#checks)* };
                &#root::Shape::Struct(&#root::StructShape {
                    name: #name_text,
                    fields: &[#(#fields),*],
                    flat: #flat,
                })
            }}
        }
        Data::Enum(_) => {
            return Err(Error::new_spanned(
                name,
                "WireShape: a struct (an enum's form is its own: `leaf_shape!`, or `Shape::Str` for an open enum)",
            ));
        }
        Data::Union(_) => return Err(Error::new(Span::call_site(), "WireShape: no unions")),
    };
    Ok(impl_shape(name, shape))
}

fn impl_shape(name: &syn::Ident, shape: Tokens) -> Tokens {
    quote! {
        impl ::streamseal_wire::shape::WireShape for #name {
            const SHAPE: &'static ::streamseal_wire::shape::Shape = #shape;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_follow_serdes_rename_rules() {
        // serde_derive's own examples (`case.rs`).
        for (case, expected) in [
            (Case::Camel, "veryTasty"),
            (Case::Pascal, "VeryTasty"),
            (Case::Snake, "very_tasty"),
            (Case::ScreamingSnake, "VERY_TASTY"),
            (Case::Kebab, "very-tasty"),
            (Case::ScreamingKebab, "VERY-TASTY"),
            (Case::Lower, "very_tasty"),
            (Case::Upper, "VERY_TASTY"),
        ] {
            assert_eq!(case.field("very_tasty"), expected);
        }
        assert_eq!(Case::Camel.field("a"), "a");
        assert_eq!(Case::Camel.field("e2e_enabled"), "e2eEnabled");
    }

    #[test]
    fn only_the_types_whose_default_the_shape_knows_use_it() {
        let ty = |text: &str| syn::parse_str::<syn::Type>(text).unwrap();
        assert!(default_by_shape(&ty("Option<Vec<String>>")));
        assert!(default_by_shape(&ty(
            "std::collections::BTreeMap<String, u32>"
        )));
        assert!(default_by_shape(&ty("u64")));
        assert!(!default_by_shape(&ty("Slots")));
        assert!(!default_by_shape(&ty("crate::common::Sequence")));
        assert!(!default_by_shape(&ty("[u8; 4]")));
    }
}
