//! The time a request is charged: the engine's own time, not the
//! machine's (spec/PROTOCOL.md, "What a timeout means").
//!
//! On Linux a request is charged the wall time since kpe-check began to
//! wait for its answer, less the time the engine was held back: waiting
//! in a run queue for a CPU (the second field of each of its threads'
//! `/proc/PID/task/TID/schedstat`), or stopped by a signal (`T` in
//! `/proc/PID/stat`, at both ends of an interval). Time the engine spent
//! running, or sleeping of its own accord, is charged; so a hung engine,
//! spinning or asleep, uses up its timeout as before, while one kept from
//! a CPU by other processes does not. The engine is every process of its
//! process group (a launcher such as `sh -c` and what it starts), every
//! thread of each. A multi-threaded engine is charged at least its CPU
//! time divided by the cores it may use, so that threads waiting for each
//! other's cores are not taken for a machine that holds it back. Where
//! processes came and went between two looks, their waits are lost with
//! them: that stretch is charged the CPU time seen ([`sample`]).
//!
//! Nothing is read while a request is answered within a tenth of its
//! timeout (nearly every request): that tenth is charged in full, and
//! only then is the engine first looked at. Wall time never exceeds
//! [`wall_cap`]: an engine held back for that long is given up on.
//!
//! Elsewhere, and when `/proc` cannot be read, a request is charged its
//! wall time, as it always was.

use std::time::{Duration, Instant};

/// The most wall time kpe-check waits for one answer is this many times
/// its timeout ([`wall_cap`]).
pub const WALL_FACTOR: u32 = 20;

/// The most wall time kpe-check waits for one answer is at least this
/// ([`wall_cap`]).
pub const WALL_FLOOR: Duration = Duration::from_secs(60);

/// The most wall time kpe-check waits for an answer whose timeout is
/// `timeout`, however long the engine is held back: [`WALL_FACTOR`] times
/// the timeout, and at least [`WALL_FLOOR`].
#[must_use]
pub fn wall_cap(timeout: Duration) -> Duration {
    timeout.saturating_mul(WALL_FACTOR).max(WALL_FLOOR)
}

/// The part of a timeout waited before the engine is first looked at:
/// charged in full.
const FIRST_PART: u32 = 10;

/// What one request has been charged so far.
pub(super) struct Budget {
    timeout: Duration,
    started: Instant,
    /// The engine's process group, when its threads can be looked at.
    group: Option<i32>,
    charged: Duration,
    /// The engine as last looked at, and when.
    last: Option<(Instant, sample::Sample)>,
    /// The cores the engine may use (read at the first look).
    cores: u32,
    /// Nanoseconds of waiting counted beyond the intervals they were
    /// counted in, for the next ones.
    carry: u64,
}

impl Budget {
    /// A request of `timeout` to the engine whose process group is
    /// `group` (`None`: charged its wall time), starting now.
    pub(super) fn new(timeout: Duration, group: Option<i32>) -> Budget {
        Budget {
            timeout,
            started: Instant::now(),
            group: group.filter(|_| sample::SUPPORTED),
            charged: Duration::ZERO,
            last: None,
            cores: 0,
            carry: 0,
        }
    }

    /// How long to wait first.
    pub(super) fn first_wait(&self) -> Duration {
        if self.group.is_some() {
            self.timeout / FIRST_PART
        } else {
            self.timeout
        }
    }

    /// The wait ran out with no answer: how much longer to wait, or
    /// `None` when the request has used its timeout (or the wall cap).
    pub(super) fn more(&mut self) -> Option<Duration> {
        let now = Instant::now();
        let wall = now.saturating_duration_since(self.started);
        let cap = wall_cap(self.timeout);
        if wall >= cap {
            return None;
        }
        let group = self.group?;
        let seen = sample::Sample::read(group);
        // Reading `/proc` takes time, much of it on a starved machine (it
        // looks at every process): the sample is of when the reading
        // ended, and the reading itself is not charged.
        let read = Instant::now();
        self.charged += match (self.last.take(), &seen) {
            (Some((at, before)), Some(after)) => {
                if self.cores == 0 {
                    self.cores = u32::try_from(crate::live::pin::allowed().len())
                        .unwrap_or(1)
                        .max(1);
                }
                before.charge(
                    after,
                    read.saturating_duration_since(at),
                    self.cores,
                    &mut self.carry,
                )
            }
            (Some((at, _)), None) => read.saturating_duration_since(at),
            // The first part, charged in full: the part waited, not the
            // time until the look (kpe-check itself may have been kept
            // from a CPU after the wait).
            (None, _) => wall.min(self.first_wait()),
        };
        self.last = seen.map(|s| (read, s));
        if self.charged >= self.timeout {
            return None;
        }
        let left = self.timeout - self.charged;
        Some(left.max(self.timeout / FIRST_PART).min(cap - wall))
    }

