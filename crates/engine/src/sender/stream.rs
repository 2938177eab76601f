//! The application's byte stream as the sender holds it: how much was written, whether
//! it was closed and the FIN sent, and when data last left.

use crate::time::Instant;

/// The application's stream.
#[derive(Clone, Debug, Default)]
pub(super) struct AppStream {
    /// Application bytes written so far; the stream is [0, written).
    pub written: u64,
    /// No more data will be written (`close`).
    pub closed: bool,
    /// FIN sent (on the last data segment or on its own).
    pub fin_sent: bool,
    /// When data last left (Linux `tp->lsndtime`, for `idle`).
    pub last_data_sent: Option<Instant>,
}
