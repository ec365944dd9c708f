//! Running the games of a transcript, in one thread or many, and handing
//! their outcomes to a consumer in the file's order.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

use super::chunks;
use super::game::Batch;
use super::reader::{Consumer, Mode, Outcomes, Top, TopState, Worker, check_batch};
use crate::reporter::{CheckError, InputError};

/// The next games, for the calling thread to hand out or already checked.
pub(super) enum Next<M: Mode> {
    Hand(Batch),
    Checked(Outcomes<M>),
}

/// Reads the transcript at `path`, checking its games with `jobs` threads
/// and giving the outcomes to `consumer` in the file's order.
///
/// With one job the calling thread checks each game as it reads it, with
/// no scan for a game of the plain shape. With more, the games are found
/// and checked in parallel in pieces of the file ([`chunks`]); for a file
/// where that does not pay (most games not of the plain shape, or the
/// header after games whose end was not found in pieces, [`skip`]), the
/// calling thread scans games and hands them out in batches
/// ([`drive_batches`]).
pub(super) fn drive<C: Consumer>(
    path: &Path,
    source: &str,
    jobs: usize,
    consumer: &mut C,
) -> Result<(), CheckError> {
    drive_with(path, source, jobs, chunks::Chunking::FILE, consumer).map(|_| ())
}

/// [`drive`], the file cut into pieces as `chunking` says: how the pieces
/// went.
pub(super) fn drive_with<C: Consumer>(
    path: &Path,
    source: &str,
    jobs: usize,
    chunking: chunks::Chunking,
    consumer: &mut C,
) -> Result<chunks::Tally, CheckError> {
    let mut top = Top::open(path, source)?;
    top.sharing = Some((jobs, chunking.skip));
    top.try_end = chunking.from_end;
    let header = top.header()?;
    let mode = match consumer.header(header) {
        Ok(mode) => mode,
        Err(abort) => return abort.into_result().map(|()| chunks::Tally::default()),
    };
    let mut tally = chunks::Tally {
        skipped: top.shared,
        from_end: top.from_end,
        ..chunks::Tally::default()
    };
    let stop = AtomicBool::new(false);
    if jobs <= 1 {
        let mut worker = Worker::open(path, source)?;
        while let Some(outcomes) = top.checked_batch(&mode, &mut worker, &stop)? {
            for outcome in outcomes {
                if let Err(abort) = consumer.game(&mode, outcome?) {
                    return abort.into_result().map(|()| chunks::Tally::default());
                }
            }
        }
        return Ok(tally);
    }
    if let TopState::Games { .. } = top.state {
        let run = chunks::Run {
            path,
            source,
            jobs,
            chunking,
        };
        if run.drive(&mut top, &mode, consumer, &mut tally)? == chunks::Flow::Done {
            return Ok(tally);
        }
    }
    drive_batches(&mut top, &mode, path, source, jobs, consumer)?;
    Ok(tally)
}

