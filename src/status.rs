//! The exit status of a command, decided as a value and turned into a process exit code once,
//! in `main`.
//!
//! Contract: every command returns a [`Status`]; the numbers are the ones README.md documents
//! (0, 1, 2, 130), and nothing else in the crate calls `std::process::exit` or builds an
//! `ExitCode`.

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything asked for was done (0).
    Success,
    /// The run went, but something was not done: an input could not be read, an output failed,
    /// events went to a dead-letter file or were rejected (1).
    Failed,
    /// Refused before anything started: a bad option, config, catalog, sink, glob or state
    /// directory (2).
    Refused,
    /// Ended by Ctrl-C or SIGTERM before the input's end, with `--summary` (130, as a shell
    /// reports SIGINT).
    Interrupted,
}

impl Status {
    pub fn code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::Failed => 1,
            Status::Refused => 2,
            Status::Interrupted => 130,
        }
    }
}

impl From<Status> for std::process::ExitCode {
    fn from(s: Status) -> std::process::ExitCode {
        std::process::ExitCode::from(s.code())
    }
}
