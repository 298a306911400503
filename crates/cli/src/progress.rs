//! A progress bar on a terminal; nothing at all in pipes.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Progress over the bytes of an input file.
pub struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar over `total` bytes, drawn only when `enabled` and standard error is a
    /// terminal, and only for inputs big enough to take a while.
    pub fn new(total: u64, enabled: bool) -> Self {
        const MIN_BYTES: u64 = 16 << 20;
        if !enabled || total < MIN_BYTES || !std::io::stderr().is_terminal() {
            return Bar { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        ) {
            bar.set_style(style);
        }
        Bar { bar: Some(bar) }
    }

    /// Moves the bar to `bytes` read.
    pub fn update(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(bytes);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
