//! Scoreboard (placeholder).