    /// The wall time since the request began.
    pub(super) fn wall(&self) -> Duration {
        self.started.elapsed()
    }
}

#[cfg(target_os = "linux")]
mod sample {
    use std::collections::BTreeMap;
    use std::time::Duration;

    /// Whether the engine's threads can be looked at here.
    pub(super) const SUPPORTED: bool = true;

    /// One thread: nanoseconds run and waited for a CPU in all, and
    /// whether its process was stopped.
    #[derive(Clone, Copy)]
    pub(in crate::live::process) struct Thread {
        run: u64,
        wait: u64,
        pub(in crate::live::process) stopped: bool,
    }

    /// The threads of an engine's process group, by thread id, and the
    /// CPU time of the children its processes have reaped, by process id.
    pub(in crate::live::process) struct Sample {
        pub(in crate::live::process) threads: BTreeMap<i32, Thread>,
        /// By process: its reaped children's CPU time and page faults.
        reaped: BTreeMap<i32, (u64, u64)>,
    }

    impl Sample {
        /// The threads of every process in `group`, or `None` when `/proc`
        /// cannot be read or says nothing of it (the group is gone).
        pub(in crate::live::process) fn read(group: i32) -> Option<Sample> {
            let mut threads = BTreeMap::new();
            let mut reaped = BTreeMap::new();
            for entry in std::fs::read_dir("/proc").ok()?.flatten() {
                let Some(pid) = entry
                    .file_name()
                    .to_str()
                    .and_then(|n| n.parse::<i32>().ok())
                else {
                    continue;
                };
                let Some(process) = process(pid) else {
                    continue;
                };
                if process.group != group {
                    continue;
                }
                reaped.insert(pid, (process.reaped, process.faults));
                let stopped = matches!(process.state, 'T' | 't');
                let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                    continue;
                };
                for task in tasks.flatten() {
                    let Some(tid) = task
                        .file_name()
                        .to_str()
                        .and_then(|n| n.parse::<i32>().ok())
                    else {
                        continue;
                    };
                    if let Some((run, wait)) = schedstat(pid, tid) {
                        threads.insert(tid, Thread { run, wait, stopped });
                    }
                }
            }
            (!threads.is_empty()).then_some(Sample { threads, reaped })
        }

        /// What the `elapsed` between this sample and `after` is charged,
        /// for an engine that may use `cores` cores: the time it was not
        /// held back, and at least its CPU time over its cores.
        ///
        /// A thread that ended between the two samples (a launcher's
        /// short-lived helpers) took its waits with it: when one did, or
        /// a process of the group reaped a child meanwhile (its children's
        /// CPU time or page faults grew), only the CPU time the group is
        /// seen to have used is charged, since the rest may have been
        /// spent waiting for a CPU.
        pub(in crate::live::process) fn charge(
            &self,
            after: &Sample,
            elapsed: Duration,
            cores: u32,
            carry: &mut u64,
        ) -> Duration {
            let interval = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
            let (mut run, mut held) = (0u64, 0u64);
            for (tid, now) in &after.threads {
                let before = self.threads.get(tid);
                let since = |now: u64, then: Option<u64>| now.saturating_sub(then.unwrap_or(0));
                run = run.saturating_add(since(now.run, before.map(|b| b.run)));
                held = held.saturating_add(since(now.wait, before.map(|b| b.wait)));
                if now.stopped && before.is_some_and(|b| b.stopped) {
                    held = held.saturating_add(interval);
                }
            }
            let (mut reaped, mut faulted) = (0u64, false);
            for (pid, &(cpu, faults)) in &after.reaped {
                let (cpu_then, faults_then) =
                    self.reaped.get(pid).copied().unwrap_or((cpu, faults));
                reaped = reaped.saturating_add(cpu.saturating_sub(cpu_then));
                faulted |= faults > faults_then;
            }
            let gone = self
                .threads
                .keys()
                .any(|tid| !after.threads.contains_key(tid));
            let free = if gone || reaped > 0 || faulted {
                run.saturating_add(reaped)
            } else {
                // A wait is added to a thread's count only once the wait
                // ends: one still going at a look shows in the next. What
                // one interval counts beyond its length is carried on.
                let held = held.saturating_add(std::mem::take(carry));
                *carry = held.saturating_sub(interval);
                interval - held.min(interval)
            };
            let busy = run.saturating_add(reaped) / u64::from(cores.max(1));
            Duration::from_nanos(free.max(busy).min(interval))
        }
    }

    /// What `/proc/PID/stat` says of a process.
    struct Process {
        state: char,
        group: i32,
        /// Nanoseconds of CPU used by the children it has reaped.
        reaped: u64,
        /// Page faults of the children it has reaped.
        faults: u64,
    }

    /// A process's state, group and reaped children's CPU time, from
    /// `/proc/PID/stat`.
    fn process(pid: i32) -> Option<Process> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name, in parentheses, may hold anything: the
        // fields start after its last `)` (the third field, `state`).
        let fields: Vec<&str> = stat[stat.rfind(')')? + 1..]
            .split_ascii_whitespace()
            .collect();
        let state = fields.first()?.chars().next()?;
        let group = fields.get(2)?.parse().ok()?;
        let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
        // Fields 16 and 17, `cutime` and `cstime`, in clock ticks.
        let ticks = field(16)? + field(17)?;
        let per_second = rustix::param::clock_ticks_per_second().max(1);
        let reaped = ticks.saturating_mul(1_000_000_000) / per_second;
        // Fields 10 and 12, `cminflt` and `cmajflt`: a child reaped grows
        // them even when it ran less than a tick.
        let faults = field(10)? + field(12)?;
        Some(Process {
            state,
            group,
            reaped,
            faults,
        })
    }

    /// A thread's nanoseconds run and waited for a CPU, from its
    /// `schedstat`.
    fn schedstat(pid: i32, tid: i32) -> Option<(u64, u64)> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/schedstat")).ok()?;
        let mut fields = text.split_ascii_whitespace();
        let run = fields.next()?.parse().ok()?;
        let wait = fields.next()?.parse().ok()?;
        Some((run, wait))
    }
}

