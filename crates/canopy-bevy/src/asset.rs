//! Trees as Bevy assets: [`TreeAsset`], read from `.json`, `.ron` and
//! `.xml` files by [`TreeLoader`] through the game's node [`Registry`].
//!
//! One file is one asset and one [`Handle`](bevy_asset::Handle): every
//! entity running that tree holds a clone of the same handle, and the asset
//! holds the one shared [`Tree`] behind an `Arc`. A [`Brain`](crate::Brain)
//! keeps its own `Arc` of the version it runs, because a canopy agent is
//! tied to the exact tree it was made for; when the asset changes, the
//! plugin moves the brain to the new version with canopy's reload (see
//! [`crate::plugin`]).
//!
//! The loader reads at most the format's byte limit (plus one byte, to
//! tell "at the limit" from "over it") whatever the asset source holds, and
//! turns every problem into a [`TreeLoadError`] that Bevy carries in its
//! asset load error: canopy's own message, naming the file, the node path
//! and the problem. XML `include` elements are refused: an asset source is
//! not a directory the loader may walk, and a tree that needs another file
//! should name it as a subtree of its own file.

use std::sync::Arc;

use bevy_asset::{
    Asset, AssetId, AssetLoadError, AssetLoader, AsyncReadExt, LoadContext, UntypedAssetId,
    VisitAssetDependencies, io::Reader,
};
use bevy_ecs::message::Message;
use bevy_reflect::TypePath;
use canopy_core::Tree;
use canopy_data::{Format, LoadError, Location, MAX_FILE_BYTES, Problem, Registry, TreeSource};

/// A behavior tree as a Bevy asset: the one shared definition every
/// entity loaded from the same file runs.
pub struct TreeAsset<A, W> {
    tree: Arc<Tree<A, W>>,
}

impl<A, W> TreeAsset<A, W> {
    /// An asset for a tree built in code (or loaded by hand).
    pub fn new(tree: Tree<A, W>) -> Self {
        TreeAsset {
            tree: Arc::new(tree),
        }
    }

    /// The shared tree.
    pub fn tree(&self) -> &Arc<Tree<A, W>> {
        &self.tree
    }
}

impl<A, W> std::fmt::Debug for TreeAsset<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeAsset")
            .field("nodes", &self.tree.len())
            .field("fingerprint", &self.tree.fingerprint())
            .finish()
    }
}

// Written by hand rather than derived: the derive would ask `A` and `W` to
// name themselves too, and a game's agent and world types need not.
impl<A: 'static, W: 'static> TypePath for TreeAsset<A, W> {
    fn type_path() -> &'static str {
        std::any::type_name::<Self>()
    }
    fn short_type_path() -> &'static str {
        "TreeAsset"
    }
}

impl<A, W> VisitAssetDependencies for TreeAsset<A, W> {
    // A tree file's subtrees live in the same file: no other asset.
    fn visit_dependencies(&self, _visit: &mut impl FnMut(UntypedAssetId)) {}
}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> Asset for TreeAsset<A, W> {}

/// Why a tree file did not load: canopy's error, with the file, the node
/// path and the problem (its `Display` is canopy's message).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TreeLoadError(pub LoadError);

/// The asset loader for tree files: `.json` and `.ron` through the
/// registry, `.xml` (BehaviorTree.CPP 4) through canopy's XML reader with
/// the same registry.
pub struct TreeLoader<A, W> {
    registry: Arc<Registry<A, W>>,
}

impl<A, W> TreeLoader<A, W> {
    /// A loader building trees from the node types of `registry`.
    pub fn new(registry: Arc<Registry<A, W>>) -> Self {
        TreeLoader { registry }
    }
}

impl<A, W> std::fmt::Debug for TreeLoader<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeLoader").finish_non_exhaustive()
    }
}

impl<A: 'static, W: 'static> TypePath for TreeLoader<A, W> {
    fn type_path() -> &'static str {
        std::any::type_name::<Self>()
    }
    fn short_type_path() -> &'static str {
        "TreeLoader"
    }
}

/// The extensions [`TreeLoader`] reads.
pub const EXTENSIONS: [&str; 3] = ["json", "ron", "xml"];

impl<A, W> AssetLoader for TreeLoader<A, W>
where
    A: Send + Sync + 'static,
    W: Send + Sync + 'static,
{
    type Asset = TreeAsset<A, W>;
    type Settings = ();
    type Error = TreeLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<TreeAsset<A, W>, TreeLoadError> {
        let path = load_context.path().to_string();
        let limit = if is_xml(&path) {
            canopy_btcpp::MAX_XML_BYTES
        } else {
            MAX_FILE_BYTES
        };
        let mut bytes = Vec::new();
        // One byte over the limit is enough for the loaders to say "too large".
        reader
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| {
                whole(
                    &path,
                    Problem::Unreadable {
                        reason: e.to_string(),
                    },
                )
            })?;
        if bytes.len() as u64 > limit {
            // Only the first `limit + 1` bytes were read: the size is unknown.
            let problem = Problem::TooLarge { bytes: None, limit };
            return Err(whole(&path, problem));
        }
        load_bytes(&self.registry, &bytes, &path).map(TreeAsset::new)
    }

    fn extensions(&self) -> &[&str] {
        &EXTENSIONS
    }
}

