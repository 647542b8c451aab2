//! `#[derive(ParamEnum)]`: an enum's variants as the words of a
//! parameter, as clap's `ValueEnum` makes them the values of an option.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, LitStr};

use crate::krate::find;
use crate::params::ROUTES;

pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let Data::Enum(data) = &input.data else {
        return Err(syn::Error::new(
            name.span(),
            "`#[derive(ParamEnum)]` is for enums whose variants are words; for a struct of parameters, use `#[derive(Params)]`",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "a parameter's enum cannot have generic parameters",
        ));
    }
    if data.variants.is_empty() {
        return Err(syn::Error::new(
            name.span(),
            "a parameter's enum needs at least one variant: a parameter with no possible word cannot be written",
        ));
    }
    let mut krate = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("params")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                krate = Some(meta.value()?.parse::<LitStr>()?.parse::<syn::Path>()?);
                Ok(())
            } else {
                Err(meta.error("unknown `params` attribute: the only one is `crate = \"path::to::canopy_core\"`"))
            }
        })?;
    }
    let root = find(&ROUTES, krate.as_ref(), "params", "canopy")?;
    let data_path = quote!(#root::params);
    let mut variants = Vec::new();
    let mut words: Vec<String> = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            return Err(syn::Error::new(
                variant.fields.span(),
                "a parameter's enum has unit variants only: each variant is one word of a tree file",
            ));
        }
        let word = word(variant)?;
        if words.contains(&word) {
            return Err(syn::Error::new(
                variant.ident.span(),
                format!("two variants are the word \"{word}\""),
            ));
        }
        variants.push(&variant.ident);
        words.push(word);
    }
    let data = data_path;
    Ok(quote! {
        #[automatically_derived]
        impl #data::ParamEnum for #name {
            const WORDS: &'static [&'static str] = &[#(#words),*];

            fn from_word(word: &str) -> ::core::option::Option<Self> {
                match word {
                    #(#words => ::core::option::Option::Some(Self::#variants),)*
                    _ => ::core::option::Option::None,
                }
            }

            fn word(&self) -> &'static str {
                match self {
                    #(Self::#variants => #words,)*
                }
            }
        }

        #[automatically_derived]
        impl #data::FromParam for #name {
            fn kind() -> #data::ParamKind {
                #data::ParamKind::Choice(
                    <Self as #data::ParamEnum>::WORDS
                        .iter()
                        .map(|w| ::std::string::ToString::to_string(w))
                        .collect(),
                )
            }

            fn from_value(value: &#data::ParamValue<'_>) -> ::core::option::Option<Self> {
                <Self as #data::ParamEnum>::from_word(value.as_str()?)
            }

            fn to_literal(&self) -> #data::Literal {
                #data::Literal::Text(::std::string::ToString::to_string(
                    <Self as #data::ParamEnum>::word(self),
                ))
            }
        }
    })
}

/// A variant's word: `#[param(rename = "…")]`, or its name in snake_case.
fn word(variant: &syn::Variant) -> syn::Result<String> {
    let mut word = None;
    for attr in variant.attrs.iter().filter(|a| a.path().is_ident("param")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                word = Some(meta.value()?.parse::<LitStr>()?.value());
                Ok(())
            } else {
                Err(meta.error(
                    "unknown `param` attribute on a variant: the only one is `rename = \"…\"`",
                ))
            }
        })?;
    }
    Ok(word.unwrap_or_else(|| snake_case(&variant.ident.to_string())))
}

/// `RunAway` → `run_away`, `HTTPServer` → `http_server`, `Level2` → `level2`.
fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let after_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let ends_acronym = i > 0
                && chars[i - 1].is_uppercase()
                && chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if after_lower || ends_acronym {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn words_are_snake_case() {
        assert_eq!(snake_case("Walk"), "walk");
        assert_eq!(snake_case("RunAway"), "run_away");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("Level2"), "level2");
        assert_eq!(snake_case("Level2Boss"), "level2_boss");
        assert_eq!(snake_case("already_snake"), "already_snake");
    }
}
