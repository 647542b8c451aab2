//! `#[derive(Params)]`: a struct's fields as a node type's parameters,
//! declared once — names, kinds from the field types, docs from the doc
//! comments, defaults and ranges from attributes — and read back into the
//! struct for the factory, with no look-up that can fail at run time.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Expr, ExprRange, Fields, LitStr, RangeLimits, Type};

use crate::krate::{Route, find};

/// What the derive reaches the parameter types through: the facade, the
/// engine that defines them, or the registry that re-exports them.
pub(crate) const ROUTES: [Route; 3] = [
    Route {
        package: "canopy-bt",
        below: &[],
    },
    Route {
        package: "canopy-core",
        below: &[],
    },
    Route {
        package: "canopy-data",
        below: &[],
    },
];

/// The fields of node objects that are not parameters.
const RESERVED: [&str; 3] = ["type", "name", "children"];

/// One field's declaration.
struct Field<'a> {
    ident: &'a syn::Ident,
    ty: &'a Type,
    name: String,
    doc: String,
    default: Option<Expr>,
    range: Option<ExprRange>,
    len: Option<ExprRange>,
    /// Not in the file: the node's salt ([`Params::salt`]).
    salt: bool,
}

/// The struct's own attributes.
#[derive(Default)]
struct Options {
    check: Option<Expr>,
    krate: Option<syn::Path>,
}

pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "a parameters struct cannot have generic parameters: each field's type says what a tree file may hold",
        ));
    }
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => named
                .named
                .iter()
                .map(field)
                .collect::<syn::Result<Vec<_>>>()?,
            Fields::Unit => Vec::new(),
            Fields::Unnamed(unnamed) => {
                return Err(syn::Error::new(
                    unnamed.span(),
                    "name the fields: each field is a parameter, named in tree files as the field is",
                ));
            }
        },
        _ => {
            return Err(syn::Error::new(
                name.span(),
                "`#[derive(Params)]` is for structs, whose fields are the parameters; for an enum of words, use `#[derive(ParamEnum)]`",
            ));
        }
    };
    check_names(&fields)?;
    let options = options(&input.attrs)?;
    // The parameter vocabulary lives in the `params` module of whichever
    // crate is found (canopy, canopy_core or canopy_data).
    let root = find(&ROUTES, options.krate.as_ref(), "params", "canopy")?;
    let data = quote!(#root::params);
    let description = doc(&input.attrs);

    let declared = fields
        .iter()
        .filter(|f| !f.salt)
        .map(|f| declare(f, &data))
        .collect::<syn::Result<Vec<_>>>()?;
    let asserts = fields.iter().map(|f| asserts(f, &data));
    let reads = fields.iter().map(|f| {
        let (ident, ty, name) = (f.ident, f.ty, &f.name);
        if f.salt {
            quote_spanned!(ty.span()=> #ident: { let salt: u64 = params.salt(); salt })
        } else {
            quote!(#ident: params.get::<#ty>(#name)?)
        }
    });
    let value = if fields.is_empty() {
        quote!(#name {})
    } else {
        quote!(#name { #(#reads,)* })
    };
    let values = fields.iter().filter(|f| !f.salt).map(|f| {
        let (ident, ty, name) = (f.ident, f.ty, &f.name);
        quote!((#name, <#ty as #data::FromParam>::to_literal(&self.#ident)))
    });
    let check = options.check.map(|check| {
        quote_spanned!(check.span()=>
            (#check)(&value).map_err(<#data::ParamError as ::core::convert::From<_>>::from)?;
        )
    });
    Ok(quote! {
        #[automatically_derived]
        impl #data::NodeParams for #name {
            fn description() -> &'static str {
                #description
            }

            fn declare() -> ::std::vec::Vec<#data::Param> {
                ::std::vec![#(#declared),*]
            }

            fn from_params(
                params: &#data::Params<'_>,
            ) -> ::core::result::Result<Self, #data::ParamError> {
                let value = #value;
                #check
                ::core::result::Result::Ok(value)
            }

            fn values(&self) -> ::std::vec::Vec<(&'static str, #data::Literal)> {
                ::std::vec![#(#values),*]
            }
        }
        #(#asserts)*
    })
}

/// A field's declaration from its attributes.
fn field(f: &syn::Field) -> syn::Result<Field<'_>> {
    let ident = f.ident.as_ref().expect("named fields have names");
    let mut field = Field {
        ident,
        ty: &f.ty,
        name: ident.unraw().to_string(),
        doc: doc(&f.attrs),
        default: None,
        range: None,
        len: None,
        salt: false,
    };
    for attr in f.attrs.iter().filter(|a| a.path().is_ident("param")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("default") {
                field.default = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("range") {
                field.range = Some(range(meta.value()?.parse()?, "range")?);
            } else if meta.path.is_ident("len") {
                field.len = Some(range(meta.value()?.parse()?, "len")?);
            } else if meta.path.is_ident("salt") {
                field.salt = true;
            } else if meta.path.is_ident("rename") {
                field.name = meta.value()?.parse::<LitStr>()?.value();
            } else {
                return Err(meta.error(
                    "unknown `param` attribute: write `default = …`, `range = a..=b`, `len = a..=b`, `rename = \"…\"` or `salt`",
                ));
            }
            Ok(())
        })?;
    }
    Ok(field)
}

/// An attribute's range: `a..=b`, `a..` or `..=b`.
fn range(expr: Expr, what: &str) -> syn::Result<ExprRange> {
    let Expr::Range(range) = expr else {
        return Err(syn::Error::new(
            expr.span(),
            format!("`{what}` takes a range: `a..=b`, `a..` or `..=b`"),
        ));
    };
    if matches!(range.limits, RangeLimits::HalfOpen(_)) && range.end.is_some() {
        return Err(syn::Error::new(
            range.span(),
            format!("write `{what}` as an inclusive range, `a..=b`: both ends are accepted values"),
        ));
    }
    if range.start.is_none() && range.end.is_none() {
        return Err(syn::Error::new(
            range.span(),
            format!("`{what}` needs at least one bound"),
        ));
    }
    Ok(range)
}

/// Names must be unique and not the node object's own fields.
fn check_names(fields: &[Field]) -> syn::Result<()> {
    for (i, f) in fields.iter().enumerate() {
        if RESERVED.contains(&f.name.as_str()) {
            return Err(syn::Error::new(
                f.ident.span(),
                format!(
                    "`{}` is a field of every node object (type, name, children), not a parameter: \
                     name the field otherwise, or keep it and write `#[param(rename = \"…\")]`",
                    f.name
                ),
            ));
        }
        if fields[..i].iter().any(|g| g.name == f.name) {
            return Err(syn::Error::new(
                f.ident.span(),
                format!("two parameters are named `{}`", f.name),
            ));
        }
    }
    Ok(())
}

/// The struct's `#[params(...)]` options.
fn options(attrs: &[Attribute]) -> syn::Result<Options> {
    let mut options = Options::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("params")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("check") {
                options.check = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("crate") {
                options.krate = Some(meta.value()?.parse::<LitStr>()?.parse()?);
            } else {
                return Err(meta.error(
                    "unknown `params` attribute: write `check = path::to::fn` or `crate = \"path::to::canopy_core\"`",
                ));
            }
            Ok(())
        })?;
    }
    Ok(options)
}

/// The first paragraph of the doc comment, on one line.
pub(crate) fn doc(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) = &nv.value
        {
            let value = text.value();
            // An empty `///` line is an empty value, which has no lines:
            // it still ends the paragraph.
            if value.trim().is_empty() {
                lines.push(String::new());
            }
            for line in value.lines() {
                lines.push(line.trim().to_string());
            }
        }
    }
    let paragraph: Vec<&str> = lines
        .iter()
        .map(String::as_str)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    paragraph.join(" ")
}

