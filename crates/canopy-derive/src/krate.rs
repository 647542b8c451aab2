//! Where the generated code finds canopy: the name under which the user's
//! crate depends on it, read from its `Cargo.toml`, so that a derive works
//! through `canopy` (package `canopy-bt`), `canopy-core` or `canopy-data`,
//! renamed or not, with
//! no attribute — the first thing a user meets must not need a workaround.

use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::Ident;

/// One way to reach the item a derive needs: a package and the path to
/// the item below that package's root.
pub(crate) struct Route {
    /// The package's name in `Cargo.toml`.
    pub(crate) package: &'static str,
    /// Below the package's root (`data` for the facade's `canopy::data`).
    pub(crate) below: &'static [&'static str],
}

/// The library a package builds: the facade's package is `canopy-bt` (the
/// name `canopy` is taken on crates.io) and its library `canopy`.
fn lib_name(package: &str) -> String {
    match package {
        "canopy-bt" => "canopy".to_string(),
        other => other.replace('-', "_"),
    }
}

/// The path to the first route's item whose package the compiled crate
/// depends on, or an error naming them all and the override attribute.
pub(crate) fn find(
    routes: &[Route],
    overridden: Option<&syn::Path>,
    attribute: &str,
    example: &str,
) -> Result<TokenStream, syn::Error> {
    if let Some(path) = overridden {
        return Ok(path.to_token_stream());
    }
    for route in routes {
        let Ok(found) = crate_name(route.package) else {
            continue;
        };
        // A package's own examples, tests and doctests reach it by name;
        // its library reaches itself the same way through
        // `extern crate self as <name>;` (canopy-data declares it).
        let name = match found {
            FoundCrate::Itself => lib_name(route.package),
            // Not renamed: the dependency's key, which for the facade is
            // its package name, not the library name code uses.
            FoundCrate::Name(name) if name == "canopy_bt" => lib_name("canopy-bt"),
            FoundCrate::Name(name) => name,
        };
        let root = Ident::new(&name, Span::call_site());
        let below = route.below.iter().map(|b| Ident::new(b, Span::call_site()));
        return Ok(quote!(::#root #(::#below)*));
    }
    let packages: Vec<String> = routes.iter().map(|r| format!("`{}`", r.package)).collect();
    Err(syn::Error::new(
        Span::call_site(),
        format!(
            "cannot find {} among this crate's dependencies in Cargo.toml; if canopy is \
             reached another way, say where: `#[{attribute}(crate = \"{example}\")]`",
            packages.join(" or ")
        ),
    ))
}