#[cfg(not(target_os = "linux"))]
mod sample {
    use std::time::Duration;

    /// Whether the engine's threads can be looked at here.
    pub(super) const SUPPORTED: bool = false;

    /// Never read outside Linux.
    pub(in crate::live::process) struct Sample;

    impl Sample {
        pub(in crate::live::process) fn read(_group: i32) -> Option<Sample> {
            None
        }

        pub(in crate::live::process) fn charge(
            &self,
            _after: &Sample,
            elapsed: Duration,
            _cores: u32,
            _carry: &mut u64,
        ) -> Duration {
            elapsed
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A process stopped by a signal is held back; one asleep is not.
    #[test]
    fn a_stopped_engine_is_charged_nothing_and_a_sleeping_one_its_time() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let group = i32::try_from(child.id()).unwrap();
        // Once it has become `sleep` and sleeps (not on the machine's
        // time: on its own word).
        loop {
            let stat = std::fs::read_to_string(format!("/proc/{group}/stat")).unwrap();
            if stat.contains("(sleep) S") {
                break;
            }
            std::thread::yield_now();
        }
        let asleep = sample::Sample::read(group).expect("the group's threads are read");
        let later = sample::Sample::read(group).unwrap();
        let second = Duration::from_secs(1);
        assert_eq!(
            asleep.charge(&later, second, 1, &mut 0),
            second,
            "asleep: charged"
        );
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(group).unwrap(),
            rustix::process::Signal::STOP,
        )
        .unwrap();
        // Stopped by the time its state says so.
        let stopped = loop {
            let s = sample::Sample::read(group).unwrap();
            if s.threads.values().all(|t| t.stopped) {
                break s;
            }
            std::thread::yield_now();
        };
        let again = sample::Sample::read(group).unwrap();
        assert_eq!(stopped.charge(&again, second, 1, &mut 0), Duration::ZERO);
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// Regression: a launcher's helpers that come and go between two
    /// looks (a pyenv shim's) took their waits for a CPU with them, so the
    /// time a starved launcher spent was charged in full and the sample
    /// Python engine still timed out at load 200. Such time is charged
    /// by the CPU the group is seen to use.
    #[test]
    fn a_helper_that_came_and_went_is_charged_its_cpu_only() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 1; exec sleep 30"])
            .process_group(0)
            .spawn()
            .unwrap();
        let group = i32::try_from(child.id()).unwrap();
        let threads = |n: usize| loop {
            if let Some(s) = sample::Sample::read(group)
                && s.threads.len() == n
            {
                break s;
            }
            std::thread::yield_now();
        };
        let (before, after) = (threads(2), threads(1));
        let long = Duration::from_secs(100);
        assert!(before.charge(&after, long, 1, &mut 0) < Duration::from_secs(10));
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn the_wall_cap_is_a_multiple_of_the_timeout_and_at_least_the_floor() {
        assert_eq!(wall_cap(Duration::from_secs(5)), Duration::from_secs(100));
        assert_eq!(wall_cap(Duration::from_millis(300)), WALL_FLOOR);
        assert_eq!(wall_cap(Duration::MAX), Duration::MAX);
    }

    /// An engine whose group cannot be read (gone) is charged wall time.
    #[test]
    fn a_group_that_is_gone_is_read_as_nothing() {
        assert!(sample::Sample::read(i32::MAX).is_none());
    }
}
