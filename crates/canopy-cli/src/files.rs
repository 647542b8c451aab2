//! Input files other than tree files (which their loaders read): snapshots
//! and traces. Only regular files are opened — a FIFO could block forever,
//! a device never end — and a snapshot is read to at most
//! [`MAX_SNAPSHOT_BYTES`] + 1 bytes, whatever size the file system reports.

use std::fs::{self, File, FileType};
use std::io::Read;
use std::path::Path;

use canopy_data::escape;

/// The largest snapshot file read (1 GiB: over nine million agents of a
/// tree with a hundred bytes of task memory each). Restored agents take a
/// small multiple of the file's size in memory, so this bounds that too.
pub(crate) const MAX_SNAPSHOT_BYTES: u64 = 1 << 30;

/// A path as messages show it: escaped, like the loaders' file names.
pub(crate) fn shown(path: &Path) -> String {
    escape(&path.display().to_string()).into_owned()
}

/// What a file that is not a regular file is, for messages.
fn what_it_is(kind: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// `Ok` if `path` is a regular file; else the message, naming the file and
/// saying that `what` ("snapshots", "traces") are read from regular files.
pub(crate) fn regular(path: &Path, what: &str) -> Result<u64, String> {
    let meta = fs::metadata(path).map_err(|e| format!("{}: cannot read: {e}", shown(path)))?;
    if !meta.is_file() {
        return Err(format!(
            "{}: not a regular file ({}); {what} are read from regular files",
            shown(path),
            what_it_is(meta.file_type())
        ));
    }
    Ok(meta.len())
}

/// A snapshot file's bytes, if it is a regular file of at most
/// [`MAX_SNAPSHOT_BYTES`]; else the message.
pub(crate) fn read_snapshot(path: &Path) -> Result<Vec<u8>, String> {
    let too_large = |bytes: u64| {
        format!(
            "{}: the file is {bytes} bytes, more than the limit of {MAX_SNAPSHOT_BYTES} bytes (1 GiB)",
            shown(path)
        )
    };
    let cannot = |e: std::io::Error| format!("{}: cannot read: {e}", shown(path));
    // Asked before opening: opening a FIFO blocks until a writer comes.
    let size = regular(path, "snapshots")?;
    if size > MAX_SNAPSHOT_BYTES {
        return Err(too_large(size));
    }
    let file = File::open(path).map_err(cannot)?;
    // The name may have been pointed elsewhere in between: check what was opened.
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(format!(
            "{}: not a regular file ({}); snapshots are read from regular files",
            shown(path),
            what_it_is(meta.file_type())
        ));
    }
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(meta.len().min(MAX_SNAPSHOT_BYTES) as usize + 1)
        .map_err(|e| format!("{}: cannot read: {e}", shown(path)))?;
    let read = file
        .take(MAX_SNAPSHOT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if read as u64 > MAX_SNAPSHOT_BYTES {
        // It grew after it was measured.
        return Err(format!(
            "{}: the file holds more than the limit of {MAX_SNAPSHOT_BYTES} bytes (1 GiB)",
            shown(path)
        ));
    }
    Ok(bytes)
}