/// Checks the rest of the games with `jobs` threads: while another thread
/// has fewer than two batches, the calling thread scans the next games
/// and hands them to it as a batch, with their bytes; otherwise it checks
/// the next games itself as it reads them.
pub(super) fn drive_batches<C: Consumer>(
    top: &mut Top,
    mode: &C::Mode,
    path: &Path,
    source: &str,
    jobs: usize,
    consumer: &mut C,
) -> Result<(), CheckError> {
    let stop = AtomicBool::new(false);
    // The calling thread checks games too, as it reads them, while every
    // other thread has batches to check: `jobs` threads in all, on `jobs`
    // cores.
    let mut own = Worker::open(path, source)?;
    let workers = (1..jobs)
        .map(|_| Worker::open(path, source))
        .collect::<Result<Vec<_>, _>>()?;
    // Each other thread has one batch being checked and one waiting.
    let ahead = 2 * (jobs - 1);
    let (job_tx, job_rx) = mpsc::sync_channel::<Batch>(ahead);
    let job_rx = Mutex::new(job_rx);
    std::thread::scope(|s| {
        // Owned here, so that it is dropped (and the threads end) however
        // this closure ends, a panic included.
        let job_tx = job_tx;
        let (result_tx, result_rx) = mpsc::channel::<Answer<<C::Mode as Mode>::Outcome>>();
        for worker in workers {
            let (job_rx, result_tx, stop) = (&job_rx, result_tx.clone(), &stop);
            s.spawn(move || check_batches(mode, worker, job_rx, &result_tx, stop));
        }
        drop(result_tx);
        let mut run = Dispatch {
            mode,
            own: &mut own,
            stop: &stop,
            ahead,
            // Batches handed out at most this far ahead of the one
            // reported next: memory stays a few batches per thread.
            window: jobs * 8,
            pool: Vec::new(),
            sent: 0,
            next: 0,
            handed: 0,
            scanned: false,
            scan_error: None,
            waiting: BTreeMap::new(),
        };
        let result = loop {
            run.read_ahead(top, &job_tx, &result_rx);
            if run.next == run.sent && run.scanned {
                break run
                    .scan_error
                    .take()
                    .map_or(Ok(()), |e| Err(CheckError::Input(e)));
            }
            run.check_or_wait(&job_rx, &result_rx);
            if let Some(end) = run.report(consumer) {
                break end;
            }
        };
        stop.store(true, Ordering::Relaxed);
        drop(job_tx);
        result
    })
}

/// The calling thread's side of [`drive_batches`]: what it has read,
/// handed out, checked and reported.
struct Dispatch<'a, M: Mode> {
    mode: &'a M,
    own: &'a mut Worker,
    stop: &'a AtomicBool,
    /// Batches the other threads may hold at once.
    ahead: usize,
    /// How far ahead of the next batch to report reading may go.
    window: usize,
    /// Byte buffers of batches done, for the next ones.
    pool: Vec<Vec<u8>>,
    /// Batches read so far (handed out or checked here).
    sent: usize,
    /// The next batch to report.
    next: usize,
    /// Batches handed to the other threads and not answered yet.
    handed: usize,
    /// Whether every game has been read.
    scanned: bool,
    /// What ended the reading, if the file is bad.
    scan_error: Option<InputError>,
    /// Outcomes of batches checked, waiting for their turn.
    waiting: BTreeMap<usize, Outcomes<M>>,
}