/// The expression declaring one parameter.
fn declare(f: &Field, data: &TokenStream) -> syn::Result<TokenStream> {
    let (ty, name, doc) = (f.ty, &f.name, &f.doc);
    let mut param = quote!(#data::Param::of::<#ty>(#name, #doc));
    if let Some(range) = &f.range {
        let (lo, hi) = (&range.start, &range.end);
        param = match (lo, hi) {
            (Some(lo), Some(hi)) => quote!(#param.range((#lo) as f64, (#hi) as f64)),
            (Some(lo), None) => quote!(#param.at_least((#lo) as f64)),
            (None, _) => quote!(#param.at_most((#hi) as f64)),
        };
    }
    if let Some(len) = &f.len {
        if !is_list(ty) {
            return Err(syn::Error::new(
                len.span(),
                format!("`len` bounds the length of a list: `{name}` is not a `Vec`"),
            ));
        }
        let lo = len.start.as_ref().map_or(quote!(0), |lo| quote!(#lo));
        let hi = len
            .end
            .as_ref()
            .map_or(quote!(usize::MAX), |hi| quote!(#hi));
        param = quote!(#param.len(#lo, #hi));
    }
    if let Some(default) = &f.default {
        if is_option(ty) {
            return Err(syn::Error::new(
                default.span(),
                format!(
                    "parameter `{name}` is an `Option`, absent (`None`) when a file leaves it out: \
                     remove `default`, or make the field a plain type"
                ),
            ));
        }
        param = quote_spanned! {default.span()=>
            #param.default(#data::FromParam::to_literal(&{
                let default: #ty = #data::IntoDefault::into_default(#default);
                default
            }))
        };
    }
    Ok(param)
}

/// Whether a type is written as an `Option`.
fn is_option(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Option"),
        _ => false,
    }
}

/// Whether a type is written as a `Vec` (or an `Option` of one).
fn is_list(ty: &Type) -> bool {
    let Type::Path(path) = ty else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    match last.ident.to_string().as_str() {
        "Vec" => true,
        "Option" => match &last.arguments {
            syn::PathArguments::AngleBracketed(args) => args.args.iter().any(|a| match a {
                syn::GenericArgument::Type(inner) => is_list(inner),
                _ => false,
            }),
            _ => false,
        },
        _ => false,
    }
}

/// Compile-time checks of attributes against the field's type.
fn asserts(f: &Field, data: &TokenStream) -> TokenStream {
    let (ty, name) = (f.ty, &f.name);
    let mut out = TokenStream::new();
    if f.salt {
        return out;
    }
    if let Some(range) = &f.range {
        let message = format!(
            "`range` narrows numbers: parameter `{name}` is not a number, a point, or a list or option of them"
        );
        out.extend(quote_spanned! {range.span()=>
            const _: () = ::core::assert!(<#ty as #data::FromParam>::NUMERIC, #message);
        });
    }
    if let Some(default) = &f.default {
        let message = format!(
            "parameter `{name}` is an `Option`, absent (`None`) when a file leaves it out: remove `default`, or make the field a plain type"
        );
        out.extend(quote_spanned! {default.span()=>
            const _: () = ::core::assert!(!<#ty as #data::FromParam>::OPTIONAL, #message);
        });
    }
    out
}