fn is_xml(path: &str) -> bool {
    canopy_btcpp::is_xml(path)
}

fn whole(path: &str, problem: Problem) -> TreeLoadError {
    TreeLoadError(LoadError::new(path, Location::File, problem))
}

/// Build the tree of a file's bytes; `path` names it and picks its format.
fn load_bytes<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    bytes: &[u8],
    path: &str,
) -> Result<Tree<A, W>, TreeLoadError> {
    if is_xml(path) {
        let options = canopy_btcpp::XmlOptions::default();
        return canopy_btcpp::load_bytes(registry, bytes, path, None, &options)
            .map_err(TreeLoadError);
    }
    let Some(format) = Format::from_path(path) else {
        return Err(whole(path, Problem::UnknownExtension));
    };
    registry
        .loading(TreeSource::bytes(bytes, format, path))
        .load()
        .map_err(TreeLoadError)
}

/// Sent when a tree asset changed and running brains moved onto it:
/// how many brains moved, and how many running tasks they kept and
/// aborted in all (canopy's [`Reload`](canopy_core::Reload), summed).
pub struct TreeReloaded<A: Send + Sync + 'static, W: Send + Sync + 'static> {
    /// The tree asset that changed.
    pub tree: AssetId<TreeAsset<A, W>>,
    /// Brains that moved onto the new version.
    pub brains: u32,
    /// Running tasks that went on with their state.
    pub kept: u32,
    /// Running tasks that were aborted.
    pub aborted: u32,
}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> Message for TreeReloaded<A, W> {}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> std::fmt::Debug for TreeReloaded<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeReloaded")
            .field("tree", &self.tree)
            .field("brains", &self.brains)
            .field("kept", &self.kept)
            .field("aborted", &self.aborted)
            .finish()
    }
}

/// Sent when a tree file did not load (first load or reload): which
/// asset, canopy's message, and how many brains it leaves waiting or on
/// the version they had. Also logged as an `error` through `tracing`.
pub struct TreeLoadFailed<A: Send + Sync + 'static, W: Send + Sync + 'static> {
    /// The tree asset that did not load.
    pub tree: AssetId<TreeAsset<A, W>>,
    /// Its asset path, as given to the asset server.
    pub path: String,
    /// What went wrong, in one line: canopy's message (file:line:column,
    /// node path, problem) when the file was read, else Bevy's (a missing
    /// file, say); control characters escaped.
    pub message: String,
    /// canopy's error, when the file was read but is not a tree canopy
    /// accepts: its location and problem as data.
    pub error: Option<LoadError>,
    /// Brains of this asset that have not started: they wait for a
    /// version that loads.
    pub waiting: u32,
    /// Brains of this asset that run an earlier version and keep it.
    pub running: u32,
}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> Message for TreeLoadFailed<A, W> {}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> Clone for TreeLoadFailed<A, W> {
    fn clone(&self) -> Self {
        TreeLoadFailed {
            tree: self.tree,
            path: self.path.clone(),
            message: self.message.clone(),
            error: self.error.clone(),
            waiting: self.waiting,
            running: self.running,
        }
    }
}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> std::fmt::Debug for TreeLoadFailed<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeLoadFailed")
            .field("tree", &self.tree)
            .field("path", &self.path)
            .field("message", &self.message)
            .field("error", &self.error)
            .field("waiting", &self.waiting)
            .field("running", &self.running)
            .finish()
    }
}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> TreeLoadFailed<A, W> {
    /// The report of Bevy's load error for the tree asset `tree` at
    /// `path`, before the brains are counted.
    pub(crate) fn new(
        tree: AssetId<TreeAsset<A, W>>,
        path: String,
        error: &AssetLoadError,
    ) -> Self {
        let canopy = match error {
            AssetLoadError::AssetLoaderError(e) => e.error().downcast_ref::<TreeLoadError>(),
            _ => None,
        };
        // canopy's message escapes what it quotes already; Bevy's may not.
        let message = match canopy {
            Some(TreeLoadError(e)) => canopy_core::text::escape_again(&e.to_string()).into_owned(),
            None => canopy_core::text::message(&error.to_string()),
        };
        TreeLoadFailed {
            tree,
            path,
            message,
            error: canopy.map(|e| e.0.clone()),
            waiting: 0,
            running: 0,
        }
    }
}
