//! Progress of a live run on stderr: a bar on a terminal; elsewhere (a CI
//! log, a file) a plain line at most every [`LINE_EVERY`], so that a log
//! shows the run moving without a line per unit.

use std::io::{IsTerminal as _, Write as _};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The shortest time between two progress lines when stderr is not a
/// terminal; the first comes after it too, so a short run prints none.
pub const LINE_EVERY: Duration = Duration::from_secs(10);

/// Progress on stderr: units done, rate and time left.
pub struct Progress {
    shown: Shown,
}

enum Shown {
    Nothing,
    Bar(indicatif::ProgressBar),
    Lines(Lines),
}

/// The state of the plain lines.
struct Lines {
    len: u64,
    done: AtomicU64,
    start: Instant,
    last: Mutex<Instant>,
}

impl Progress {
    /// Progress of `len` units, shown when `wanted` (not `--quiet`): a bar
    /// on a terminal, else lines.
    pub fn new(wanted: bool, len: u64) -> Progress {
        let shown = if !wanted {
            Shown::Nothing
        } else if std::io::stderr().is_terminal() {
            Shown::Bar(bar(len))
        } else {
            let now = Instant::now();
            Shown::Lines(Lines {
                len,
                done: AtomicU64::new(0),
                start: now,
                last: Mutex::new(now),
            })
        };
        Progress { shown }
    }

    /// One unit more is done.
    pub fn tick(&self) {
        match &self.shown {
            Shown::Nothing => {}
            Shown::Bar(bar) => bar.inc(1),
            Shown::Lines(lines) => {
                if let Some(line) = lines.tick(Instant::now()) {
                    let _ = writeln!(std::io::stderr().lock(), "{line}");
                }
            }
        }
    }

    /// The run is over: the bar is cleared (the report follows).
    pub fn finish(&self) {
        if let Shown::Bar(bar) = &self.shown {
            bar.finish_and_clear();
        }
    }
}

impl Lines {
    /// One unit more is done at `now`: the line to print, if one is due
    /// (none for the last unit: the report follows at once).
    fn tick(&self, now: Instant) -> Option<String> {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        // Another thread printing now is enough: skip, never wait.
        let mut last = self.last.try_lock().ok()?;
        if now.saturating_duration_since(*last) < LINE_EVERY || done >= self.len {
            return None;
        }
        *last = now;
        let elapsed = now.saturating_duration_since(self.start).as_secs_f64();
        Some(line_text(done, self.len, elapsed))
    }
}

/// The bar of a terminal, its rate rounded as [`rate_text`] rounds it.
fn bar(len: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{prefix:>9} [{bar:30}] {pos}/{len} units, {rate}, ETA {eta}",
    ) {
        let style = style.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate_text(state.per_sec()));
            },
        );
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix("kpe-check");
    bar
}

/// Units a second for people: whole numbers from 10 up (9.95 rounds to
/// 10), one decimal
/// below (`46/s`, `3.2/s`), not `46.4586/s`.
#[must_use]
pub fn rate_text(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        "0/s".to_owned()
    } else if per_sec >= 9.95 {
        format!("{per_sec:.0}/s")
    } else {
        format!("{per_sec:.1}/s")
    }
}

/// A progress line: `kpe-check: 120/400 units (30%), 12/s, about 24 s left`.
#[must_use]
pub fn line_text(done: u64, len: u64, elapsed_secs: f64) -> String {
    let per_sec = if elapsed_secs > 0.0 {
        done as f64 / elapsed_secs
    } else {
        0.0
    };
    let percent = (done * 100).checked_div(len).unwrap_or(100);
    let left = if per_sec > 0.0 {
        let secs = (len.saturating_sub(done) as f64 / per_sec).round() as u64;
        if secs >= 120 {
            format!(", about {} min left", secs.div_ceil(60))
        } else {
            format!(", about {secs} s left")
        }
    } else {
        String::new()
    };
    format!(
        "kpe-check: {done}/{len} units ({percent}%), {}{left}",
        rate_text(per_sec)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_at_most_every_ten_seconds_and_not_for_the_last_unit() {
        let start = Instant::now();
        let lines = Lines {
            len: 5,
            done: AtomicU64::new(0),
            start,
            last: Mutex::new(start),
        };
        let at = |secs: u64| start + Duration::from_secs(secs);
        assert_eq!(lines.tick(at(1)), None);
        assert_eq!(
            lines.tick(at(10)).as_deref(),
            Some("kpe-check: 2/5 units (40%), 0.2/s, about 15 s left")
        );
        assert_eq!(lines.tick(at(19)), None);
        assert!(lines.tick(at(20)).is_some());
        assert_eq!(lines.tick(at(60)), None, "the last unit");
    }

    #[test]
    fn rates_are_rounded_for_people() {
        assert_eq!(rate_text(46.4586), "46/s");
        assert_eq!(rate_text(3.21), "3.2/s");
        assert_eq!(rate_text(0.0), "0/s");
        assert_eq!(rate_text(f64::NAN), "0/s");
        assert_eq!(rate_text(9.96), "10/s");
    }

    #[test]
    fn a_progress_line_says_done_of_all_the_rate_and_time_left() {
        assert_eq!(
            line_text(120, 400, 10.0),
            "kpe-check: 120/400 units (30%), 12/s, about 23 s left"
        );
        assert_eq!(
            line_text(10, 10_000, 10.0),
            "kpe-check: 10/10000 units (0%), 1.0/s, about 167 min left"
        );
        assert_eq!(line_text(0, 0, 0.0), "kpe-check: 0/0 units (100%), 0/s");
    }
}
