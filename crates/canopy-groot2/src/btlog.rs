//! `.btlog` files: one agent's run in the format of BehaviorTree.CPP's
//! `FileLogger2`, which Groot2 opens and replays.
//!
//! | bytes | content |
//! |---|---|
//! | 18 | `BTCPP4-FileLogger2` |
//! | 1 | format version, 1 |
//! | 4 | length `n` of the XML (i32 LE) |
//! | `n` | the tree's XML with `_uid`s, as FULLTREE answers |
//! | 8 | the time of the first transition's reference, µs since 1970 (i64 LE) |
//! | 9 each | transitions: µs after that time (6 bytes LE), the node's UID (u16 LE), its new status (u8: 0 IDLE, 1 RUNNING, 2 SUCCESS, 3 FAILURE) |
//!
//! BehaviorTree.CPP stamps transitions with the wall clock; canopy's time
//! is the tick, so a transition of tick `t` is stamped `(t − t₀) × tick`
//! plus its rank within the tick in µs: the ticks are spaced as the tree's
//! times are read (`--tick-ms`), the transitions of a tick keep their
//! order, and the same run gives the same file. The transitions are the
//! [`Mirror`](crate::mirror)'s — BehaviorTree.CPP's own, in its order.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::mirror::Transition;
use crate::xml::GrootTree;

/// The first bytes of a `.btlog` file.
pub const BTLOG_MAGIC: &[u8; 18] = b"BTCPP4-FileLogger2";

/// Most bytes [`BtLogFile::parse`] reads (a log of a long run is large;
/// more is not a log).
pub const MAX_BTLOG_BYTES: usize = 1 << 30;

/// A `.btlog` being written, one watched agent's ticks at a time.
pub struct BtLog {
    out: Box<dyn Write + Send>,
    tick_us: u64,
    first_tick: Option<u32>,
    /// The first write error, reported by [`BtLog::finish`].
    failed: Option<io::Error>,
    written: u64,
}

impl std::fmt::Debug for BtLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BtLog")
            .field("tick_us", &self.tick_us)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

impl BtLog {
    /// A log of `tree` written to the file `path` (created or truncated),
    /// a tick being `tick_ms` milliseconds.
    ///
    /// # Errors
    /// When `path` does not end in `.btlog` (Groot2 opens no other), or
    /// cannot be created.
    pub fn create(path: &Path, tree: &GrootTree, tick_ms: u32) -> io::Result<BtLog> {
        if path.extension().is_none_or(|e| e != "btlog") {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: a log Groot2 opens ends in .btlog",
                    canopy_core::text::quote(&path.display().to_string())
                ),
            ));
        }
        let file = File::create(path)?;
        BtLog::new(Box::new(BufWriter::new(file)), tree, tick_ms)
    }

    /// A log of `tree` written to `out`.
    ///
    /// # Errors
    /// When the header cannot be written.
    pub fn new(
        mut out: Box<dyn Write + Send>,
        tree: &GrootTree,
        tick_ms: u32,
    ) -> io::Result<BtLog> {
        let xml = tree.xml().as_bytes();
        let len = i32::try_from(xml.len()).map_err(|_| {
            io::Error::new(io::ErrorKind::InvalidInput, "the tree's XML is over 2 GiB")
        })?;
        out.write_all(BTLOG_MAGIC)?;
        out.write_all(&[1])?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(xml)?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as i64);
        out.write_all(&now.to_le_bytes())?;
        Ok(BtLog {
            out,
            tick_us: u64::from(tick_ms.max(1)) * 1000,
            first_tick: None,
            failed: None,
            written: 0,
        })
    }

    /// Add the transitions of the watched agent's tick `tick`.
    pub fn tick(&mut self, tick: u32, transitions: &[Transition]) {
        if self.failed.is_some() || transitions.is_empty() {
            return;
        }
        let first = *self.first_tick.get_or_insert(tick);
        let base = u64::from(tick.wrapping_sub(first)) * self.tick_us;
        let mut buf = [0u8; 9];
        for (rank, t) in transitions.iter().enumerate() {
            let at = base + (rank as u64).min(self.tick_us - 1);
            buf[..6].copy_from_slice(&at.to_le_bytes()[..6]);
            buf[6..8].copy_from_slice(&t.uid.to_le_bytes());
            buf[8] = t.status;
            if let Err(e) = self.out.write_all(&buf) {
                self.failed = Some(e);
                return;
            }
            self.written += 1;
        }
    }

    /// Transitions written so far.
    pub fn transitions(&self) -> u64 {
        self.written
    }

    /// Flush the file.
    ///
    /// # Errors
    /// The first error met while writing, or flushing's.
    pub fn finish(mut self) -> io::Result<u64> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.written)
    }
}

