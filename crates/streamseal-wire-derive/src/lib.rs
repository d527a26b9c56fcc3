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
    default: Option<Option<syn::ExprPath>>,
    skip_if: Option<String>,
    flatten: bool,
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
                f.default = Some(match meta.value() {
                    Ok(value) => Some(value.parse::<LitStr>()?.parse()?),
                    Err(_) => None,
                });
            } else if meta.path.is_ident("skip_serializing_if") {
                f.skip_if = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("flatten") {
                f.flatten = true;
            } else {
                return Err(meta.error("a serde attribute the shape table does not model"));
            }
            Ok(())
        })?;
    }
    Ok(f)
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
                    if attrs.default.is_some() || attrs.skip_if.is_some() || attrs.rename.is_some()
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
                let missing = match &attrs.default {
                    None => quote!(#root::Missing::Required),
                    Some(None) => quote!(#root::Missing::Default),
                    Some(Some(path)) => quote!(#root::Missing::With(|| #root::json_of(#path()))),
                };
                let skip = match attrs.skip_if.as_deref() {
                    None => quote!(#root::Skip::Never),
                    Some(path) => match path.rsplit("::").next() {
                        Some("is_none") => quote!(#root::Skip::Null),
                        Some("is_empty") => quote!(#root::Skip::Empty),
                        Some("is_false" | "not") => quote!(#root::Skip::False),
                        _ => {
                            return Err(Error::new_spanned(
                                field,
                                "WireShape: a skip_serializing_if the shape table does not model",
                            ));
                        }
                    },
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
            quote! {
                &#root::Shape::Struct(&#root::StructShape {
                    name: #name_text,
                    fields: &[#(#fields),*],
                    flat: #flat,
                })
            }
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