impl<M: Mode> Dispatch<'_, M> {
    /// Reads games until the next batch to report is ready, the window is
    /// full or the file ends: each batch goes to another thread while one
    /// has room, or is checked here as it is read.
    fn read_ahead(
        &mut self,
        top: &mut Top,
        job_tx: &mpsc::SyncSender<Batch>,
        result_rx: &mpsc::Receiver<Answer<M::Outcome>>,
    ) {
        while !self.scanned && self.sent < self.next + self.window {
            self.take_answers(result_rx);
            let found = if self.handed < self.ahead {
                top.next_batch(self.sent, self.pool.pop().unwrap_or_default())
                    .map(|batch| batch.map(Next::<M>::Hand))
            } else {
                // Every other thread is busy: check the next games here,
                // as they are read.
                top.checked_batch(self.mode, self.own, self.stop)
                    .map(|outcomes| outcomes.map(Next::Checked))
            };
            match found {
                Ok(Some(Next::Hand(batch))) => {
                    self.sent += 1;
                    self.handed += 1;
                    if let Err(mpsc::TrySendError::Full(batch)) = job_tx.try_send(batch) {
                        // Not expected (the channel holds `ahead`).
                        self.handed -= 1;
                        self.check_here(batch);
                    }
                }
                Ok(Some(Next::Checked(outcomes))) => {
                    self.waiting.insert(self.sent, outcomes);
                    self.sent += 1;
                }
                Ok(None) => self.scanned = true,
                Err(e) => {
                    self.scan_error = Some(e);
                    self.scanned = true;
                }
            }
            if self.waiting.contains_key(&self.next) {
                break;
            }
        }
    }

    /// Once nothing more can be read (every game read, or as far ahead as
    /// the window allows), a batch no other thread has taken yet is checked
    /// here rather than waited for; before that, the games still to read
    /// are this thread's share. The lock is held by a thread only while it
    /// waits for a batch, when none is queued.
    fn check_or_wait(
        &mut self,
        job_rx: &Mutex<mpsc::Receiver<Batch>>,
        result_rx: &mpsc::Receiver<Answer<M::Outcome>>,
    ) {
        let idle = self.scanned || self.sent >= self.next + self.window;
        let queued = idle
            .then(|| job_rx.try_lock().ok().and_then(|rx| rx.try_recv().ok()))
            .flatten();
        if let Some(batch) = queued {
            self.handed -= 1;
            self.check_here(batch);
        } else if !self.waiting.contains_key(&self.next) {
            // The next batch to report is another thread's: wait for any
            // answer (it gives back a buffer, and perhaps `next`).
            let answer = result_rx
                .recv()
                .expect("a worker answers every batch it takes");
            self.answered(answer);
        }
        self.take_answers(result_rx);
    }

    /// Gives the consumer every batch whose turn has come, in the file's
    /// order: `Some` with how the run ends when the consumer or a bad game
    /// ends it.
    fn report<C: Consumer<Mode = M>>(
        &mut self,
        consumer: &mut C,
    ) -> Option<Result<(), CheckError>> {
        while let Some(outcomes) = self.waiting.remove(&self.next) {
            self.next += 1;
            for outcome in outcomes {
                let outcome = match outcome {
                    Ok(outcome) => outcome,
                    Err(e) => return Some(Err(CheckError::Input(e))),
                };
                if let Err(abort) = consumer.game(self.mode, outcome) {
                    return Some(abort.into_result());
                }
            }
        }
        None
    }

    /// Checks a batch on this thread; its outcomes wait for their turn.
    fn check_here(&mut self, batch: Batch) {
        let outcomes = check_batch(self.mode, self.own, &batch, self.stop);
        self.waiting.insert(batch.seq, outcomes);
        self.pool.push(batch.bytes);
    }

    /// Takes in every answer already sent.
    fn take_answers(&mut self, result_rx: &mpsc::Receiver<Answer<M::Outcome>>) {
        while let Ok(answer) = result_rx.try_recv() {
            self.answered(answer);
        }
    }

    /// Takes in another thread's answer: one batch fewer handed out, its
    /// buffer for the next batch, its outcomes waiting for their turn (a
    /// panic goes on here).
    fn answered(&mut self, (seq, outcomes, bytes): Answer<M::Outcome>) {
        self.handed -= 1;
        self.pool.push(bytes);
        let outcomes = outcomes.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        self.waiting.insert(seq, outcomes);
    }
}

/// Another thread's answer: the batch's place, its outcomes (or the
/// thread's panic) and the batch's byte buffer.
pub(super) type Answer<O> = (
    usize,
    std::thread::Result<Vec<Result<O, InputError>>>,
    Vec<u8>,
);

/// Another thread's part of [`drive_batches`]: checks the batches it
/// takes from `jobs` with `worker` and sends their outcomes back, until
/// the jobs end or nobody listens; once `stop` is set it takes batches
/// without checking them.
fn check_batches<M: Mode>(
    mode: &M,
    mut worker: Worker,
    jobs: &Mutex<mpsc::Receiver<Batch>>,
    results: &mpsc::Sender<Answer<M::Outcome>>,
    stop: &AtomicBool,
) {
    loop {
        let job = jobs.lock().map(|rx| rx.recv());
        let Ok(Ok(batch)) = job else { break };
        if stop.load(Ordering::Relaxed) {
            continue;
        }
        // A panic (a bug) goes to the calling thread, which would
        // otherwise wait for this batch for ever.
        let outcomes = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check_batch(mode, &mut worker, &batch, stop)
        }));
        if outcomes.is_err() {
            // Skip the rest, so the job channel never fills.
            stop.store(true, Ordering::Relaxed);
        }
        if results.send((batch.seq, outcomes, batch.bytes)).is_err() {
            break;
        }
    }
}
