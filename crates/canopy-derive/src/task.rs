//! `#[derive(Task)]`: the `Pod` and `Zeroable` impls a custom node's task
//! needs, after checks whose errors say what to do.
//!
//! A task is copied as bytes in and out of an agent's pooled memory, so it
//! must be plain data: `#[repr(C)]` (or `transparent`), `Copy`, fields that
//! are plain bytes themselves, no padding, no generics. bytemuck's own
//! derive checks the same facts but must name the `bytemuck` crate, which
//! a user of canopy does not depend on, and its errors speak of traits
//! rather than of tasks.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, LitStr, Type};

use crate::krate::{Route, find};

/// What the derive reaches canopy's engine through: the facade or the core.
const ROUTES: [Route; 2] = [
    Route {
        package: "canopy-bt",
        below: &[],
    },
    Route {
        package: "canopy-core",
        below: &[],
    },
];

pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let fields = match &input.data {
        Data::Struct(data) => &data.fields,
        Data::Enum(e) => {
            return Err(syn::Error::new(
                e.enum_token.span,
                "a task must be a struct: an enum's tag can hold invalid values; \
                 keep the state in a number field (`state: u8`) and match on it",
            ));
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span,
                "a task must be a struct with named or tuple fields, not a union",
            ));
        }
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "a task cannot have generic parameters: it is one concrete plain-data type \
             whose size is known when the tree is built; write the concrete field types",
        ));
    }
    check_repr(input)?;
    let krate = find(&ROUTES, crate_override(input)?.as_ref(), "task", "canopy")?;
    let bytemuck = quote!(#krate::bytemuck);

    let types: Vec<&Type> = fields.iter().map(|f| &f.ty).collect();
    // Arrays are checked by their element: `[u32; 40]` is plain bytes
    // whatever bytemuck implements for arrays of that length.
    let field_checks = types.iter().map(|ty| {
        let element = element(ty);
        quote_spanned!(ty.span()=> plain_bytes::<#element>();)
    });
    let copy_check = quote_spanned!(name.span()=> task_is_copy::<#name>(););
    let padding = padding_check(name, &types);

    Ok(quote! {
        const _: () = {
            #[diagnostic::on_unimplemented(
                message = "`{Self}` cannot be part of a task: tasks are plain bytes (numbers, arrays of them, other `#[derive(Task)]` types); keep `{Self}` in the agent data instead",
                label = "not plain bytes",
                note = "a task is copied as bytes in and out of the agent's pooled memory; a flag fits in a `u8` (0 or 1), a choice in a `u8` or `u32`; text, lists, pointers and references belong in the agent data, which a node reaches through `cx.agent`"
            )]
            trait PlainBytes {}
            impl<T: #bytemuck::Pod> PlainBytes for T {}

            #[diagnostic::on_unimplemented(
                message = "a task must be `Copy`: add `#[derive(Clone, Copy)]` to `{Self}`",
                label = "not `Copy`"
            )]
            trait TaskIsCopy: ::core::marker::Copy {}
            impl<T: ::core::marker::Copy> TaskIsCopy for T {}

            fn plain_bytes<T: PlainBytes>() {}
            fn task_is_copy<T: TaskIsCopy>() {}
            // Type-checked, never called.
            const _: fn() = || {
                #copy_check
                #(#field_checks)*
            };
            #padding

            // SAFETY (of both impls): the checks above stop compilation
            // unless `#name` is `#[repr(C)]` or `#[repr(transparent)]`,
            // `Copy`, without generics (so `'static`), without padding,
            // and made only of fields that are `Pod` (arrays of `Pod`
            // elements are `Pod`); such a type is `Zeroable` and `Pod`.
            #[automatically_derived]
            unsafe impl #bytemuck::Zeroable for #name {}
            // The higher-ranked bound keeps a missing `Copy` from being
            // reported a second time here, in bytemuck's words: the check
            // above says it in a task's.
            #[automatically_derived]
            unsafe impl #bytemuck::Pod for #name where for<'a> #name: TaskIsCopy {}
        };
    })
}

/// The element type of a (nested) array type, or the type itself.
fn element(ty: &Type) -> &Type {
    match ty {
        Type::Array(array) => element(&array.elem),
        Type::Paren(inner) => element(&inner.elem),
        Type::Group(inner) => element(&inner.elem),
        other => other,
    }
}

/// A compile-time assertion that the struct's size is the sum of its
/// fields' sizes: any difference is padding.
fn padding_check(name: &syn::Ident, types: &[&Type]) -> TokenStream {
    let message = format!(
        "`{name}` has padding bytes between or after its fields, and a task cannot: \
         padding is memory no value sets. Order the fields from the largest alignment \
         to the smallest (u64/f64, then u32/f32, then u16, then u8), or add the \
         padding as a field of its own, e.g. `_pad: [u8; 3]`"
    );
    let message = LitStr::new(&message, name.span());
    let fields = if types.is_empty() {
        quote!(0)
    } else {
        quote!(#(::core::mem::size_of::<#types>())+*)
    };
    quote_spanned! {name.span()=>
        const _: () = ::core::assert!(::core::mem::size_of::<#name>() == #fields, #message);
    }
}

/// `#[repr(C)]` or `#[repr(transparent)]`, possibly with `packed` or
/// `align`: anything else may reorder fields or hide padding.
fn check_repr(input: &DeriveInput) -> syn::Result<()> {
    let mut plain = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("C") || meta.path.is_ident("transparent") {
                plain = true;
            }
            // `packed(2)`, `align(8)`: skip the argument.
            if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                let _: TokenStream = content.parse()?;
            }
            Ok(())
        })?;
    }
    if plain {
        return Ok(());
    }
    let name = &input.ident;
    Err(syn::Error::new(
        name.span(),
        format!(
            "a task needs a fixed layout: add `#[repr(C)]` to `{name}` (or \
             `#[repr(transparent)]` for a single field); Rust's default layout may \
             reorder fields and change between compiler versions"
        ),
    ))
}

/// The path given by `#[task(crate = "...")]`, if any.
fn crate_override(input: &DeriveInput) -> syn::Result<Option<syn::Path>> {
    let mut path = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("task")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let text: LitStr = meta.value()?.parse()?;
                path = Some(text.parse::<syn::Path>()?);
                Ok(())
            } else {
                Err(meta.error(
                    "unknown `task` attribute: the only one is `crate = \"path::to::canopy\"`",
                ))
            }
        })?;
    }
    Ok(path)
}
