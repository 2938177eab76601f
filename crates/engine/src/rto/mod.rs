//! Retransmission timeouts beyond RFC 6298: when the timer fires (RTO Restart), whether a
//! timeout or fast retransmit was spurious (F-RTO, Eifel, DSACK, Linux's undo), and what
//! the sender does then (the responses of seed 004 and RFC 4015, RTO adaptation).
//!
//! - [`restart`]: RFC 7765 RTO Restart (seed 002).
//! - [`frto`]: RFC 5682 F-RTO, basic and SACK-enhanced, and Linux's `tcp_process_loss`.
//! - [`eifel`]: RFC 3522 Eifel detection and RFC 4015 Eifel response.
//! - [`undo`]: "undo is a value" (DESIGN.md): the congestion snapshot taken when a
//!   reduction starts, Linux's DSACK and timestamp accounting (`undo_marker`,
//!   `undo_retrans`, `retrans_stamp`), and the responses that restore from the snapshot.
//!
//! Each module holds pure decisions with table tests; `sender::spurious` applies them.

pub mod eifel;
pub mod frto;
pub mod restart;
pub mod undo;