/// A `.btlog` file read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BtLogFile {
    /// The format version (1).
    pub version: u8,
    /// The tree's XML.
    pub xml: String,
    /// The reference time, µs since 1970.
    pub start_us: i64,
    /// `(µs after the reference, uid, status)`, in order.
    pub transitions: Vec<(u64, u16, u8)>,
}

impl BtLogFile {
    /// Read a `.btlog` file's bytes.
    ///
    /// # Errors
    /// When they are not one (the message says where it went wrong).
    pub fn parse(bytes: &[u8]) -> Result<BtLogFile, String> {
        if bytes.len() > MAX_BTLOG_BYTES {
            return Err(format!("more than {MAX_BTLOG_BYTES} bytes"));
        }
        let rest = bytes
            .strip_prefix(BTLOG_MAGIC.as_slice())
            .ok_or("it does not start with BTCPP4-FileLogger2")?;
        let (&version, rest) = rest.split_first().ok_or("it ends after its first bytes")?;
        let len = rest
            .get(..4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or("it ends before the XML's length")?;
        let len = usize::try_from(len).map_err(|_| "the XML's length is negative")?;
        let xml = rest.get(4..4 + len).ok_or("it ends inside the XML")?;
        let xml = String::from_utf8(xml.to_vec()).map_err(|_| "the XML is not UTF-8")?;
        let rest = &rest[4 + len..];
        let start = rest.get(..8).ok_or("it ends before the first timestamp")?;
        let start_us = i64::from_le_bytes(start.try_into().map_err(|_| "short")?);
        let rest = &rest[8..];
        if rest.len() % 9 != 0 {
            return Err(format!(
                "{} bytes of transitions, not a multiple of 9",
                rest.len()
            ));
        }
        let transitions = rest
            .chunks_exact(9)
            .map(|c| {
                let mut at = [0u8; 8];
                at[..6].copy_from_slice(&c[..6]);
                (
                    u64::from_le_bytes(at),
                    u16::from_le_bytes([c[6], c[7]]),
                    c[8],
                )
            })
            .collect();
        Ok(BtLogFile {
            version,
            xml,
            start_us,
            transitions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A writer whose bytes the test keeps.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_log_reads_back_with_ticks_spaced_by_the_tick_length() {
        let tree = GrootTree::from_xml(
            "<root><BehaviorTree ID=\"M\"><Inverter><AlwaysFailure/></Inverter></BehaviorTree></root>",
        )
        .unwrap();
        let bytes = Shared::default();
        let mut log = BtLog::new(Box::new(bytes.clone()), &tree, 50).unwrap();
        let t = |uid, status| Transition { uid, status };
        log.tick(3, &[t(1, 1), t(2, 3), t(2, 0), t(1, 2), t(1, 0)]);
        log.tick(4, &[t(1, 1)]);
        assert_eq!(log.finish().unwrap(), 6);
        let file = BtLogFile::parse(&bytes.0.lock().unwrap()).unwrap();
        assert_eq!(file.version, 1);
        assert_eq!(file.xml, tree.xml());
        assert_eq!(
            file.transitions,
            [
                (0, 1, 1),
                (1, 2, 3),
                (2, 2, 0),
                (3, 1, 2),
                (4, 1, 0),
                (50_000, 1, 1)
            ]
        );
    }

    #[test]
    fn a_log_must_be_named_btlog_and_a_damaged_one_is_an_error() {
        let tree = GrootTree::from_xml(
            "<root><BehaviorTree ID=\"M\"><AlwaysSuccess/></BehaviorTree></root>",
        )
        .unwrap();
        let e = BtLog::create(Path::new("/nonexistent/run.log"), &tree, 100).unwrap_err();
        assert!(
            e.to_string().ends_with("a log Groot2 opens ends in .btlog"),
            "{e}"
        );
        assert_eq!(
            BtLogFile::parse(b"BTCPP4-FileLogger2\x01\x05\x00\x00\x00<r/>").unwrap_err(),
            "it ends inside the XML"
        );
        assert!(BtLogFile::parse(b"hello").is_err());
    }
}
