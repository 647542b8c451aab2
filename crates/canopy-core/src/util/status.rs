//! What a task reports after an update, and why a task ended.
//!
//! Two small enums instead of one: an update can only say `Running`,
//! `Success` or `Failure`, while a terminate hook additionally needs to know
//! that its task was cut short ([`Exit::Aborted`]) rather than finished.

use std::fmt;

/// The result of updating a task for one tick.
///
/// ```
/// use canopy_core::Status;
/// assert!(Status::Running.is_running());
/// assert_eq!(Status::Success.invert(), Status::Failure);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    /// Not finished: the task stays installed and is updated again next tick.
    Running,
    /// Finished successfully.
    Success,
    /// Finished unsuccessfully.
    Failure,
}

impl Status {
    /// `true` for [`Status::Running`].
    ///
    /// ```
    /// assert!(!canopy_core::Status::Failure.is_running());
    /// ```
    #[inline]
    pub fn is_running(self) -> bool {
        self == Status::Running
    }

    /// `Success` ↔ `Failure`; `Running` stays `Running` (what an Inverter does).
    ///
    /// ```
    /// use canopy_core::Status;
    /// assert_eq!(Status::Running.invert(), Status::Running);
    /// ```
    #[inline]
    pub fn invert(self) -> Status {
        match self {
            Status::Running => Status::Running,
            Status::Success => Status::Failure,
            Status::Failure => Status::Success,
        }
    }

    /// `Success` for `true`, `Failure` for `false` (what a condition leaf reports).
    ///
    /// ```
    /// assert_eq!(canopy_core::Status::from_bool(true), canopy_core::Status::Success);
    /// ```
    #[inline]
    pub fn from_bool(ok: bool) -> Status {
        if ok { Status::Success } else { Status::Failure }
    }

    /// The status word used in traces and tree files.
    ///
    /// ```
    /// assert_eq!(canopy_core::Status::Running.as_str(), "Running");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "Running",
            Status::Success => "Success",
            Status::Failure => "Failure",
        }
    }

    /// The three status words, as tree files write them.
    pub const WORDS: [&'static str; 3] = ["Running", "Success", "Failure"];

    /// The status a word names, exactly as [`Status::as_str`] writes it.
    ///
    /// ```
    /// use canopy_core::Status;
    /// assert_eq!(Status::from_word("Success"), Some(Status::Success));
    /// assert_eq!(Status::from_word("success"), None);
    /// ```
    pub fn from_word(word: &str) -> Option<Status> {
        match word {
            "Running" => Some(Status::Running),
            "Success" => Some(Status::Success),
            "Failure" => Some(Status::Failure),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a task's terminate hook runs.
///
/// ```
/// use canopy_core::{Exit, Status};
/// assert_eq!(Exit::from(Status::Failure), Exit::Failure);
/// assert!(Exit::Aborted.is_aborted());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exit {
    /// The task's last update returned `Success`.
    Success,
    /// The task's last update returned `Failure`.
    Failure,
    /// The task was still running when something above it moved on: its
    /// parent finished, a higher-priority branch took over, a parallel
    /// decided, a timeout fired, or the agent was reset.
    Aborted,
}

impl Exit {
    /// `true` for [`Exit::Aborted`].
    ///
    /// ```
    /// assert!(!canopy_core::Exit::Success.is_aborted());
    /// ```
    pub fn is_aborted(self) -> bool {
        self == Exit::Aborted
    }
}

impl From<Status> for Exit {
    /// A finished status as an exit reason. `Running` never ends a task; it
    /// maps to `Aborted` so the conversion is total.
    #[inline(always)]
    fn from(status: Status) -> Exit {
        match status {
            Status::Success => Exit::Success,
            Status::Failure => Exit::Failure,
            Status::Running => Exit::Aborted,
        }
    }
}
